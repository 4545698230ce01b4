package io.harbinger.rabbit;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import io.harbinger.predictor.PredictorConfig;
import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Declares the queues Harbinger publishes into with the arguments their type needs, with a clear
 * error when the queue cannot serve or RabbitMQ refuses.
 *
 * <p>A classic queue for {@code L} levels has {@code x-max-priority = L - 1}: level 0, served
 * first, is priority {@code L - 1}; a message published without the wrapper has priority 0, the
 * lowest level. A quorum queue ({@code x-queue-type = quorum} in the arguments) never carries
 * {@code x-max-priority}: on RabbitMQ 4.0 to 4.2 it has two priorities and serves high two to one
 * against normal, on 4.3 and later 32 strict ones, and on 3.x none at all, so there the helper
 * refuses and names the alternatives. The broker's version comes from the channel's connection.
 * Every declared queue is recorded, so that wrapped channels publishing to it stamp the priorities
 * its type and version understand ({@link PriorityScheme}).
 *
 * <p>RabbitMQ answers a queue that already exists with other arguments with {@code 406
 * PRECONDITION_FAILED} and closes the channel, because a queue's arguments never change; {@link
 * #declare} turns that into a {@link PriorityQueueException} that says what happened and how to
 * migrate (RabbitMQ's documentation on priority queues: {@code x-max-priority} cannot be added to
 * or changed on an existing queue).
 */
public final class PriorityQueues {

  /** The queue argument that gives a classic queue its priorities. */
  public static final String MAX_PRIORITY_ARGUMENT = "x-max-priority";

  /**
   * The largest consumer prefetch that leaves RabbitMQ something to reorder: a delivery already
   * pushed to a consumer cannot be overtaken by shorter work (RabbitMQ's documentation on priority
   * queues and consumer prefetch).
   */
  public static final int MAX_REORDERING_PREFETCH = 2;

  private PriorityQueues() {}

  /**
   * Declares a durable classic priority queue for a number of levels.
   *
   * @param channel the channel to declare on; closed by RabbitMQ when the declaration fails
   * @param queue the queue name, non-empty
   * @param levels the number of levels, in [2, 10]
   * @return RabbitMQ's answer
   * @throws PriorityQueueException when RabbitMQ refuses the declaration because the queue exists
   *     with other arguments or as a quorum queue
   * @throws IOException on any other failure
   */
  public static AMQP.Queue.DeclareOk declare(Channel channel, String queue, int levels)
      throws IOException {
    return declare(channel, queue, levels, Map.of());
  }

  /**
   * Declares a durable queue for a number of levels, of the type the arguments name (classic when
   * they name none), with extra arguments (TTL, dead-lettering, delivery limits, ...).
   *
   * @param channel the channel to declare on; closed by RabbitMQ when the declaration fails
   * @param queue the queue name, non-empty
   * @param levels the number of levels, in [2, 10]
   * @param arguments further queue arguments; {@code x-queue-type} may be {@code classic} or {@code
   *     quorum}; {@code x-max-priority} must not be set (it follows from the levels, and a quorum
   *     queue must never carry it)
   * @return RabbitMQ's answer
   * @throws PriorityQueueException when the queue cannot have priorities (a quorum queue on
   *     RabbitMQ 3.x) or RabbitMQ refuses the declaration because the queue exists with other
   *     arguments
   * @throws IllegalArgumentException when an argument breaks the rules above
   * @throws IOException on any other failure
   */
  public static AMQP.Queue.DeclareOk declare(
      Channel channel, String queue, int levels, Map<String, Object> arguments) throws IOException {
    Objects.requireNonNull(channel, "channel");
    QueueType type = check(queue, levels, arguments);
    String version = brokerVersion(channel);
    String refusal = refusal(queue, type, version);
    if (refusal != null) {
      throw new PriorityQueueException(refusal, null);
    }
    try {
      AMQP.Queue.DeclareOk ok =
          channel.queueDeclare(queue, true, false, false, withPriorities(type, levels, arguments));
      record(queue, type);
      return ok;
    } catch (IOException e) {
      throw explain(queue, levels, e);
    }
  }

  /**
   * Returns the arguments a queue for a number of levels is declared with, by the rules of {@link
   * #declare}, and records the queue's type for the wrapped channels and stampers of this process:
   * for frameworks that declare queues themselves (such as Spring AMQP's {@code RabbitAdmin}).
   *
   * @param queue the queue name, non-empty
   * @param levels the number of levels, in [2, 10]
   * @param arguments further queue arguments, as for {@link #declare}
   * @param brokerVersion the version the broker reports (such as {@code 4.0.5}), or null when
   *     unknown: a quorum queue is then accepted, and gets priorities only on RabbitMQ 4
   * @return a new map: the arguments plus {@code x-max-priority = levels - 1} for a classic queue,
   *     unchanged for a quorum queue
   * @throws IllegalArgumentException when an argument breaks the rules of {@link #declare}, or the
   *     queue cannot have priorities (a quorum queue on RabbitMQ 3.x); the message names the fix
   */
  public static Map<String, Object> arguments(
      String queue, int levels, Map<String, Object> arguments, String brokerVersion) {
    QueueType type = check(queue, levels, arguments);
    String refusal = refusal(queue, type, brokerVersion);
    if (refusal != null) {
      throw new IllegalArgumentException(refusal);
    }
    Map<String, Object> args = withPriorities(type, levels, arguments);
    record(queue, type);
    return args;
  }

