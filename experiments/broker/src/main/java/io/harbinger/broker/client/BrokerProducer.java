package io.harbinger.broker.client;

import com.google.protobuf.ByteString;
import io.grpc.Channel;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import io.harbinger.proto.v1.BrokerGrpc;
import io.harbinger.proto.v1.RegisterProducerRequest;
import io.harbinger.proto.v1.SubmitRequest;
import io.harbinger.proto.v1.SubmitResponse;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * A producer of Harbinger's broker: registers once, then submits messages.
 *
 * <p>Thread-safe; {@link #submit} blocks for one round trip (at most the call deadline, 5 s). A
 * refused submit throws the {@link StatusRuntimeException} with the broker's status.
 */
public final class BrokerProducer {

  private static final Duration CALL_DEADLINE = Duration.ofSeconds(5);

  private final BrokerGrpc.BrokerBlockingStub stub;
  private final Channel channel;
  private final String producerId;

  private BrokerProducer(Channel channel, BrokerGrpc.BrokerBlockingStub stub, String producerId) {
    this.channel = channel;
    this.stub = stub;
    this.producerId = producerId;
  }

  /**
   * Registers a new producer with the broker behind a channel.
   *
   * @param channel the channel to the broker
   * @return the registered producer
   */
  public static BrokerProducer register(Channel channel) {
    BrokerGrpc.BrokerBlockingStub stub = BrokerGrpc.newBlockingStub(channel);
    String id =
        stub.withDeadlineAfter(CALL_DEADLINE.toMillis(), TimeUnit.MILLISECONDS)
            .registerProducer(RegisterProducerRequest.getDefaultInstance())
            .getProducerId();
    return new BrokerProducer(channel, stub, id);
  }

  /** Returns the id the broker assigned. */
  public String producerId() {
    return producerId;
  }

  /**
   * Submits a message with the broker's default TTL.
   *
   * @param payload the body
   * @param headers the headers (the job type in {@code x-job-type})
   * @return the message id
   */
  public String submit(ByteString payload, Map<String, String> headers) {
    return submit(payload, headers, null);
  }

  /**
   * Submits a message.
   *
   * @param payload the body
   * @param headers the headers (the job type in {@code x-job-type})
   * @param ttl the time to live from arrival; null for the broker default, zero for none
   * @return the message id
   */
  public String submit(ByteString payload, Map<String, String> headers, Duration ttl) {
    SubmitRequest.Builder request =
        SubmitRequest.newBuilder()
            .setProducerId(producerId)
            .setPayload(Objects.requireNonNull(payload, "payload"))
            .putAllHeaders(headers);
    if (ttl != null) {
      request.setTtlMs(ttl.toMillis());
    }
    return stub.withDeadlineAfter(CALL_DEADLINE.toMillis(), TimeUnit.MILLISECONDS)
        .submit(request.build())
        .getMessageId();
  }

  /**
   * Opens a SubmitStream: submits pipelined over one call, at most {@code window} unanswered.
   *
   * @param window the most submits awaiting their response, in [1, 100000]
   * @return the stream; close it to finish
   */
  public SubmitStream openStream(int window) {
    if (window < 1 || window > 100_000) {
      throw new IllegalArgumentException("window must be in [1, 100000]: " + window);
    }
    return new SubmitStream(channel, producerId, window);
  }

  /**
   * A pipelined stream of submits from this producer. One thread at a time may {@link #submit}; the
   * first refusal ends the stream and is thrown by the next call.
   */
  public static final class SubmitStream implements AutoCloseable {
    private final String producerId;
    private final int window;
    private final Semaphore permits;
    private final CountDownLatch finished = new CountDownLatch(1);
    private final StreamObserver<SubmitRequest> requests;
    private volatile Throwable failure;

    private SubmitStream(Channel channel, String producerId, int window) {
      this.producerId = producerId;
      this.window = window;
      this.permits = new Semaphore(window);
      this.requests =
          BrokerGrpc.newStub(channel)
              .submitStream(
                  new StreamObserver<>() {
                    @Override
                    public void onNext(SubmitResponse response) {
                      permits.release();
                    }

                    @Override
                    public void onError(Throwable t) {
                      failure = t;
                      permits.release(window);
                      finished.countDown();
                    }

                    @Override
                    public void onCompleted() {
                      finished.countDown();
                    }
                  });
    }

    /**
     * Submits a message, waiting while the window is full.
     *
     * @param payload the body
     * @param headers the headers
     * @throws InterruptedException if interrupted while waiting for the window
     * @throws StatusRuntimeException if the stream was ended by a refusal
     */
    public void submit(ByteString payload, Map<String, String> headers)
        throws InterruptedException {
      permits.acquire();
      Throwable f = failure;
      if (f != null) {
        throw Status.fromThrowable(f).asRuntimeException();
      }
      requests.onNext(
          SubmitRequest.newBuilder()
              .setProducerId(producerId)
              .setPayload(payload)
              .putAllHeaders(headers)
              .build());
    }

    /** Finishes the stream and waits (up to 30 s) until every submit is answered. */
    @Override
    public void close() throws InterruptedException {
      if (failure == null) {
        requests.onCompleted();
      }
      finished.await(30, TimeUnit.SECONDS);
      Throwable f = failure;
      if (f != null) {
        throw Status.fromThrowable(f).asRuntimeException();
      }
    }
  }
}
