package io.harbinger.rabbit;

import com.rabbitmq.client.Channel;
import java.io.IOException;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Declares the lanes of a logical queue, one queue per level ({@link LaneLayout}), with a clear
 * error when RabbitMQ refuses one, and makes them known to the wrapped channels of this process.
 *
 * <p>Example: {@code Lanes.declare(channel, "jobs", 3, Map.of("x-queue-type", "quorum"))} declares
 * the durable quorum queues {@code jobs.lane-0}, {@code jobs.lane-1} and {@code jobs}. A wrapped
 * channel then publishes a message addressed to {@code jobs} (default exchange, routing key {@code
 * jobs}) into the lane of its level, and a wrapped consumer of {@code jobs} consumes all three and
 * chooses the next delivery with its {@link LaneOptions}. A message published without the wrapper
 * goes to {@code jobs}, the lowest level.
 *
 * <p>The user's arguments go to every lane unchanged (dead-lettering, TTL, length limits, delivery
 * limits). A dead-lettered message keeps its lane's name as routing key unless {@code
 * x-dead-letter-routing-key} says otherwise. {@code x-max-priority} is refused (lanes replace
 * priorities), and so is a stream (it has no acknowledgements to schedule by).
 *
 * <p>RabbitMQ answers a lane that exists with other arguments with {@code 406 PRECONDITION_FAILED}
 * and closes the channel; {@link #declare} turns that into a {@link LanesException} naming the lane
 * and the argument.
 */
public final class Lanes {

  private static final Pattern INEQUIVALENT = Pattern.compile("inequivalent arg '([^']+)'");

  private Lanes() {}

  /**
   * Declares the durable lanes of a logical queue and records the layout.
   *
   * @param channel the channel to declare on; closed by RabbitMQ when a declaration fails
   * @param queue the logical queue, non-empty; its lowest lane has this name
   * @param levels the number of levels, in [2, 10]
   * @param arguments the arguments of every lane; {@code x-queue-type} classic (the default) or
   *     quorum
   * @return the layout
   * @throws IllegalArgumentException when an argument breaks the rules above
   * @throws LanesException when RabbitMQ refuses a lane because it exists with other arguments
   * @throws IOException on any other failure
   */
  public static LaneLayout declare(
      Channel channel, String queue, int levels, Map<String, Object> arguments) throws IOException {
    Objects.requireNonNull(channel, "channel");
    LaneLayout layout = layout(queue, levels, arguments);
    for (int level = 0; level < levels; level++) {
      String lane = layout.laneName(level);
      try {
        channel.queueDeclare(lane, true, false, false, layout.arguments());
      } catch (IOException e) {
        throw explain(layout, level, e);
      }
    }
    declared(layout);
    return layout;
  }

  /**
   * Declares the durable classic lanes of a logical queue.
   *
   * @param channel the channel to declare on
   * @param queue the logical queue, non-empty
   * @param levels the number of levels, in [2, 10]
   * @return the layout
   * @throws IOException as {@link #declare(Channel, String, int, Map)}
   */
  public static LaneLayout declare(Channel channel, String queue, int levels) throws IOException {
    return declare(channel, queue, levels, Map.of());
  }

  /**
   * Checks a layout's rules without declaring anything, for a framework that declares the lanes
   * itself (then {@link #declared} makes them known).
   *
   * @param queue the logical queue, non-empty
   * @param levels the number of levels, in [2, 10]
   * @param arguments the arguments of every lane
   * @return the layout
   * @throws IllegalArgumentException when a value breaks the rules of {@link #declare}
   */
  public static LaneLayout layout(String queue, int levels, Map<String, Object> arguments) {
    Objects.requireNonNull(arguments, "arguments");
    LaneLayout layout = new LaneLayout(queue, levels, arguments);
    QueueType type = layout.type();
    if (type == QueueType.STREAM) {
      throw new IllegalArgumentException(
          "x-queue-type is 'stream' for the lanes of '"
              + queue
              + "': a stream has no acknowledgements to schedule by; declare classic or quorum"
              + " lanes");
    }
    if (arguments.containsKey(PriorityQueues.MAX_PRIORITY_ARGUMENT)) {
      throw new IllegalArgumentException(
          PriorityQueues.MAX_PRIORITY_ARGUMENT
              + " is set for the lanes of '"
              + queue
              + "': lanes replace priorities (one queue per level), so remove it");
    }
    return layout;
  }

  /**
   * Makes lanes declared elsewhere known to the wrapped channels of this process: publishes to the
   * logical queue go to the lanes and consumers of it consume them all.
   *
   * @param layout the layout the lanes were declared with
   */
  public static void declared(LaneLayout layout) {
    Objects.requireNonNull(layout, "layout");
    DeclaredLanes.SHARED.declared(layout);
    for (String lane : layout.laneNames()) {
      DeclaredQueues.SHARED.declared(lane, layout.type());
      PrefetchGuard.SHARED.declared(lane, true);
    }
  }

  /**
   * Returns the layout this process knows for a logical queue.
   *
   * @param queue the logical queue's name
   * @return the layout, or null when none was declared or recorded here
   */
  public static LaneLayout layoutOf(String queue) {
    return DeclaredLanes.SHARED.layout(queue);
  }

  static IOException explain(LaneLayout layout, int level, IOException e) {
    String lane = layout.laneName(level);
    String reason = BrokerReplies.reasonOf(e);
    if (reason == null || !reason.contains("PRECONDITION_FAILED")) {
      return e;
    }
    Matcher m = INEQUIVALENT.matcher(reason);
    String argument = m.find() ? m.group(1) : null;
    String what =
        argument == null
            ? "with other arguments than this declaration's"
            : "with another value of argument '" + argument + "' than this declaration's";
    return new LanesException(
        "lane '"
            + lane
            + "' (level "
            + level
            + " of the "
            + layout.levels()
            + " lanes of '"
            + layout.queue()
            + "') already exists "
            + what
            + " ("
            + reason
            + "), and RabbitMQ never changes a queue's arguments. Fix: declare the lanes with"
            + " the arguments the existing queue has, or lanes under a new logical name, move"
            + " producers to it and drain the old queue.",
        e);
  }

  /** Thrown when RabbitMQ refuses a lane or a lane is missing; the message names it and the fix. */
  public static final class LanesException extends IOException {
    private static final long serialVersionUID = 1L;

    /**
     * Creates the exception.
     *
     * @param message what happened and the fix
     * @param cause RabbitMQ's refusal, or null
     */
    public LanesException(String message, Throwable cause) {
      super(message, cause);
    }
  }
}
