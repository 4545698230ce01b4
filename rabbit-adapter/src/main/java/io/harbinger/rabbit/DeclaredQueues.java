package io.harbinger.rabbit;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The types of the queues this process has declared, through a wrapped channel or {@code
 * PriorityQueues}, so that a publish to a queue gets the priorities its type understands.
 *
 * <p>Implementation notes. Queues are known by name only: the AMQP client does not tell a channel
 * which virtual host its connection is on, so two queues of one name on two brokers share an entry,
 * the last declaration winning. A queue never declared in this process is unknown, and the wrapper
 * then keeps the classic mapping ({@link PriorityScheme#CLASSIC}). The map is bounded: past {@value
 * #MAX_TRACKED} queues, new declarations are not recorded and those queues stay unknown.
 *
 * <p>Thread-safe: one concurrent map, read without locking on every publish to the default
 * exchange.
 */
final class DeclaredQueues {

  /** The registry shared by every wrapped channel of the process. */
  static final DeclaredQueues SHARED = new DeclaredQueues();

  static final int MAX_TRACKED = 10_000;

  private final Map<String, QueueType> types = new ConcurrentHashMap<>();

  DeclaredQueues() {}

  /**
   * Records a queue's type.
   *
   * @param queue the queue's name; ignored when null or empty
   * @param type its type; ignored when null
   */
  void declared(String queue, QueueType type) {
    if (queue == null || queue.isEmpty() || type == null) {
      return;
    }
    if (types.size() < MAX_TRACKED || types.containsKey(queue)) {
      types.put(queue, type);
    }
  }

  /**
   * Records the type a declaration asks for, as a wrapped channel observes it; a declaration that
   * names an unknown type is not recorded (RabbitMQ refuses it anyway).
   *
   * @param queue the queue's name; ignored when null or empty
   * @param arguments the declaration's arguments, or null
   */
  void declared(String queue, Map<String, Object> arguments) {
    QueueType type;
    try {
      type = QueueType.of(arguments);
    } catch (IllegalArgumentException e) {
      return;
    }
    declared(queue, type);
  }

  /**
   * Returns a queue's recorded type.
   *
   * @param queue the queue's name
   * @return its type, or null when it was never declared in this process
   */
  QueueType type(String queue) {
    return queue == null ? null : types.get(queue);
  }
}
