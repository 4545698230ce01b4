package io.harbinger.rabbit;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Warns, once per queue, when a wrapped consumer's prefetch keeps messages from being reordered.
 *
 * <p>Implementation notes. RabbitMQ prioritises only messages still in the queue; a delivery
 * already pushed to a consumer is out of reach, so the quality of shortest-job-first is bounded by
 * prefetch times consumers (RabbitMQ's documentation on priority queues, "How Priority Queues Work
 * with Consumers"). A prefetch above {@value #MAX_GOOD_PREFETCH}, an unlimited one (0) or automatic
 * acknowledgement on a priority queue is logged once at WARN. Whether a queue has priorities is
 * known only when it was declared through a wrapped channel or {@code PriorityQueues} in this
 * process; a queue of unknown kind is treated as a priority queue, because a wrapped consumer
 * exists to consume one; a queue known to have none is skipped.
 *
 * <p>Thread-safe; both sets are bounded so that a process declaring many queues cannot grow them.
 */
final class PrefetchGuard {

  /** The instance shared by every wrapped channel of the process. */
  static final PrefetchGuard SHARED = new PrefetchGuard();

  static final int MAX_GOOD_PREFETCH = PriorityQueues.MAX_REORDERING_PREFETCH;
  private static final int MAX_TRACKED = 10_000;
  private static final Logger LOG = LoggerFactory.getLogger(PrefetchGuard.class);

  private final Map<String, Boolean> priorityQueues = new ConcurrentHashMap<>();
  private final Set<String> warned = ConcurrentHashMap.newKeySet();

  PrefetchGuard() {}

  /**
   * Records whether a queue was declared with priorities.
   *
   * @param queue the queue name
   * @param hasPriorities whether its declaration carried {@code x-max-priority}
   */
  void declared(String queue, boolean hasPriorities) {
    if (queue != null && !queue.isEmpty() && priorityQueues.size() < MAX_TRACKED) {
      priorityQueues.put(queue, hasPriorities);
    }
  }

  /**
   * Checks a new consumer and logs the warning if it is the first bad one on its queue.
   *
   * @param queue the queue consumed from
   * @param prefetch the consumer's effective prefetch, 0 for unlimited
   * @param autoAck whether it acknowledges automatically
   * @return true when this call logged the warning
   */
  boolean check(String queue, int prefetch, boolean autoAck) {
    boolean bad = autoAck || prefetch == 0 || prefetch > MAX_GOOD_PREFETCH;
    if (!bad || Boolean.FALSE.equals(priorityQueues.get(queue))) {
      return false;
    }
    if (warned.size() >= MAX_TRACKED || !warned.add(queue)) {
      return false;
    }
    String what =
        autoAck
            ? "automatic acknowledgement"
            : prefetch == 0 ? "unlimited prefetch" : "prefetch " + prefetch;
    LOG.warn(
        "A Harbinger consumer on queue '{}' uses {}: RabbitMQ prioritises only messages still in"
            + " the queue, so deliveries already pushed to consumers cannot be overtaken by"
            + " shorter work. Use manual acknowledgements and basicQos(1) or basicQos(2) on"
            + " priority queues.",
        queue,
        what);
    return true;
  }
}
