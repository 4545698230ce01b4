package io.harbinger.scheduler;

import io.harbinger.predictor.PredictorConfig;
import io.harbinger.predictor.Ticker;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * How the levels are served: their number, the selection, the aging and its timing (seed paper
 * table 1).
 *
 * @param levels the number of levels, in [2, 10]
 * @param selection strict priority or weighted shares
 * @param aging none, plain, pausing or following
 * @param weights one weight per level in [1, 1000]; checked and used only with {@link
 *     Selection#WEIGHTED}
 * @param agingThreshold the wait that triggers a promotion; positive (5 s by default)
 * @param agingInterval the time between aging passes; positive (0.5 s by default)
 */
public record SchedulerConfig(
    int levels,
    Selection selection,
    AgingMode aging,
    List<Integer> weights,
    Duration agingThreshold,
    Duration agingInterval) {

  /** The paper's weights for three levels. */
  public static final List<Integer> DEFAULT_WEIGHTS = List.of(8, 3, 1);

  /** Checks the fields. */
  public SchedulerConfig {
    Objects.requireNonNull(selection, "selection");
    Objects.requireNonNull(aging, "aging");
    Objects.requireNonNull(weights, "weights");
    Objects.requireNonNull(agingThreshold, "agingThreshold");
    Objects.requireNonNull(agingInterval, "agingInterval");
    PredictorConfig.checkLevels(levels);
    weights = List.copyOf(weights);
    if (selection == Selection.WEIGHTED) {
      if (weights.size() != levels) {
        throw new IllegalArgumentException(
            "weights must have one entry per level (" + levels + "): " + weights);
      }
      for (int w : weights) {
        if (w < WeightedLevelSelector.MIN_WEIGHT || w > WeightedLevelSelector.MAX_WEIGHT) {
          throw new IllegalArgumentException("weights must each be in [1, 1000]: " + weights);
        }
      }
    }
    if (agingThreshold.isNegative() || agingThreshold.isZero()) {
      throw new IllegalArgumentException("aging threshold must be positive: " + agingThreshold);
    }
    if (agingInterval.isNegative() || agingInterval.isZero()) {
      throw new IllegalArgumentException("aging interval must be positive: " + agingInterval);
    }
  }

  /**
   * Returns the defaults: 3 levels, strict priority, plain aging at 5 s every 0.5 s, weights (8, 3,
   * 1) for when weighted selection is chosen.
   *
   * @return the defaults
   */
  public static SchedulerConfig defaults() {
    return new SchedulerConfig(
        3,
        Selection.STRICT,
        AgingMode.PLAIN,
        DEFAULT_WEIGHTS,
        Duration.ofSeconds(5),
        Duration.ofMillis(500));
  }

  /**
   * Returns a copy with another selection.
   *
   * @param value the selection
   * @return the copy
   */
  public SchedulerConfig withSelection(Selection value) {
    return new SchedulerConfig(levels, value, aging, weights, agingThreshold, agingInterval);
  }

  /**
   * Returns a copy with another aging mode.
   *
   * @param value the aging mode
   * @return the copy
   */
  public SchedulerConfig withAging(AgingMode value) {
    return new SchedulerConfig(levels, selection, value, weights, agingThreshold, agingInterval);
  }

  /** Returns the aging policy this configuration describes. */
  public Aging newAging() {
    return aging.newAging(agingThreshold);
  }

  /** Returns a fresh selector (weighted selectors hold state, so each scheduler needs its own). */
  public LevelSelector newSelector() {
    return selection.newSelector(weights);
  }

  /**
   * Returns a new level scheduler as configured.
   *
   * @param ticker the clock (simulated time in the simulator)
   * @return the scheduler
   */
  public LevelScheduler newScheduler(Ticker ticker) {
    return new LevelScheduler(levels, newSelector(), newAging(), ticker);
  }
}
