package io.harbinger.rabbit;

import com.rabbitmq.client.AMQP;
import java.util.Map;

/**
 * Applies a {@link MessageStamper}'s {@link Stamp} to the properties of an outgoing message: the
 * priority, the producer identity ({@code user-id}, or {@code app-id} where so configured) and the
 * headers.
 *
 * <p>Implementation notes. The stamper hands the stamp's values to {@link #properties} (an {@link
 * MessageStamper.Applier}), so no {@link Stamp} object is made on this path. A publish allocates
 * one properties object and the {@code x-harbinger} header's value; the properties' constructor
 * copies the caller's headers plus the stamp header from a {@link StampedHeaders} view (copy on
 * write: the caller's properties and headers are never modified); every other property is the
 * caller's.
 *
 * <p>Thread-safe: the stamper is, and nothing else is shared.
 */
final class PublishStamper {

  private final MessageStamper stamper;
  private final String jobTypeHeader;
  private final AdapterStats stats;

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
    stats = options.stats();
    jobTypeHeader = stamper.jobTypeHeader();
  }

  /**
   * Returns the properties to publish in place of the caller's.
   *
   * @param exchange the exchange published to, empty for the default exchange
   * @param routingKey the routing key, the queue's name on the default exchange
   * @param props the caller's properties, or null
   * @param bodyLength the body length in bytes, the size hint when size hints are on and the caller
   *     set no {@code x-size-hint} header
   * @return new properties; the caller's are untouched
   */
  AMQP.BasicProperties stamp(
      String exchange, String routingKey, AMQP.BasicProperties props, long bodyLength) {
    Map<String, Object> callerHeaders = props == null ? null : props.getHeaders();
    return stamper.stamp(
        exchange,
        routingKey,
        callerHeaders == null ? null : callerHeaders.get(jobTypeHeader),
        stamper.sizeHint(callerHeaders, bodyLength),
        props == null ? null : props.getPriority(),
        props == null ? null : props.getUserId(),
        props,
        PublishStamper::properties);
  }

  /** A publish to a logical lanes queue: the lane to route to and the properties to send. */
  record LanePublish(String lane, AMQP.BasicProperties properties) {}

  /**
   * Returns the lane and properties of a publish to a logical lanes queue: the lane of the
   * message's level (the lowest lane in shadow mode, so that delivery order stays as without
   * Harbinger), with the stamped headers and identity and the caller's own priority.
   *
   * @param lanes the logical queue's layout
   * @param props the caller's properties, or null
   * @param bodyLength the body length in bytes
   * @return the lane and the properties
   */
  LanePublish stampLane(LaneLayout lanes, AMQP.BasicProperties props, long bodyLength) {
    Map<String, Object> callerHeaders = props == null ? null : props.getHeaders();
    return stamper.stamp(
        "",
        lanes.queue(),
        callerHeaders == null ? null : callerHeaders.get(jobTypeHeader),
        stamper.sizeHint(callerHeaders, bodyLength),
        props == null ? null : props.getPriority(),
        props == null ? null : props.getUserId(),
        props,
        (p, level, priority, userId, appId, publishedAt, mode) -> {
          int laneLevel = level;
          if (level >= lanes.levels()) {
            stats.increment(Counter.INVALID_LEVEL);
            laneLevel = lanes.levels() - 1;
          } else if (MessageStamper.SHADOW_MODE.equals(mode)) {
            laneLevel = lanes.levels() - 1;
          }
          return new LanePublish(
              lanes.laneName(laneLevel),
              properties(
                  p, level, p == null ? null : p.getPriority(), userId, appId, publishedAt, mode));
        });
  }

  /** Builds the properties to send from the caller's and the stamp's values. */
  private static AMQP.BasicProperties properties(
      AMQP.BasicProperties props,
      int level,
      Integer priority,
      String userId,
      String appId,
      long publishedAtMicros,
      String mode) {
    String stamp = Stamp.headerValue(publishedAtMicros, level, mode);
    if (props == null) {
      return new AMQP.BasicProperties(
          null,
          null,
          new StampedHeaders(null, stamp),
          null,
          priority,
          null,
          null,
          null,
          null,
          null,
          null,
          userId,
          appId,
          null);
    }
    // The constructor copies the headers view into a map of its own.
    return new AMQP.BasicProperties(
        props.getContentType(),
        props.getContentEncoding(),
        new StampedHeaders(props.getHeaders(), stamp),
        props.getDeliveryMode(),
        priority,
        props.getCorrelationId(),
        props.getReplyTo(),
        props.getExpiration(),
        props.getMessageId(),
        props.getTimestamp(),
        props.getType(),
        userId,
        appId == null ? props.getAppId() : appId,
        props.getClusterId());
  }
}
