package io.harbinger.rabbit;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Consumer;
import java.io.IOException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hands one delivery of a lane to the application the way the RabbitMQ client hands a delivery to a
 * consumer: with automatic acknowledgement it is acknowledged first, and a handler that throws
 * closes the channel (RabbitMQ then redelivers what was unsettled).
 */
final class LaneHandOff {

  private static final Logger LOG = LoggerFactory.getLogger(LaneHandOff.class);

  private LaneHandOff() {}

  /**
   * Runs the application's handler on one delivery.
   *
   * @param delegate the channel the delivery came on
   * @param application the application's consumer
   * @param tag the consumer tag the application sees
   * @param job the delivery
   * @param autoAck whether the application consumes with automatic acknowledgement
   * @param queue the logical queue, for the log
   * @return whether the handler returned normally
   */
  static boolean run(
      Channel delegate,
      Consumer application,
      String tag,
      LaneJob job,
      boolean autoAck,
      String queue) {
    try {
      if (autoAck) {
        delegate.basicAck(job.envelope.getDeliveryTag(), false);
      }
      application.handleDelivery(tag, job.envelope, job.properties, job.body);
      return true;
    } catch (Exception e) {
      if (!delegate.isOpen()) {
        // The channel closed under the handler (an acknowledgement on it failed, say): RabbitMQ
        // redelivers what was unsettled, and a recovering channel resumes the lanes.
        LOG.debug("the consumer of lanes queue '{}' failed on a closed channel", queue, e);
        return false;
      }
      LOG.error(
          "the consumer of lanes queue '{}' threw from handleDelivery; closing the channel, as"
              + " the RabbitMQ client does",
          queue,
          e);
      try {
        delegate.close(AMQP.REPLY_SUCCESS, "Closed due to exception from Consumer " + tag);
      } catch (IOException | java.util.concurrent.TimeoutException | RuntimeException ignored) {
        // Already closing.
      }
      return false;
    }
  }
}
