package io.harbinger.rabbit;

import io.harbinger.predictor.PredictorConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The lanes of a logical queue: one RabbitMQ queue per level, all of one type, so that a consumer
 * can choose which level it serves next on any queue type and version.
 *
 * <p>Naming, for a logical queue {@code jobs} with 3 levels: the lowest level (2, served last) is
 * the queue {@code jobs} itself, so that a message published to {@code jobs} without the wrapper
 * lands at the lowest level, where a priority-0 message lands on a classic priority queue; level 0
 * is {@code jobs.lane-0} and level 1 {@code jobs.lane-1}. With L levels the lanes are {@code
 * Q.lane-0} to {@code Q.lane-(L-2)} and {@code Q}.
 *
 * @param queue the logical queue's name, also the name of its lowest lane; non-empty
 * @param levels the number of levels and lanes, in [2, 10]
 * @param arguments the arguments every lane is declared with ({@code x-queue-type}, dead-lettering,
 *     TTL, length limits, delivery limits, ...); copied
 */
public record LaneLayout(String queue, int levels, Map<String, Object> arguments) {

  /** What follows the logical queue's name in the name of a lane above the lowest. */
  public static final String LANE_SUFFIX = ".lane-";

  /** Checks the values; see the class description for the rules. */
  public LaneLayout {
    if (queue == null || queue.isEmpty()) {
      throw new IllegalArgumentException("queue must be a non-empty name: '" + queue + "'");
    }
    PredictorConfig.checkLevels(levels);
    arguments = Map.copyOf(Objects.requireNonNull(arguments, "arguments"));
  }

  /**
   * Returns the queue type the lanes are declared as.
   *
   * @return the type named by {@code x-queue-type}, classic when none
   */
  public QueueType type() {
    return QueueType.of(arguments);
  }

  /**
   * Returns the name of a level's lane.
   *
   * @param level in [0, levels)
   * @return {@code queue} for the lowest level, {@code queue.lane-<level>} for the others
   */
  public String laneName(int level) {
    if (level < 0 || level >= levels) {
      throw new IllegalArgumentException(
          "level must be in [0, " + levels + ") for the lanes of '" + queue + "': " + level);
    }
    return level == levels - 1 ? queue : queue + LANE_SUFFIX + level;
  }

  /**
   * Returns the lane a message stamped at a level goes to: that level's lane, and the lowest lane
   * ({@code queue}) when the level is outside [0, levels) or the message was stamped in shadow
   * mode, so that delivery order stays as without Harbinger.
   *
   * @param level the stamped level
   * @param shadow whether the message was stamped in shadow mode
   * @return the lane's name
   */
  public String laneFor(int level, boolean shadow) {
    return laneName(shadow || level < 0 || level >= levels ? levels - 1 : level);
  }

  /**
   * Returns every lane's name, level 0 first.
   *
   * @return the names, the last being {@code queue}
   */
  public List<String> laneNames() {
    List<String> names = new ArrayList<>(levels);
    for (int level = 0; level < levels; level++) {
      names.add(laneName(level));
    }
    return List.copyOf(names);
  }

  /**
   * Returns the level of a lane.
   *
   * @param laneName a queue name
   * @return its level, or -1 when it is not one of these lanes
   */
  public int levelOf(String laneName) {
    for (int level = 0; level < levels; level++) {
      if (laneName(level).equals(laneName)) {
        return level;
      }
    }
    return -1;
  }
}
