package io.harbinger.broker.client;

import io.grpc.Channel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.StreamObserver;
import io.harbinger.predictor.Ticker;
import io.harbinger.proto.v1.AckRequest;
import io.harbinger.proto.v1.BrokerGrpc;
import io.harbinger.proto.v1.ConsumeRequest;
import io.harbinger.proto.v1.ConsumeResponse;
import io.harbinger.proto.v1.NackRequest;
import io.harbinger.proto.v1.PullRequest;
import io.harbinger.proto.v1.PullResponse;
import io.harbinger.proto.v1.PulledMessage;
import io.harbinger.proto.v1.RegisterConsumerRequest;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;

/**
 * A consumer of Harbinger's broker: registers once, pulls, runs a handler, and settles each
 * delivery with the handler's duration.
 *
 * <p>Settlement follows the original implementation's consumer: on UNAVAILABLE or DEADLINE_EXCEEDED
 * an Ack or Nack is sent again, up to 3 calls with 5 s deadlines and 100 / 200 ms backoff, without
 * rerunning the handler (the broker answers a repeated settlement as before). A settlement refused
 * with FAILED_PRECONDITION means the lease was lost (the message is, or will be, redelivered); it
 * is counted in {@link #leasesLost} and the consumer carries on.
 *
 * <p>Thread-safe, but a consumer id is meant for one pulling thread; {@link #pull} blocks for at
 * most its timeout plus 500 ms.
 */
public final class BrokerConsumer {

  /** Runs one message. */
  @FunctionalInterface
  public interface Handler {
    /**
     * Handles a delivery.
     *
     * @param message the delivery
     * @return true to Ack, false to Nack
     * @throws Exception to Nack with the exception as the reason
     */
    boolean handle(PulledMessage message) throws Exception;
  }

  private static final Duration CALL_DEADLINE = Duration.ofSeconds(5);
  private static final long[] BACKOFF_MILLIS = {100, 200};
  private static final long PULL_GRACE_MILLIS = 500;
  private static final long PULL_ERROR_BACKOFF_MILLIS = 200;

  private final BrokerGrpc.BrokerBlockingStub stub;
  private final Channel channel;
  private final String consumerId;
  private final Ticker ticker;
  private final AtomicLong leasesLost = new AtomicLong();
  private final AtomicLong settled = new AtomicLong();

  private BrokerConsumer(
      Channel channel, BrokerGrpc.BrokerBlockingStub stub, String consumerId, Ticker ticker) {
    this.channel = channel;
    this.stub = stub;
    this.consumerId = consumerId;
    this.ticker = ticker;
  }

  /**
   * Registers a new consumer with the broker behind a channel; handlers are timed with the system
   * ticker.
   *
   * @param channel the channel to the broker
   * @return the registered consumer
   */
  public static BrokerConsumer register(Channel channel) {
    return register(channel, Ticker.SYSTEM);
  }

  /**
   * Registers a new consumer with the broker behind a channel.
   *
   * @param channel the channel to the broker
   * @param ticker the clock that times handlers
   * @return the registered consumer
   */
  public static BrokerConsumer register(Channel channel, Ticker ticker) {
    BrokerGrpc.BrokerBlockingStub stub = BrokerGrpc.newBlockingStub(channel);
    String id =
        stub.withDeadlineAfter(CALL_DEADLINE.toMillis(), TimeUnit.MILLISECONDS)
            .registerConsumer(RegisterConsumerRequest.getDefaultInstance())
            .getConsumerId();
    return new BrokerConsumer(channel, stub, id, ticker);
  }

  /** Returns the id the broker assigned. */
  public String consumerId() {
    return consumerId;
  }

  /** Returns how many settlements were refused because the lease had been lost. */
  public long leasesLost() {
    return leasesLost.get();
  }

  /** Returns how many settlements the broker accepted. */
  public long settled() {
    return settled.get();
  }

  /**
   * Waits for one message.
   *
   * @param timeout how long the broker should wait; zero for its maximum
   * @return the delivery, or null when none arrived in time
   */
  public PulledMessage pull(Duration timeout) {
    PullResponse response =
        stub.withDeadlineAfter(timeout.toMillis() + PULL_GRACE_MILLIS, TimeUnit.MILLISECONDS)
            .pull(
                PullRequest.newBuilder()
                    .setConsumerId(consumerId)
                    .setTimeoutMs(timeout.toMillis())
                    .build());
    return response.getTimedOut() ? null : response.getMessage();
  }

  /**
   * Acknowledges a delivery.
   *
   * @param message the delivery
   * @param handlerNanos how long the handler took
   * @return true when accepted, false when the lease had been lost
   */
  public boolean ack(PulledMessage message, long handlerNanos) {
    AckRequest request =
        AckRequest.newBuilder()
            .setConsumerId(consumerId)
            .setMessageId(message.getMessageId())
            .setAttemptToken(message.getAttemptToken())
            .setHandlerNanos(handlerNanos)
            .build();
    return settle(() -> stub().ack(request));
  }

  /**
   * Rejects a delivery; the broker retries it or dead-letters it.
   *
   * @param message the delivery
   * @param handlerNanos how long the handler took
   * @param reason why it failed
   * @return true when accepted, false when the lease had been lost
   */
  public boolean nack(PulledMessage message, long handlerNanos, String reason) {
    NackRequest request =
        NackRequest.newBuilder()
            .setConsumerId(consumerId)
            .setMessageId(message.getMessageId())
            .setAttemptToken(message.getAttemptToken())
            .setHandlerNanos(handlerNanos)
            .setReason(reason == null ? "" : reason)
            .build();
    return settle(() -> stub().nack(request));
  }

