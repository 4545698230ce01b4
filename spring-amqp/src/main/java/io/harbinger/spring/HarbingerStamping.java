package io.harbinger.spring;

import io.harbinger.rabbit.HarbingerHeaders;
import io.harbinger.rabbit.LaneLayout;
import io.harbinger.rabbit.Lanes;
import io.harbinger.rabbit.MessageStamper;
import io.harbinger.rabbit.Stamp;
import org.springframework.amqp.core.Correlation;
import org.springframework.amqp.core.Message;
import org.springframework.amqp.core.MessagePostProcessor;
import org.springframework.amqp.core.MessageProperties;
import org.springframework.core.Ordered;

/**
 * A {@link MessagePostProcessor} that stamps every message a {@code RabbitTemplate} publishes as a
 * wrapped channel does: the priority of its key's level on the addressed queue, the connection's
 * user as {@code user-id}, and Harbinger's headers.
 *
 * <p>The auto-configuration adds it to the before-publish post-processors of every {@code
 * RabbitTemplate} on Harbinger's connection factory, so it runs for {@code convertAndSend}, {@code
 * send}, {@code invoke} and with publisher confirms and returns alike. It runs last ({@link
 * Ordered#LOWEST_PRECEDENCE}), after the application's own post-processors have set the job type.
 * The key is the connection's user and the job-type header; a message without a job type gets the
 * producer-only key. The message's properties are changed in place, as Spring's post-processors do.
 *
 * <p>A message addressed to a lanes queue ({@link HarbingerQueues#lanes}, on the default exchange)
 * keeps its priority and gets the lane of its stamped level ({@link LaneLayout#laneFor}), which a
 * {@link HarbingerRabbitTemplate} then publishes to; a post-processor cannot change the routing key
 * itself.
 *
 * <p>Thread-safe; one stamp is a local router lookup and a clock read (the publish path never
 * blocks on Harbinger).
 */
public final class HarbingerStamping implements MessagePostProcessor, Ordered {

  private final HarbingerRuntime runtime;

  HarbingerStamping(HarbingerRuntime runtime) {
    this.runtime = runtime;
  }

  /**
   * Stamps a message whose exchange and routing key are unknown: the classic priority mapping.
   *
   * @param message the message
   * @return the same message, stamped
   */
  @Override
  public Message postProcessMessage(Message message) {
    return postProcessMessage(message, null, "", "");
  }

  /**
   * Stamps a message about to be published to an exchange with a routing key.
   *
   * @param message the message
   * @param correlation the correlation data, unused
   * @param exchange the exchange, empty for the default exchange
   * @param routingKey the routing key, the queue on the default exchange
   * @return the same message, stamped
   */
  @Override
  public Message postProcessMessage(
      Message message, Correlation correlation, String exchange, String routingKey) {
    MessageStamper stamper = runtime.stamper();
    MessageProperties props = message.getMessageProperties();
    byte[] body = message.getBody();
    LaneLayout lanes = exchange == null || exchange.isEmpty() ? Lanes.layoutOf(routingKey) : null;
    String lane =
        stamper.stamp(
            exchange,
            routingKey,
            props.getHeaders().get(stamper.jobTypeHeader()),
            stamper.sizeHint(props.getHeaders(), body == null ? 0 : body.length),
            props.getPriority(),
            props.getUserId(),
            new Target(props, lanes),
            HarbingerStamping::apply);
    LaneChoices.chose(message, lane);
    return message;
  }

  /** The properties to stamp, and the lanes the message is addressed to, or null. */
  private record Target(MessageProperties props, LaneLayout lanes) {}

  /**
   * Applies a stamp's values to the message's properties, in place, and returns the message's lane
   * when it addresses a lanes queue (where the caller's priority is kept).
   */
  private static String apply(
      Target target,
      int level,
      Integer priority,
      String userId,
      String appId,
      long publishedAtMicros,
      String mode) {
    MessageProperties props = target.props();
    if (priority != null && target.lanes() == null) {
      props.setPriority(priority);
    }
    props.setUserId(userId);
    if (appId != null) {
      props.setAppId(appId);
    }
    props.setHeader(HarbingerHeaders.STAMP, Stamp.headerValue(publishedAtMicros, level, mode));
    return target.lanes() == null
        ? null
        : target.lanes().laneFor(level, MessageStamper.SHADOW_MODE.equals(mode));
  }

  @Override
  public int getOrder() {
    return Ordered.LOWEST_PRECEDENCE;
  }
}
