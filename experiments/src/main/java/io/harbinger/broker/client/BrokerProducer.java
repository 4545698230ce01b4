package io.harbinger.broker.client;

import com.google.protobuf.ByteString;
import io.grpc.Channel;
import io.harbinger.proto.v1.BrokerGrpc;
import io.harbinger.proto.v1.RegisterProducerRequest;
import io.harbinger.proto.v1.SubmitRequest;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * A producer of Harbinger's broker: registers once, then submits messages.
 *
 * <p>Thread-safe; {@link #submit} blocks for one round trip (at most the call deadline, 5 s). A
 * refused submit throws the {@link io.grpc.StatusRuntimeException} with the broker's status.
 */
public final class BrokerProducer {

  private static final Duration CALL_DEADLINE = Duration.ofSeconds(5);

  private final BrokerGrpc.BrokerBlockingStub stub;
  private final String producerId;

  private BrokerProducer(BrokerGrpc.BrokerBlockingStub stub, String producerId) {
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
    return new BrokerProducer(stub, id);
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
}