  private BrokerGrpc.BrokerBlockingStub stub() {
    return stub.withDeadlineAfter(CALL_DEADLINE.toMillis(), TimeUnit.MILLISECONDS);
  }

  private boolean settle(Runnable call) {
    for (int attempt = 0; ; attempt++) {
      try {
        call.run();
        settled.incrementAndGet();
        return true;
      } catch (StatusRuntimeException e) {
        Status.Code code = e.getStatus().getCode();
        if (code == Status.Code.FAILED_PRECONDITION) {
          leasesLost.incrementAndGet();
          return false;
        }
        boolean transientError =
            code == Status.Code.UNAVAILABLE || code == Status.Code.DEADLINE_EXCEEDED;
        if (!transientError || attempt >= BACKOFF_MILLIS.length) {
          throw e;
        }
        sleep(BACKOFF_MILLIS[attempt]);
      }
    }
  }

  /**
   * Pulls and handles messages until told to stop: each handler is timed and its delivery acked
   * (true) or nacked (false or an exception). Transient pull errors back off 200 ms.
   *
   * @param handler the handler
   * @param running checked before each pull; the loop ends when it returns false
   * @param pullTimeout the timeout of each pull
   * @return how many deliveries were handled
   */
  public long consume(Handler handler, BooleanSupplier running, Duration pullTimeout) {
    long handled = 0;
    while (running.getAsBoolean()) {
      PulledMessage message;
      try {
        message = pull(pullTimeout);
      } catch (StatusRuntimeException e) {
        Status.Code code = e.getStatus().getCode();
        if (code == Status.Code.UNAVAILABLE || code == Status.Code.DEADLINE_EXCEEDED) {
          sleep(PULL_ERROR_BACKOFF_MILLIS);
          continue;
        }
        throw e;
      }
      if (message == null) {
        continue;
      }
      long start = ticker.nanos();
      boolean ok;
      String reason = "handler returned false";
      try {
        ok = handler.handle(message);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        nack(message, ticker.nanos() - start, "interrupted");
        return handled;
      } catch (Exception e) {
        ok = false;
        reason = String.valueOf(e);
      }
      long handlerNanos = ticker.nanos() - start;
      if (ok) {
        ack(message, handlerNanos);
      } else {
        nack(message, handlerNanos, reason);
      }
      handled++;
    }
    return handled;
  }

  /**
   * Consumes over one Consume stream with a prefetch (credit) until told to stop: each delivery is
   * handled on the calling thread, timed, and settled on the stream together with one unit of new
   * credit, so at most {@code prefetch} deliveries are unsettled at a time (like AMQP's basic.qos).
   * A settlement the broker refuses with FAILED_PRECONDITION counts in {@link #leasesLost}.
   *
   * @param handler the handler
   * @param running checked between deliveries (at least every 100 ms); the stream ends when it
   *     returns false
   * @param prefetch deliveries outstanding at once, in [1, 1000]
   * @return how many deliveries were handled
   * @throws StatusRuntimeException if the broker ends the stream with an error
   */
  public long consumeStream(Handler handler, BooleanSupplier running, int prefetch) {
    if (prefetch < 1 || prefetch > 1000) {
      throw new IllegalArgumentException("prefetch must be in [1, 1000]: " + prefetch);
    }
    BlockingQueue<Object> inbox = new LinkedBlockingQueue<>();
    Object done = new Object();
    StreamObserver<ConsumeRequest> requests =
        BrokerGrpc.newStub(channel)
            .consume(
                new StreamObserver<>() {
                  @Override
                  public void onNext(ConsumeResponse response) {
                    if (response.hasMessage()) {
                      inbox.add(response.getMessage());
                    } else if (response.getRefusedCode()
                        == Status.Code.FAILED_PRECONDITION.value()) {
                      leasesLost.incrementAndGet();
                    }
                  }

                  @Override
                  public void onError(Throwable t) {
                    inbox.add(t);
                  }

                  @Override
                  public void onCompleted() {
                    inbox.add(done);
                  }
                });
    requests.onNext(
        ConsumeRequest.newBuilder().setConsumerId(consumerId).setCredit(prefetch).build());
    long handled = 0;
    try {
      while (running.getAsBoolean()) {
        Object next = inbox.poll(100, TimeUnit.MILLISECONDS);
        if (next == null) {
          continue;
        }
        if (next instanceof Throwable t) {
          throw t instanceof StatusRuntimeException sre
              ? sre
              : Status.fromThrowable(t).asRuntimeException();
        }
        if (next == done) {
          return handled;
        }
        PulledMessage message = (PulledMessage) next;
        long start = ticker.nanos();
        boolean ok;
        String reason = "handler returned false";
        try {
          ok = handler.handle(message);
        } catch (InterruptedException e) {
          throw e;
        } catch (Exception e) {
          ok = false;
          reason = String.valueOf(e);
        }
        long handlerNanos = ticker.nanos() - start;
        ConsumeRequest.Builder settle = ConsumeRequest.newBuilder().setCredit(1);
        if (ok) {
          settle.addAcks(
              AckRequest.newBuilder()
                  .setMessageId(message.getMessageId())
                  .setAttemptToken(message.getAttemptToken())
                  .setHandlerNanos(handlerNanos));
        } else {
          settle.addNacks(
              NackRequest.newBuilder()
                  .setMessageId(message.getMessageId())
                  .setAttemptToken(message.getAttemptToken())
                  .setHandlerNanos(handlerNanos)
                  .setReason(reason));
        }
        requests.onNext(settle.build());
        settled.incrementAndGet();
        handled++;
      }
      requests.onCompleted();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      requests.onError(Status.CANCELLED.withDescription("interrupted").asRuntimeException());
    }
    return handled;
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw Status.CANCELLED.withDescription("interrupted").asRuntimeException();
    }
  }
}
