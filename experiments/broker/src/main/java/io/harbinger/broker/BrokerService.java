package io.harbinger.broker;

import com.google.protobuf.ByteString;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import io.harbinger.proto.v1.AckRequest;
import io.harbinger.proto.v1.AckResponse;
import io.harbinger.proto.v1.BrokerGrpc;
import io.harbinger.proto.v1.ConsumeRequest;
import io.harbinger.proto.v1.ConsumeResponse;
import io.harbinger.proto.v1.DlqEntry;
import io.harbinger.proto.v1.DlqReason;
import io.harbinger.proto.v1.InspectDlqRequest;
import io.harbinger.proto.v1.InspectDlqResponse;
import io.harbinger.proto.v1.NackRequest;
import io.harbinger.proto.v1.NackResponse;
import io.harbinger.proto.v1.PullRequest;
import io.harbinger.proto.v1.PullResponse;
import io.harbinger.proto.v1.PulledMessage;
import io.harbinger.proto.v1.RegisterConsumerRequest;
import io.harbinger.proto.v1.RegisterConsumerResponse;
import io.harbinger.proto.v1.RegisterProducerRequest;
import io.harbinger.proto.v1.RegisterProducerResponse;
import io.harbinger.proto.v1.SubmitRequest;
import io.harbinger.proto.v1.SubmitResponse;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;

/**
 * The gRPC face of a {@link MessageBroker}: translates requests, and maps every refusal to its
 * status code in one place ({@link #toStatus}).
 *
 * <p>Thread-safe, and no handler blocks: a Pull with nothing to deliver is parked in the broker
 * ({@link MessageBroker#pullAsync}) and answered by the thread that makes a message available, or
 * by the broker's maintenance when it times out. The server may therefore run handlers on its
 * transport threads ({@code directExecutor()}).
 */
final class BrokerService extends BrokerGrpc.BrokerImplBase {

  private final MessageBroker broker;

  BrokerService(MessageBroker broker) {
    this.broker = broker;
  }

  @FunctionalInterface
  private interface Call<T> {
    T run() throws Exception;
  }

  private static <T> void answer(StreamObserver<T> observer, Call<T> call) {
    T response;
    try {
      response = call.run();
    } catch (BrokerException e) {
      observer.onError(toStatus(e));
      return;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      observer.onError(Status.CANCELLED.withDescription("broker shutting down").asException());
      return;
    } catch (RuntimeException e) {
      observer.onError(
          Status.INTERNAL.withDescription(String.valueOf(e)).withCause(e).asException());
      return;
    } catch (Exception e) {
      observer.onError(
          Status.INTERNAL.withDescription(String.valueOf(e)).withCause(e).asException());
      return;
    }
    observer.onNext(response);
    observer.onCompleted();
  }

  static StatusRuntimeException toStatus(BrokerException e) {
    Status status =
        switch (e.kind()) {
          case PERMISSION_DENIED -> Status.PERMISSION_DENIED;
          case INVALID_ARGUMENT -> Status.INVALID_ARGUMENT;
          case NOT_FOUND -> Status.NOT_FOUND;
          case FAILED_PRECONDITION -> Status.FAILED_PRECONDITION;
          case RESOURCE_EXHAUSTED -> Status.RESOURCE_EXHAUSTED;
        };
    return status.withDescription(e.getMessage()).asRuntimeException();
  }

  @Override
  public void registerProducer(
      RegisterProducerRequest request, StreamObserver<RegisterProducerResponse> observer) {
    answer(
        observer,
        () ->
            RegisterProducerResponse.newBuilder().setProducerId(broker.registerProducer()).build());
  }

  @Override
  public void registerConsumer(
      RegisterConsumerRequest request, StreamObserver<RegisterConsumerResponse> observer) {
    answer(
        observer,
        () ->
            RegisterConsumerResponse.newBuilder().setConsumerId(broker.registerConsumer()).build());
  }

  @Override
  public void submit(SubmitRequest request, StreamObserver<SubmitResponse> observer) {
    answer(
        observer,
        () -> {
          OptionalLong ttl =
              request.hasTtlMs() ? OptionalLong.of(request.getTtlMs()) : OptionalLong.empty();
          String id =
              broker.submit(
                  request.getProducerId(), request.getPayload(), request.getHeadersMap(), ttl);
          return SubmitResponse.newBuilder().setMessageId(id).build();
        });
  }

