package io.harbinger.spring;

import org.springframework.amqp.core.Message;

/**
 * Hands the lane {@link HarbingerStamping} chose for a message to the {@link
 * HarbingerRabbitTemplate} sending it, on the publishing thread.
 *
 * <p>Implementation notes. {@code RabbitTemplate.doSend} runs the before-publish post-processors
 * and then {@code sendToRabbit} on one thread, for one message; a post-processor can change the
 * message but not the routing key. The choice is kept for that message only: the template takes it
 * once, and a choice left by a send that failed before reaching RabbitMQ, or by a template that
 * does not route, is replaced by the next stamp on the thread and never applied to another message.
 *
 * <p>Thread-safe: the state is per thread.
 */
final class LaneChoices {

  private static final ThreadLocal<Choice> CHOICE = new ThreadLocal<>();

  private LaneChoices() {}

  /** One message and its lane. */
  private record Choice(Message message, String lane) {}

  /**
   * Records the lane of a message about to be sent on this thread, or that it has none.
   *
   * @param message the message
   * @param lane its lane, or null when it addresses no lanes queue
   */
  static void chose(Message message, String lane) {
    if (lane == null) {
      CHOICE.remove();
    } else {
      CHOICE.set(new Choice(message, lane));
    }
  }

  /**
   * Returns and forgets the lane chosen for a message on this thread.
   *
   * @param message the message being sent
   * @return its lane, or null when none was chosen for this message
   */
  static String take(Message message) {
    Choice c = CHOICE.get();
    if (c == null) {
      return null;
    }
    CHOICE.remove();
    return c.message() == message ? c.lane() : null;
  }
}
