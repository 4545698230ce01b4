package io.harbinger.scheduler;

import java.time.Duration;
import java.util.Objects;

/**
 * Promotes jobs that have waited too long, one level per pass (seed paper sections 3.6 and 3.7): no
 * aging, plain aging or pausing aging.
 *
 * <p>The caller runs {@link #pass} once per interval (0.5 s by default): the broker from a timer,
 * the simulator as an event, a lane consumer from its own timer over the heads of its lanes.
 *
 * <p>Implementation notes (seed paper sections 3.6 and 3.7, with the original implementation's
 * details): a pass visits the levels from the lowest (L-1) up to level 1. At each level it moves
 * jobs whose wait since their last placement has reached the threshold to the tail of the level
 * above and restarts their wait, so a job climbs at most one level per pass. Placement times never
 * decrease along a level, so the scan stops at the first job that is not due; expired jobs are
 * skipped, never promoted. Pausing skips a level while the level above is behind (it holds promoted
 * jobs, is non-empty, and its head arrived at least the threshold ago: waiting counted from
 * arrival, not from the last promotion), and moves at most one job per level per pass.
 *
 * <p>Following aging departs from seed paper section 3.7, whose fixed 5 s threshold promotes nearly
 * every job during a backlog of hours and so collapses the order to FIFO (section 5.2, which lists
 * scaling the threshold to the workload as untested). Its threshold at level l is the larger of the
 * configured one and {@value #FOLLOWING_MULTIPLE} times the wait of the oldest job at level l-1
 * (since its placement there): a job is promoted only once it has waited twice as long as the
 * best-served work above it is waiting now, so a lower level keeps its place while the whole queue
 * is behind, and still cannot fall behind the level above by more than that factor. As with
 * pausing, at most one job per level moves per pass.
 *
 * <p>Immutable and thread-safe; a pass changes only the levels it is given.
 */
public final class Aging {

  /** No aging: strict priority can starve the lower levels. */
  public static final Aging NONE = new Aging(AgingMode.NONE, 0);

  /** Following aging's threshold, as a multiple of the wait at the level above. */
  static final double FOLLOWING_MULTIPLE = 2;

  private final AgingMode mode;
  private final long thresholdNanos;

  private Aging(AgingMode mode, long thresholdNanos) {
    this.mode = mode;
    this.thresholdNanos = thresholdNanos;
  }

  /**
   * Returns plain aging: every job that has waited at least the threshold since its last placement
   * moves to the tail of the level above, so a whole overdue level moves in one pass.
   *
   * @param threshold the wait that triggers a promotion; positive
   * @return the policy
   */
  public static Aging plain(Duration threshold) {
    return new Aging(AgingMode.PLAIN, thresholdNanos(threshold));
  }

  /**
   * Returns pausing aging (seed paper section 3.7, as the original implementation applies it): at
   * most one job per level per pass, and none into a level that is behind (it holds promoted jobs
   * and its head has been waiting at least the threshold since arrival).
   *
   * @param threshold the wait that triggers a promotion; positive
   * @return the policy
   */
  public static Aging pausing(Duration threshold) {
    return new Aging(AgingMode.PAUSING, thresholdNanos(threshold));
  }

  /**
   * Returns following aging: at most one job per level per pass, once it has waited at least the
   * threshold and {@value #FOLLOWING_MULTIPLE} times as long as the oldest job of the level above.
   *
   * @param threshold the least wait that triggers a promotion; positive
   * @return the policy
   */
  public static Aging following(Duration threshold) {
    return new Aging(AgingMode.FOLLOWING, thresholdNanos(threshold));
  }

  private static long thresholdNanos(Duration threshold) {
    if (threshold == null || threshold.isNegative() || threshold.isZero()) {
      throw new IllegalArgumentException("aging threshold must be positive: " + threshold);
    }
    return threshold.toNanos();
  }

  /** Returns which of the three this is. */
  public AgingMode mode() {
    return mode;
  }

  /**
   * Runs one aging pass.
   *
   * @param levels the levels
   * @param nowNanos the current ticker reading
   * @param <J> the caller's job type
   * @return how many jobs were promoted
   */
  public <J> int pass(AgingLevels<J> levels, long nowNanos) {
    Objects.requireNonNull(levels, "levels");
    if (mode == AgingMode.NONE) {
      return 0;
    }
    boolean pausing = mode == AgingMode.PAUSING;
    boolean following = mode == AgingMode.FOLLOWING;
    int moved = 0;
    for (int level = levels.levels() - 1; level >= 1; level--) {
      if (levels.isEmpty(level) || (pausing && isBehind(levels, level - 1, nowNanos))) {
        continue;
      }
      long due = thresholdNanos;
      if (following && !levels.isEmpty(level - 1)) {
        double above = nowNanos - levels.placedNanos(levels.head(level - 1));
        due = (long) Math.max(due, Math.min(FOLLOWING_MULTIPLE * above, Long.MAX_VALUE / 2.0));
      }
      J job = levels.head(level);
      while (job != null && nowNanos - levels.placedNanos(job) >= due) {
        J next = levels.next(job);
        if (!levels.isExpired(job, nowNanos)) {
          levels.promote(job, nowNanos);
          moved++;
          if (pausing || following) {
            break;
          }
        }
        job = next;
      }
    }
    return moved;
  }

  private <J> boolean isBehind(AgingLevels<J> levels, int level, long nowNanos) {
    if (levels.promoted(level) == 0 || levels.isEmpty(level)) {
      return false;
    }
    return nowNanos - levels.arrivalNanos(levels.head(level)) >= thresholdNanos;
  }

  @Override
  public String toString() {
    return mode == AgingMode.NONE
        ? "no aging"
        : mode.label() + " aging after " + Duration.ofNanos(thresholdNanos);
  }
}