  /**
   * Records a queue that was declared without this class, by its declaration's arguments, so that
   * publishes to it get the priorities its type understands and consumers of it are checked for
   * prefetch.
   *
   * @param queue the queue's name; ignored when null or empty
   * @param arguments the arguments it was declared with, or null
   */
  public static void declared(String queue, Map<String, Object> arguments) {
    PrefetchGuard.SHARED.declared(
        queue, arguments != null && arguments.get(MAX_PRIORITY_ARGUMENT) != null);
    DeclaredQueues.SHARED.declared(queue, arguments);
  }

  /**
   * Counts one prefetch warning in a wrapped channel's counters ({@link
   * AdapterStats#prefetchWarnings()}), for a framework integration that checks the prefetch of the
   * consumers it creates itself and logs its own warning: the wrapped channels count theirs.
   *
   * @param stats the counters the integration's stampers and timers share ({@link
   *     ChannelOptions#stats()})
   */
  public static void countPrefetchWarning(AdapterStats stats) {
    Objects.requireNonNull(stats, "stats").increment(Counter.PREFETCH_WARNING);
  }

  private static void record(String queue, QueueType type) {
    PrefetchGuard.SHARED.declared(queue, true);
    DeclaredQueues.SHARED.declared(queue, type);
  }

  /** Checks the arguments of a declaration and returns the type they ask for. */
  private static QueueType check(String queue, int levels, Map<String, Object> arguments) {
    Objects.requireNonNull(arguments, "arguments");
    if (queue == null || queue.isEmpty()) {
      throw new IllegalArgumentException("queue must be a non-empty name: '" + queue + "'");
    }
    PredictorConfig.checkLevels(levels);
    QueueType type = QueueType.of(arguments);
    if (type == QueueType.STREAM) {
      throw new IllegalArgumentException(
          "x-queue-type is 'stream', and streams have no message priorities: declare a classic or"
              + " a quorum queue for '"
              + queue
              + "'");
    }
    if (arguments.containsKey(MAX_PRIORITY_ARGUMENT)) {
      throw new IllegalArgumentException(
          type == QueueType.QUORUM
              ? MAX_PRIORITY_ARGUMENT
                  + " is for classic queues, and RabbitMQ refuses it on a quorum queue: remove it"
                  + " (a quorum queue's priorities need no argument on RabbitMQ 4)"
              : MAX_PRIORITY_ARGUMENT + " is set from levels; remove it from the arguments");
    }
    return type;
  }

  /** Returns why a queue of a type cannot have priorities on a broker version, or null. */
  private static String refusal(String queue, QueueType type, String version) {
    if (type == QueueType.QUORUM && PriorityScheme.of(type, version) == PriorityScheme.NONE) {
      return "queue '"
          + queue
          + "' cannot be a quorum queue with priorities: quorum queues have no message"
          + " priorities on RabbitMQ "
          + version
          + " (only from 4.0). Fix: "
          + quorumFix(queue);
    }
    return null;
  }

  private static Map<String, Object> withPriorities(
      QueueType type, int levels, Map<String, Object> arguments) {
    Map<String, Object> args = new HashMap<>(arguments);
    if (type == QueueType.CLASSIC) {
      args.put(MAX_PRIORITY_ARGUMENT, levels - 1);
    }
    return args;
  }

  private static String brokerVersion(Channel channel) {
    Connection connection = channel.getConnection();
    Map<String, Object> server = connection == null ? null : connection.getServerProperties();
    Object version = server == null ? null : server.get("version");
    return version == null ? null : version.toString();
  }

  static IOException explain(String queue, int levels, IOException e) {
    String reason = BrokerReplies.reasonOf(e);
    if (reason == null || !reason.contains("PRECONDITION_FAILED")) {
      return e;
    }
    if (reason.contains("quorum") || reason.contains("invalid arg 'x-max-priority'")) {
      return new PriorityQueueException(
          "queue '"
              + queue
              + "' is a quorum queue, and a quorum queue never takes x-max-priority ("
              + reason
              + "). Fix: on RabbitMQ 4, declare it with x-queue-type=quorum in the arguments of"
              + " PriorityQueues.declare, which sends no x-max-priority; otherwise "
              + quorumFix(queue),
          e);
    }
    if (reason.contains("inequivalent arg")) {
      return new PriorityQueueException(
          "queue '"
              + queue
              + "' already exists with other arguments than this declaration's ("
              + reason
              + "), and RabbitMQ never changes a queue's arguments. Fix: declare a new queue"
              + " (for example '"
              + queue
              + ".prio') with PriorityQueues.declare, move producers to it, drain the old queue,"
              + " then delete it; or delete and re-create the queue if it may lose its messages.",
          e);
    }
    return e;
  }

  private static String quorumFix(String queue) {
    return "declare a classic priority queue (no x-queue-type, or 'classic') under a new name such"
        + " as '"
        + queue
        + ".prio' with PriorityQueues.declare and move producers and consumers to it; or, to keep"
        + " quorum queues, use one quorum queue per level (Lanes.declare), or RabbitMQ 4.0 or later.";
  }

  /** Thrown when a queue cannot serve as a priority queue; the message says how to fix it. */
  public static final class PriorityQueueException extends IOException {
    private static final long serialVersionUID = 1L;

    PriorityQueueException(String message, Throwable cause) {
      super(message, cause);
    }
  }
}
