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
 * <p>Implementation notes (reference section 2.6): a pass visits the levels from the lowest (L-1)
 * up to level 1. At each level it moves jobs whose wait since their last placement has reached the
 * threshold to the tail of the level above and restarts their wait, so a job climbs at most one
 * level per pass. Placement times never decrease along a level, so the scan stops at the first job
 * that is not due; expired jobs are skipped, never promoted. Pausing skips a level while the level
 * above is behind (it holds promoted jobs, is non-empty, and its head arrived at least the
 * threshold ago: waiting counted from arrival, not from the last promotion), and moves at most one
 * job per level per pass.
 *
 * <p>Immutable and thread-safe; a pass changes only the levels it is given.
 */
public final class Aging {

  /** No aging: strict priority can starve the lower levels. */
  public static final Aging NONE = new Aging(AgingMode.NONE, 0);

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
   * Returns pausing aging (seed paper section 3.7, reference section 2.6): at most one job per
   * level per pass, and none into a level that is behind (it holds promoted jobs and its head has
   * been waiting at least the threshold since arrival).
   *
   * @param threshold the wait that triggers a promotion; positive
   * @return the policy
   */
  public static Aging pausing(Duration threshold) {
    return new Aging(AgingMode.PAUSING, thresholdNanos(threshold));
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
    int moved = 0;
    for (int level = levels.levels() - 1; level >= 1; level--) {
      if (levels.isEmpty(level) || (pausing && isBehind(levels, level - 1, nowNanos))) {
        continue;
      }
      J job = levels.head(level);
      while (job != null && nowNanos - levels.placedNanos(job) >= thresholdNanos) {
        J next = levels.next(job);
        if (!levels.isExpired(job, nowNanos)) {
          levels.promote(job, nowNanos);
          moved++;
          if (pausing) {
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