  @Override
  public void pull(PullRequest request, StreamObserver<PullResponse> observer) {
    ServerCallStreamObserver<PullResponse> call = (ServerCallStreamObserver<PullResponse>) observer;
    PullWaiter waiter =
        new PullWaiter() {
          @Override
          public void deliver(Delivered d) {
            respond(call, toResponse(d));
          }

          @Override
          public void timedOut() {
            respond(call, TIMED_OUT);
          }

          @Override
          public boolean isCancelled() {
            return call.isCancelled();
          }
        };
    call.setOnCancelHandler(() -> broker.cancel(waiter));
    try {
      broker.pullAsync(request.getConsumerId(), request.getTimeoutMs(), waiter);
    } catch (BrokerException e) {
      call.onError(toStatus(e));
    }
  }

  private static final PullResponse TIMED_OUT = PullResponse.newBuilder().setTimedOut(true).build();

  private static void respond(ServerCallStreamObserver<PullResponse> call, PullResponse response) {
    synchronized (call) {
      if (call.isCancelled()) {
        return;
      }
      try {
        call.onNext(response);
        call.onCompleted();
      } catch (IllegalStateException | StatusRuntimeException e) {
        // the call ended meanwhile; a delivery it carried is recovered by its lease
      }
    }
  }

  private static PullResponse toResponse(Delivered d) {
    return PullResponse.newBuilder().setMessage(toMessage(d)).build();
  }

  static PulledMessage toMessage(Delivered d) {
    return PulledMessage.newBuilder()
        .setMessageId(d.messageId())
        .setPayload(d.payload())
        .putAllHeaders(d.headers())
        .setAttemptToken(d.attemptToken())
        .setLeaseDurationMs(d.leaseMillis())
        .setDeliveryCount(d.deliveryCount())
        .build();
  }

  @Override
  public StreamObserver<SubmitRequest> submitStream(StreamObserver<SubmitResponse> observer) {
    return new StreamObserver<>() {
      private boolean failed;

      @Override
      public void onNext(SubmitRequest request) {
        if (failed) {
          return;
        }
        try {
          OptionalLong ttl =
              request.hasTtlMs() ? OptionalLong.of(request.getTtlMs()) : OptionalLong.empty();
          String id =
              broker.submit(
                  request.getProducerId(), request.getPayload(), request.getHeadersMap(), ttl);
          observer.onNext(SubmitResponse.newBuilder().setMessageId(id).build());
        } catch (BrokerException e) {
          failed = true;
          observer.onError(toStatus(e));
        }
      }

      @Override
      public void onError(Throwable t) {
        failed = true;
      }

      @Override
      public void onCompleted() {
        if (!failed) {
          observer.onCompleted();
        }
      }
    };
  }

  @Override
  public StreamObserver<ConsumeRequest> consume(StreamObserver<ConsumeResponse> observer) {
    return new ConsumeSession(broker, (ServerCallStreamObserver<ConsumeResponse>) observer);
  }

  @Override
  public void ack(AckRequest request, StreamObserver<AckResponse> observer) {
    answer(
        observer,
        () -> {
          broker.ack(
              request.getConsumerId(),
              request.getMessageId(),
              request.getAttemptToken(),
              request.getHandlerNanos());
          return AckResponse.getDefaultInstance();
        });
  }

  @Override
  public void nack(NackRequest request, StreamObserver<NackResponse> observer) {
    answer(
        observer,
        () -> {
          broker.nack(
              request.getConsumerId(),
              request.getMessageId(),
              request.getAttemptToken(),
              request.getHandlerNanos(),
              request.getReason());
          return NackResponse.getDefaultInstance();
        });
  }

  @Override
  public void inspectDlq(InspectDlqRequest request, StreamObserver<InspectDlqResponse> observer) {
    answer(
        observer,
        () -> {
          DlqPage page = broker.inspectDlq(request.getLimit(), request.getOffset());
          long now = broker.nowNanos();
          InspectDlqResponse.Builder response =
              InspectDlqResponse.newBuilder().setTotalSize(page.totalSize());
          for (DeadLetter letter : page.entries()) {
            response.addEntries(
                DlqEntry.newBuilder()
                    .setMessageId(letter.messageId())
                    .setPayload(letter.payload() == null ? ByteString.EMPTY : letter.payload())
                    .putAllHeaders(letter.headers())
                    .setReason(
                        switch (letter.reason()) {
                          case MAX_RETRIES_EXCEEDED -> DlqReason.DLQ_MAX_RETRIES_EXCEEDED;
                          case TTL_EXPIRED -> DlqReason.DLQ_TTL_EXPIRED;
                        })
                    .setDetails(letter.details())
                    .setDlqAgeMs(TimeUnit.NANOSECONDS.toMillis(now - letter.deadAtNanos()))
                    .setRetryCount(letter.failures()));
          }
          return response.build();
        });
  }
}
