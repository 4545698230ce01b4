package io.harbinger.broker.sched;

import java.time.Duration;

/**
 * Promotes jobs that have waited too long, one level per pass (seed paper section 3.6).
 *
 * <p>The caller runs {@link #pass} once per interval (0.5 s by default): the broker from a timer,
 * the simulator as an event. Implementations: {@link #NONE}, {@link #plain} and {@link #pausing}.
 * Not thread-safe.
 */
public interface Aging {

  /** No aging: strict priority can starve the lower levels. */
  Aging NONE = (queues, nowNanos) -> 0;

  /**
   * Runs one aging pass.
   *
   * @param queues the level queues
   * @param nowNanos the current ticker reading
   * @return how many jobs were promoted
   */
  int pass(LevelQueues queues, long nowNanos);

  /**
   * Returns plain aging: every job that has waited at least the threshold since its last placement
   * moves to the tail of the level above, so a whole overdue level moves in one pass.
   *
   * @param threshold the wait that triggers a promotion; positive
   * @return the policy
   */
  static Aging plain(Duration threshold) {
    return new ThresholdAging(threshold, false);
  }

  /**
   * Returns pausing aging (seed paper section 3.7, reference section 2.6): at most one job per
   * level per pass, and none into a level that is behind (it holds promoted jobs and its head has
   * been in the broker at least the threshold since arrival).
   *
   * @param threshold the wait that triggers a promotion; positive
   * @return the policy
   */
  static Aging pausing(Duration threshold) {
    return new ThresholdAging(threshold, true);
  }
}
