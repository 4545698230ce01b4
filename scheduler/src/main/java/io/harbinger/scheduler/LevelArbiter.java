package io.harbinger.scheduler;

import io.harbinger.predictor.PredictorConfig;
import java.util.Objects;

/**
 * Decides which level is served next and keeps the books that decision needs: a {@link
 * LevelSelector} and each level's running average of acknowledged durations, the fallback cost of a
 * pull without a prediction, as in the original implementation.
 *
 * <p>It needs to know only which levels have work, never the jobs, so it serves {@link
 * LevelScheduler} and equally a consumer that holds one broker queue per level. Example with
 * weights (8, 3, 1): {@code int level = arbiter.next(mask);} picks the level with the smallest
 * virtual clock among those whose bit is set; {@code arbiter.started(level, estimateNanos)} charges
 * it the estimate (else the level's average, else 1 ms); when the handler ends, {@code
 * arbiter.finished(level, durationNanos)} feeds the level's average. While every level has work,
 * the charged worker time splits 8:3:1 (seed paper section 3.7).
 *
 * <p>Not thread-safe: the caller serialises every call.
 */
public final class LevelArbiter {

  private final LevelSelector selector;
  private final CostAverage[] costs;

  /**
   * Creates an arbiter.
   *
   * @param levels the number of levels, in [2, 10]
   * @param selector the selection policy; a weighted one has one weight per level
   */
  public LevelArbiter(int levels, LevelSelector selector) {
    PredictorConfig.checkLevels(levels);
    this.selector = Objects.requireNonNull(selector, "selector");
    this.costs = new CostAverage[levels];
    for (int i = 0; i < levels; i++) {
      costs[i] = new CostAverage();
    }
  }

  /** Returns the number of levels. */
  public int levels() {
    return costs.length;
  }

  /** Returns the selector. */
  public LevelSelector selector() {
    return selector;
  }

  /**
   * Returns the level to serve next.
   *
   * @param nonEmptyMask bit i set when level i has work
   * @return a level whose bit is set, or -1 when the mask is 0
   */
  public int next(int nonEmptyMask) {
    return selector.select(nonEmptyMask);
  }

  /**
   * Tells the selector that a level went from empty to non-empty (an idle level banks no credit).
   *
   * @param level in [0, levels)
   */
  public void activated(int level) {
    selector.activated(level);
  }

  /**
   * Records that a job of a level started: charges the level its expected worker time.
   *
   * @param level the level it was taken from
   * @param expectedCostNanos the job's predicted duration, or NaN when it has none
   * @return the charge in milliseconds (0 for a selector that uses no cost), for {@link #putBack}
   */
  public double started(int level, double expectedCostNanos) {
    double cost = selector.usesCost() ? costs[level].costMillis(expectedCostNanos) : 0.0;
    selector.charge(level, cost);
    return cost;
  }

  /**
   * Undoes {@link #started} for a job that went back to the front of its level undelivered.
   *
   * @param level the level charged
   * @param chargedMillis what {@link #started} returned
   */
  public void putBack(int level, double chargedMillis) {
    selector.refund(level, chargedMillis);
  }

  /**
   * Records that a job of a level finished after a handler duration; later pulls of the level
   * without a prediction are charged the level's running average.
   *
   * @param level the level the job was taken from
   * @param durationNanos the handler's duration; negative or non-finite values are ignored
   */
  public void finished(int level, double durationNanos) {
    costs[level].add(durationNanos);
  }

  /**
   * Returns a level's running average of finished durations.
   *
   * @param level in [0, levels)
   * @return the average in milliseconds, NaN before the first
   */
  public double averageCostMillis(int level) {
    return costs[level].averageMillis();
  }

  @Override
  public String toString() {
    return "LevelArbiter[" + selector + "]";
  }
}
