package io.harbinger.broker;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import io.harbinger.proto.v1.AckRequest;
import io.harbinger.proto.v1.ConsumeRequest;
import io.harbinger.proto.v1.ConsumeResponse;
import io.harbinger.proto.v1.NackRequest;

/**
 * One Consume stream: turns each unit of credit into a parked {@link PullWaiter} and each delivery
 * into a pushed message, and applies the settlements the consumer sends on the stream.
 *
 * <p>Implementation notes: a waiter whose wait times out parks itself again while the stream is
 * open, so credit never lapses. Responses are written under the call's monitor because deliveries
 * arrive on whichever thread made a message available. When the stream ends, its waiters report
 * themselves cancelled and the broker drops them; deliveries not yet settled come back when their
 * lease expires (at-least-once, as for Pull).
 */
final class ConsumeSession implements StreamObserver<ConsumeRequest> {

  /** The most credit a consumer may have outstanding. */
  static final int MAX_CREDIT = 1000;

  private final MessageBroker broker;
  private final ServerCallStreamObserver<ConsumeResponse> call;
  private volatile boolean closed;
  private String consumerId;
  private int outstanding;

  ConsumeSession(MessageBroker broker, ServerCallStreamObserver<ConsumeResponse> call) {
    this.broker = broker;
    this.call = call;
    call.setOnCancelHandler(() -> closed = true);
  }

  private final class Waiter implements PullWaiter {
    @Override
    public void deliver(Delivered delivery) {
      synchronized (ConsumeSession.this) {
        outstanding--;
      }
      send(ConsumeResponse.newBuilder().setMessage(BrokerService.toMessage(delivery)).build());
    }

    @Override
    public void timedOut() {
      if (!isCancelled()) {
        park(this);
      }
    }

    @Override
    public boolean isCancelled() {
      return closed || call.isCancelled();
    }
  }

  private void park(Waiter waiter) {
    try {
      broker.pullAsync(consumerId, 0, waiter);
    } catch (BrokerException e) {
      fail(BrokerService.toStatus(e));
    }
  }

  private void send(ConsumeResponse response) {
    synchronized (call) {
      if (closed || call.isCancelled()) {
        return;
      }
      try {
        call.onNext(response);
      } catch (IllegalStateException | StatusRuntimeException e) {
        closed = true;
      }
    }
  }

  private void fail(StatusRuntimeException status) {
    synchronized (call) {
      if (!closed) {
        closed = true;
        call.onError(status);
      }
    }
  }

  @Override
  public void onNext(ConsumeRequest request) {
    if (closed) {
      return;
    }
    if (consumerId == null) {
      if (!broker.isConsumer(request.getConsumerId())) {
        fail(
            Status.PERMISSION_DENIED
                .withDescription("consumer is not registered: " + request.getConsumerId())
                .asRuntimeException());
        return;
      }
      consumerId = request.getConsumerId();
    }
    for (AckRequest ack : request.getAcksList()) {
      try {
        broker.ack(consumerId, ack.getMessageId(), ack.getAttemptToken(), ack.getHandlerNanos());
      } catch (BrokerException e) {
        refuse(ack.getAttemptToken(), e);
      }
    }
    for (NackRequest nack : request.getNacksList()) {
      try {
        broker.nack(
            consumerId,
            nack.getMessageId(),
            nack.getAttemptToken(),
            nack.getHandlerNanos(),
            nack.getReason());
      } catch (BrokerException e) {
        refuse(nack.getAttemptToken(), e);
      }
    }
    int credit = request.getCredit();
    if (credit == 0) {
      return;
    }
    synchronized (this) {
      if (credit < 0 || outstanding + (long) credit > MAX_CREDIT) {
        fail(
            Status.INVALID_ARGUMENT
                .withDescription(
                    "outstanding credit must be at most "
                        + MAX_CREDIT
                        + ": "
                        + (outstanding + credit))
                .asRuntimeException());
        return;
      }
      outstanding += credit;
    }
    for (int i = 0; i < credit; i++) {
      park(new Waiter());
    }
  }

  private void refuse(String token, BrokerException e) {
    Status status = BrokerService.toStatus(e).getStatus();
    send(
        ConsumeResponse.newBuilder()
            .setRefusedAttemptToken(token)
            .setRefusedCode(status.getCode().value())
            .setRefusedDescription(String.valueOf(status.getDescription()))
            .build());
  }

  @Override
  public void onError(Throwable t) {
    closed = true;
  }

  @Override
  public void onCompleted() {
    synchronized (call) {
      if (!closed) {
        closed = true;
        call.onCompleted();
      }
    }
  }
}
