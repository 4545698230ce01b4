package io.harbinger.spring;

import io.harbinger.rabbit.PriorityQueues;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.amqp.core.AcknowledgeMode;
import org.springframework.amqp.core.Queue;
import org.springframework.amqp.rabbit.listener.AbstractMessageListenerContainer;
import org.springframework.amqp.rabbit.listener.DirectMessageListenerContainer;
import org.springframework.beans.DirectFieldAccessor;

/**
 * Warns once per listener container that consumes a Harbinger queue with a prefetch above {@value
 * #MAX_REORDERING_PREFETCH}, or with {@code AcknowledgeMode.NONE}, at application start.
 *
 * <p>Implementation notes. RabbitMQ reorders only messages still in the queue; every delivery
 * already pushed to a consumer (prefetch times consumers of them) is out of reach of shorter work
 * (RabbitMQ's documentation on priority queues, "How Priority Queues Work with Consumers"), and
 * Spring's default prefetch is 250. A Harbinger queue is one made by {@link HarbingerQueues}, or a
 * {@link Queue} bean declared with {@code x-max-priority} or as a quorum queue. Spring AMQP keeps a
 * container's prefetch in a non-public field; it is read with Spring's {@link DirectFieldAccessor},
 * and a container whose prefetch cannot be read is not checked.
 *
 * <p>Thread-safe; {@link #recordQueues} runs once all singletons exist, {@link #warn} once the
 * application context is refreshed.
 */
final class PrefetchCheck {

  static final int MAX_REORDERING_PREFETCH = PriorityQueues.MAX_REORDERING_PREFETCH;

  private static final Logger LOG = LoggerFactory.getLogger(PrefetchCheck.class);

  private final Supplier<List<AbstractMessageListenerContainer>> containers;
  private final Supplier<List<Queue>> queueBeans;
  private final HarbingerQueues harbingerQueues;
  private final HarbingerRuntime runtime;
  private final Set<AbstractMessageListenerContainer> warned = ConcurrentHashMap.newKeySet();
  private final Set<String> harbinger = ConcurrentHashMap.newKeySet();

  PrefetchCheck(
      Supplier<List<AbstractMessageListenerContainer>> containers,
      Supplier<List<Queue>> queueBeans,
      HarbingerQueues harbingerQueues,
      HarbingerRuntime runtime) {
    this.containers = containers;
    this.queueBeans = queueBeans;
    this.harbingerQueues = harbingerQueues;
    this.runtime = runtime;
  }

  /**
   * Records the types of the application's {@link Queue} beans, so that stamps for them use the
   * priorities each type understands, and which of them are Harbinger queues.
   */
  void recordQueues() {
    for (Queue q : queueBeans.get()) {
      Map<String, Object> args = q.getArguments();
      PriorityQueues.declared(q.getName(), args);
      if (harbingerQueues.isHarbingerQueue(q.getName())
          || args.get(PriorityQueues.MAX_PRIORITY_ARGUMENT) != null
          || "quorum".equals(String.valueOf(args.get("x-queue-type")))) {
        harbinger.add(q.getName());
      }
    }
  }

  /**
   * Logs one warning for each container consuming a Harbinger queue with too large a prefetch.
   *
   * @return the warnings logged by this call
   */
  List<String> warn() {
    List<String> logged = new ArrayList<>();
    for (AbstractMessageListenerContainer c : containers.get()) {
      List<String> queues =
          List.of(c.getQueueNames()).stream().filter(harbinger::contains).toList();
      if (queues.isEmpty() || warned.contains(c)) {
        continue;
      }
      String problem = problemOf(c);
      if (problem != null && warned.add(c)) {
        String property =
            c instanceof DirectMessageListenerContainer
                ? "spring.rabbitmq.listener.direct.prefetch=1"
                : "spring.rabbitmq.listener.simple.prefetch=1";
        String message =
            "Harbinger: listener container '"
                + name(c)
                + "' consumes "
                + queues
                + " with "
                + problem
                + ": RabbitMQ prioritises only messages still in the queue, so deliveries already"
                + " pushed to consumers cannot be overtaken by shorter work. Set "
                + property
                + " (or 2), with AcknowledgeMode AUTO or MANUAL.";
        LOG.warn(message);
        PriorityQueues.countPrefetchWarning(runtime.stats());
        logged.add(message);
      }
    }
    return logged;
  }

  private static String problemOf(AbstractMessageListenerContainer c) {
    if (c.getAcknowledgeMode() == AcknowledgeMode.NONE) {
      return "AcknowledgeMode.NONE (automatic acknowledgement)";
    }
    Object prefetch;
    try {
      prefetch = new DirectFieldAccessor(c).getPropertyValue("prefetchCount");
    } catch (RuntimeException e) {
      return null;
    }
    if (prefetch instanceof Integer p && p > MAX_REORDERING_PREFETCH) {
      return "prefetch " + p;
    }
    return null;
  }

  private static String name(AbstractMessageListenerContainer c) {
    String id = c.getListenerId();
    return id == null ? c.toString() : id;
  }
}
