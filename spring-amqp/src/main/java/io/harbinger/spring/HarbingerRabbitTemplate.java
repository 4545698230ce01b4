package io.harbinger.spring;

import com.rabbitmq.client.Channel;
import org.springframework.amqp.core.Message;
import org.springframework.amqp.rabbit.connection.ConnectionFactory;
import org.springframework.amqp.rabbit.core.RabbitTemplate;

/**
 * A {@link RabbitTemplate} that publishes a message addressed to a lanes queue into the lane of its
 * level: {@code convertAndSend("", "jobs", ...)} on the lanes of {@code jobs} ({@link
 * HarbingerQueues#lanes}) goes to {@code jobs.lane-0}, {@code jobs.lane-1}, ... or {@code jobs}.
 * Every other publish, and every publish in shadow mode, goes where it is addressed.
 *
 * <p>The lane is the one {@link HarbingerStamping} chose when it stamped the message, among the
 * template's before-publish post-processors: the level is decided once. The auto-configuration
 * provides this template when the application defines no {@code RabbitOperations} bean, configured
 * by Spring Boot's {@code spring.rabbitmq.template.*} properties and {@code
 * RabbitTemplateCustomizer} beans. An application that defines its own template makes it a {@code
 * HarbingerRabbitTemplate} (or a subclass) on Harbinger's connection factory to publish into lanes;
 * a plain {@code RabbitTemplate} is still stamped, and sends a message addressed to a lanes queue
 * to its lowest lane.
 *
 * <p>Publisher confirms, returns, transactions and observations behave as for a publish to the lane
 * itself: a returned message names the lane as its routing key.
 *
 * <p>Thread-safe, as {@link RabbitTemplate}.
 */
public class HarbingerRabbitTemplate extends RabbitTemplate {

  /** Creates a template; set its connection factory before use. */
  public HarbingerRabbitTemplate() {}

  /**
   * Creates a template on a connection factory.
   *
   * @param connectionFactory the connection factory
   */
  public HarbingerRabbitTemplate(ConnectionFactory connectionFactory) {
    super(connectionFactory);
  }

  /**
   * Sends a message, to the lane {@link HarbingerStamping} chose for it when it addresses a lanes
   * queue.
   *
   * @param channel the channel
   * @param exchange the exchange
   * @param routingKey the routing key, replaced by the lane for a lanes queue
   * @param mandatory whether RabbitMQ returns the message when it reaches no queue
   * @param message the message
   */
  @Override
  protected void sendToRabbit(
      Channel channel, String exchange, String routingKey, boolean mandatory, Message message) {
    String lane = LaneChoices.take(message);
    super.sendToRabbit(channel, exchange, lane == null ? routingKey : lane, mandatory, message);
  }
}
