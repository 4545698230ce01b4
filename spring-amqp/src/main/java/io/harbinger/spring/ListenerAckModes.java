package io.harbinger.spring;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.amqp.core.AcknowledgeMode;
import org.springframework.amqp.rabbit.listener.AbstractMessageListenerContainer;

/**
 * Finds the acknowledge mode of the listener container that consumes a queue, for advice that is
 * shared by every container of a factory and so cannot be told its container's mode.
 *
 * <p>Implementation notes. Spring AMQP's advice sees the channel and the message, not the
 * container; every delivered message names the queue it was consumed from, and containers expose
 * their queues and mode. The map is built from the containers known when a queue is first asked for
 * and rebuilt once for each queue it does not know (containers may be added at run time). Two
 * containers with different modes on one queue are ambiguous: the queue gets {@link
 * AcknowledgeMode#AUTO} and one WARN.
 *
 * <p>Thread-safe: a concurrent map; rebuilding is idempotent.
 */
final class ListenerAckModes {

  private static final Logger LOG = LoggerFactory.getLogger(ListenerAckModes.class);
  private static final int MAX_QUEUES = 10_000;

  private final Supplier<List<AbstractMessageListenerContainer>> containers;
  private final Map<String, AcknowledgeMode> modes = new ConcurrentHashMap<>();

  ListenerAckModes(Supplier<List<AbstractMessageListenerContainer>> containers) {
    this.containers = containers;
  }

  /**
   * Returns the mode of the container consuming a queue.
   *
   * @param queue the queue a message was consumed from, or null
   * @return the mode; {@link AcknowledgeMode#AUTO}, Spring's default, when unknown
   */
  AcknowledgeMode modeOf(String queue) {
    if (queue == null) {
      return AcknowledgeMode.AUTO;
    }
    AcknowledgeMode mode = modes.get(queue);
    if (mode != null) {
      return mode;
    }
    Map<String, AcknowledgeMode> found = scan();
    mode = found.getOrDefault(queue, AcknowledgeMode.AUTO);
    if (modes.size() < MAX_QUEUES) {
      modes.putAll(found);
      modes.putIfAbsent(queue, mode);
    }
    return mode;
  }

  private Map<String, AcknowledgeMode> scan() {
    Map<String, AcknowledgeMode> found = new ConcurrentHashMap<>();
    List<String> ambiguous = new ArrayList<>();
    for (AbstractMessageListenerContainer c : containers.get()) {
      for (String q : c.getQueueNames()) {
        AcknowledgeMode previous = found.putIfAbsent(q, c.getAcknowledgeMode());
        if (previous != null && previous != c.getAcknowledgeMode()) {
          ambiguous.add(q);
        }
      }
    }
    for (String q : ambiguous) {
      if (found.put(q, AcknowledgeMode.AUTO) != AcknowledgeMode.AUTO || !modes.containsKey(q)) {
        LOG.warn(
            "Harbinger: listener containers with different acknowledge modes consume queue '{}';"
                + " its deliveries are timed as AUTO (settled when the listener returns)",
            q);
      }
    }
    return found;
  }
}
