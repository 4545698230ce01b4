package io.harbinger.spring;

import io.harbinger.rabbit.LaneLayout;
import io.harbinger.rabbit.Lanes;
import io.harbinger.rabbit.PriorityQueues;
import io.harbinger.rabbit.QueueType;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.amqp.core.Declarable;
import org.springframework.amqp.core.Declarables;
import org.springframework.amqp.core.Queue;
import org.springframework.amqp.rabbit.connection.Connection;
import org.springframework.amqp.rabbit.connection.ConnectionFactory;

/**
 * Makes the {@link Queue} beans of Harbinger's queues, with the arguments each queue type needs for
 * {@code harbinger.levels} levels, by {@link PriorityQueues}' rules: a classic queue gets {@code
 * x-max-priority = levels - 1}; a quorum queue gets no {@code x-max-priority} and has priorities on
 * RabbitMQ 4 only, so on 3.x it is refused with the alternatives.
 *
 * <p>Example:
 *
 * <pre>{@code
 * @Bean
 * Queue jobs(HarbingerQueues queues) {
 *   return queues.queue("jobs");                                       // classic
 * }
 *
 * @Bean
 * Queue orders(HarbingerQueues queues) {
 *   return queues.queue("orders", Map.of("x-queue-type", "quorum"));   // RabbitMQ 4
 * }
 * }</pre>
 *
 * <p>{@link #lanes} makes the lanes of a logical queue instead, one queue per level, which reorder
 * on any queue type and RabbitMQ version (see {@link Lanes}):
 *
 * <pre>{@code
 * @Bean
 * Declarables jobs(HarbingerQueues queues) {
 *   return queues.lanes("jobs", Map.of("x-queue-type", "quorum"));   // jobs.lane-0, ..., jobs
 * }
 * }</pre>
 *
 * <p>Queues are durable, as {@code PriorityQueues.declare} makes them; Spring's {@code RabbitAdmin}
 * declares them. Thread-safe.
 */
public final class HarbingerQueues {

  private static final Logger LOG = LoggerFactory.getLogger(HarbingerQueues.class);

  private final ConnectionFactory connectionFactory;
  private final int levels;
  private final Set<String> names = ConcurrentHashMap.newKeySet();

  HarbingerQueues(ConnectionFactory connectionFactory, int levels) {
    this.connectionFactory = connectionFactory;
    this.levels = levels;
  }

  /**
   * Returns a durable classic priority queue for Harbinger's levels.
   *
   * @param name the queue's name, non-empty
   * @return the queue bean
   */
  public Queue queue(String name) {
    return queue(name, Map.of());
  }

  /**
   * Returns a durable queue for Harbinger's levels, of the type the arguments name.
   *
   * @param name the queue's name, non-empty
   * @param arguments further arguments (TTL, dead-lettering, {@code x-queue-type=quorum}, ...),
   *     without {@code x-max-priority}, which follows from the levels
   * @return the queue bean
   * @throws IllegalArgumentException when the arguments break a rule or the queue cannot have
   *     priorities on this broker (a quorum queue on RabbitMQ 3.x); the message names the fix
   */
  public Queue queue(String name, Map<String, Object> arguments) {
    String version = QueueType.of(arguments) == QueueType.QUORUM ? brokerVersion(name) : null;
    Map<String, Object> args = PriorityQueues.arguments(name, levels, arguments, version);
    names.add(name);
    return new Queue(name, true, false, false, args);
  }

  /**
   * Returns the durable classic lanes of a logical queue, one per level of {@code
   * harbinger.levels}.
   *
   * @param name the logical queue's name, non-empty; its lowest lane has this name
   * @return the lanes, for Spring's {@code RabbitAdmin} to declare
   * @throws IllegalArgumentException as {@link #lanes(String, Map)}
   */
  public Declarables lanes(String name) {
    return lanes(name, Map.of());
  }

  /**
   * Returns the durable lanes of a logical queue, one per level of {@code harbinger.levels}, named
   * and argued as {@link Lanes#declare} declares them, and makes them known to this process: a
   * {@link HarbingerRabbitTemplate} publishing to {@code name} on the default exchange sends each
   * message to the lane of its level, and a simple listener container consuming {@code name}
   * consumes every lane, Harbinger choosing the next delivery.
   *
   * @param name the logical queue's name, non-empty; its lowest lane has this name
   * @param arguments the arguments of every lane (TTL, dead-lettering, {@code x-queue-type=quorum},
   *     ...), without {@code x-max-priority}
   * @return the lanes, level 0 first, for Spring's {@code RabbitAdmin} to declare
   * @throws IllegalArgumentException when the arguments have {@code x-max-priority} (lanes replace
   *     priorities) or name a stream, or the name is empty; the message names the fix
   */
  public Declarables lanes(String name, Map<String, Object> arguments) {
    LaneLayout layout = Lanes.layout(name, levels, arguments);
    List<Declarable> lanes = new ArrayList<>(layout.levels());
    for (String lane : layout.laneNames()) {
      lanes.add(new Queue(lane, true, false, false, new HashMap<>(layout.arguments())));
    }
    Lanes.declared(layout);
    return new Declarables(lanes);
  }

  /**
   * Returns whether a queue was made here.
   *
   * @param name a queue name
   * @return true for Harbinger's queues
   */
  boolean isHarbingerQueue(String name) {
    return names.contains(name);
  }

  private String brokerVersion(String queue) {
    try {
      Connection c = connectionFactory.createConnection();
      Object v = c.getDelegate().getServerProperties().get("version");
      return v == null ? null : v.toString();
    } catch (RuntimeException e) {
      LOG.warn(
          "Harbinger cannot reach RabbitMQ to check that quorum queue '{}' can have priorities"
              + " ({}); it is declared as asked, and has priorities only on RabbitMQ 4",
          queue,
          e.toString());
      return null;
    }
  }
}
