package io.harbinger.broker;

import com.google.protobuf.ByteString;
import io.grpc.Context;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.StreamObserver;
import io.harbinger.proto.v1.AckRequest;
import io.harbinger.proto.v1.AckResponse;
import io.harbinger.proto.v1.BrokerGrpc;
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
 * <p>Thread-safe; Pull blocks its server thread for at most the broker's maximum wait.
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
    Context context = Context.current();
    answer(
        observer,
        () -> {
          Delivered d =
              broker.pull(request.getConsumerId(), request.getTimeoutMs(), context::isCancelled);
          if (d == null) {
            return PullResponse.newBuilder().setTimedOut(true).build();
          }
          return PullResponse.newBuilder()
              .setMessage(
                  PulledMessage.newBuilder()
                      .setMessageId(d.messageId())
                      .setPayload(d.payload())
                      .putAllHeaders(d.headers())
                      .setAttemptToken(d.attemptToken())
                      .setLeaseDurationMs(d.leaseMillis())
                      .setDeliveryCount(d.deliveryCount()))
              .build();
        });
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
