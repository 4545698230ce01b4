package io.harbinger.rabbit;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.ShutdownSignalException;
import io.harbinger.predictor.PredictorConfig;
import io.harbinger.rabbit.internal.PrefetchGuard;
import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Declares the classic priority queues Harbinger publishes into, with a clear error when RabbitMQ
 * refuses.
 *
 * <p>A queue for {@code L} levels has {@code x-max-priority = L - 1}: level 0, served first, is
 * priority {@code L - 1}; a message published without the wrapper has priority 0, the lowest level.
 * RabbitMQ answers two common mistakes with the same {@code 406 PRECONDITION_FAILED} and closes the
 * channel: a quorum queue (which has no priorities on 3.x) and a queue that already exists without
 * priorities (a queue's arguments never change). {@link #declare} turns both into a {@link
 * PriorityQueueException} that says what happened and how to fix it (rabbitmq-facts section 1.1,
 * "Immutability and migration", and section 1.2).
 */
public final class PriorityQueues {

  /** The queue argument that gives a classic queue its priorities. */
  public static final String MAX_PRIORITY_ARGUMENT = "x-max-priority";

  private PriorityQueues() {}

  /**
   * Declares a durable classic priority queue for a number of levels.
   *
   * @param channel the channel to declare on; closed by RabbitMQ when the declaration fails
   * @param queue the queue name, non-empty
   * @param levels the number of levels, in [2, 10]
   * @return RabbitMQ's answer
   * @throws PriorityQueueException when RabbitMQ refuses the declaration as a quorum queue or as an
   *     existing queue declared without priorities
   * @throws IOException on any other failure
   */
  public static AMQP.Queue.DeclareOk declare(Channel channel, String queue, int levels)
      throws IOException {
    return declare(channel, queue, levels, Map.of());
  }

  /**
   * Declares a durable classic priority queue with extra arguments (TTL, dead-lettering, ...).
   *
   * @param channel the channel to declare on; closed by RabbitMQ when the declaration fails
   * @param queue the queue name, non-empty
   * @param levels the number of levels, in [2, 10]
   * @param arguments further queue arguments; must not name a quorum or stream queue type nor set
   *     {@code x-max-priority}
   * @return RabbitMQ's answer
   * @throws PriorityQueueException when RabbitMQ refuses the declaration as a quorum queue or as an
   *     existing queue declared without priorities
   * @throws IOException on any other failure
   */
  public static AMQP.Queue.DeclareOk declare(
      Channel channel, String queue, int levels, Map<String, Object> arguments) throws IOException {
    Objects.requireNonNull(channel, "channel");
    Objects.requireNonNull(arguments, "arguments");
    if (queue == null || queue.isEmpty()) {
      throw new IllegalArgumentException("queue must be a non-empty name: '" + queue + "'");
    }
    PredictorConfig.checkLevels(levels);
    Object type = arguments.get("x-queue-type");
    if (type != null && !"classic".equals(type.toString())) {
      throw new IllegalArgumentException(
          "priority queues must be classic queues, but x-queue-type is '"
              + type
              + "': "
              + quorumFix(queue));
    }
    if (arguments.containsKey(MAX_PRIORITY_ARGUMENT)) {
      throw new IllegalArgumentException(
          MAX_PRIORITY_ARGUMENT + " is set from levels; remove it from the arguments");
    }
    Map<String, Object> args = new HashMap<>(arguments);
    args.put(MAX_PRIORITY_ARGUMENT, levels - 1);
    try {
      AMQP.Queue.DeclareOk ok = channel.queueDeclare(queue, true, false, false, args);
      PrefetchGuard.SHARED.declared(queue, true);
      return ok;
    } catch (IOException e) {
      throw explain(queue, levels, e);
    }
  }

  static IOException explain(String queue, int levels, IOException e) {
    String reason = reasonOf(e);
    if (reason == null || !reason.contains("PRECONDITION_FAILED")) {
      return e;
    }
    if (reason.contains("quorum") || reason.contains("invalid arg 'x-max-priority'")) {
      return new PriorityQueueException(
          "queue '"
              + queue
              + "' is a quorum queue, which has no message priorities on RabbitMQ 3.x ("
              + reason
              + "). Fix: "
              + quorumFix(queue),
          e);
    }
    if (reason.contains("inequivalent arg 'x-max-priority'")) {
      return new PriorityQueueException(
          "queue '"
              + queue
              + "' already exists with other priorities than x-max-priority="
              + (levels - 1)
              + " ("
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
    return "declare a classic queue (no x-queue-type, or 'classic') under a new name such as '"
        + queue
        + ".prio' with PriorityQueues.declare and move producers and consumers to it.";
  }

  private static String reasonOf(IOException e) {
    Throwable t = e;
    while (t != null) {
      if (t instanceof ShutdownSignalException s) {
        Object reason = s.getReason();
        return reason instanceof AMQP.Channel.Close close
            ? close.getReplyCode() + " " + close.getReplyText()
            : s.getMessage();
      }
      t = t.getCause();
    }
    return e.getMessage();
  }

  /** Thrown when a queue cannot serve as a priority queue; the message says how to fix it. */
  public static final class PriorityQueueException extends IOException {
    private static final long serialVersionUID = 1L;

    PriorityQueueException(String message, Throwable cause) {
      super(message, cause);
    }
  }
}
