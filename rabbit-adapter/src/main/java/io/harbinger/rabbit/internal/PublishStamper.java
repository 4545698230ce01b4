package io.harbinger.rabbit.internal;

import com.rabbitmq.client.AMQP;
import io.harbinger.rabbit.ChannelOptions;
import io.harbinger.rabbit.MessageStamper;
import io.harbinger.rabbit.Stamp;
import java.util.Map;

/**
 * Applies a {@link MessageStamper}'s {@link Stamp} to the properties of an outgoing message: the
 * priority, the {@code user-id} and the headers.
 *
 * <p>Implementation notes. A publish allocates one properties object, whose constructor copies the
 * caller's headers plus the stamped ones from a {@link StampedHeaders} view (copy on write: the
 * caller's properties and headers are never modified); every other property is the caller's.
 *
 * <p>Thread-safe: the stamper is, and nothing else is shared.
 */
final class PublishStamper {

  private final MessageStamper stamper;
  private final String jobTypeHeader;

  PublishStamper(ChannelOptions options) {
    this(options, null);
  }

  /**
   * Creates the stamper of one channel.
   *
   * @param options how the channel is wrapped
   * @param brokerVersion the version the broker reports, or null when unknown
   */
  PublishStamper(ChannelOptions options, String brokerVersion) {
    stamper = MessageStamper.create(options, brokerVersion);
    jobTypeHeader = stamper.jobTypeHeader();
  }

  /**
   * Returns the properties to publish in place of the caller's.
   *
   * @param exchange the exchange published to, empty for the default exchange
   * @param routingKey the routing key, the queue's name on the default exchange
   * @param props the caller's properties, or null
   * @param bodyLength the body length in bytes, the size hint when size hints are on
   * @return new properties; the caller's are untouched
   */
  AMQP.BasicProperties stamp(
      String exchange, String routingKey, AMQP.BasicProperties props, long bodyLength) {
    if (props == null) {
      Stamp s = stamper.stamp(exchange, routingKey, null, bodyLength, null, null);
      return new AMQP.BasicProperties(
          null,
          null,
          new StampedHeaders(null, s),
          null,
          s.priority(),
          null,
          null,
          null,
          null,
          null,
          null,
          s.userId(),
          null,
          null);
    }
    Map<String, Object> callerHeaders = props.getHeaders();
    Stamp s =
        stamper.stamp(
            exchange,
            routingKey,
            callerHeaders == null ? null : callerHeaders.get(jobTypeHeader),
            bodyLength,
            props.getPriority(),
            props.getUserId());
    // The constructor copies the headers view into a map of its own.
    return new AMQP.BasicProperties(
        props.getContentType(),
        props.getContentEncoding(),
        new StampedHeaders(callerHeaders, s),
        props.getDeliveryMode(),
        s.priority(),
        props.getCorrelationId(),
        props.getReplyTo(),
        props.getExpiration(),
        props.getMessageId(),
        props.getTimestamp(),
        props.getType(),
        s.userId(),
        props.getAppId(),
        props.getClusterId());
  }
}
