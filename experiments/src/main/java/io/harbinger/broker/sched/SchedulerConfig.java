package io.harbinger.broker.sched;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * How the levels are served: their number, the selection, the aging and its timing (seed paper
 * table 1).
 *
 * @param levels the number of levels, in [2, 10]
 * @param selection strict priority or weighted shares
 * @param aging none, plain or pausing
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

  /** Fewest levels. */
  public static final int MIN_LEVELS = 2;

  /** Most levels. */
  public static final int MAX_LEVELS = 10;

  /** The paper's weights for three levels. */
  public static final List<Integer> DEFAULT_WEIGHTS = List.of(8, 3, 1);

  /** Checks the fields. */
  public SchedulerConfig {
    Objects.requireNonNull(selection, "selection");
    Objects.requireNonNull(aging, "aging");
    Objects.requireNonNull(weights, "weights");
    Objects.requireNonNull(agingThreshold, "agingThreshold");
    Objects.requireNonNull(agingInterval, "agingInterval");
    if (levels < MIN_LEVELS || levels > MAX_LEVELS) {
      throw new IllegalArgumentException(
          "levels must be in [" + MIN_LEVELS + ", " + MAX_LEVELS + "]: " + levels);
    }
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
    return switch (aging) {
      case NONE -> Aging.NONE;
      case PLAIN -> Aging.plain(agingThreshold);
      case PAUSING -> Aging.pausing(agingThreshold);
    };
  }

  /** Returns a fresh selector (weighted selectors hold state, so each scheduler needs its own). */
  public LevelSelector newSelector() {
    return switch (selection) {
      case STRICT -> StrictLevelSelector.INSTANCE;
      case WEIGHTED -> new WeightedLevelSelector(weights);
    };
  }
}
