package io.harbinger.scheduler;

/**
 * Chooses which level a pull is served from, given which levels have work.
 *
 * <p>A selector sees only a bit mask of the non-empty levels, so a caller that holds the head of
 * each level (one queue per level on a broker, say) can use it as well as {@link LevelScheduler}
 * can. Most callers go through {@link LevelArbiter}, which also prices each pull. Implementations:
 * {@link StrictLevelSelector} (the lowest non-empty level) and {@link WeightedLevelSelector}
 * (worker-time shares by virtual clocks, seed paper equation 4). Not thread-safe.
 */
public interface LevelSelector {

  /**
   * Chooses the level to serve.
   *
   * @param nonEmptyMask bit i set when level i holds work
   * @return a level whose bit is set, or -1 when the mask is 0
   */
  int select(int nonEmptyMask);

  /**
   * Charges a level for one pull.
   *
   * @param level the level served
   * @param costMillis the expected cost, at least 1 ms
   */
  void charge(int level, double costMillis);

  /**
   * Refunds the charge of a pull that was put back at the front of its level.
   *
   * @param level the level charged
   * @param costMillis the amount charged
   */
  void refund(int level, double costMillis);

  /**
   * Called when a level goes from empty to non-empty.
   *
   * @param level the level
   */
  void activated(int level);

  /** Returns whether pulls need a cost (so the caller can skip computing it). */
  boolean usesCost();
}
