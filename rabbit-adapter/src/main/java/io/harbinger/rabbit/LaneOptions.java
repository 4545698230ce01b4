package io.harbinger.rabbit;

import io.harbinger.scheduler.AgingMode;
import io.harbinger.scheduler.SchedulerConfig;
import io.harbinger.scheduler.Selection;
import io.harbinger.scheduler.WeightedLevelSelector;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * How a wrapped consumer of a lanes queue chooses which lane's delivery its application gets next
 * (seed paper section 3.7): the shared scheduling core's selection and aging, applied to the
 * deliveries the consumer holds from each lane.
 *
 * <p>Defaults: weighted selection by worker time with pausing aging after 5 s, passes every 0.5 s;
 * weights by {@link #defaultWeights}: (8, 3, 1) for 3 levels, so that while every lane has work the
 * levels get two thirds, a quarter and a twelfth of the worker time; each lane prefetches one more
 * message than the application's consumer prefetch.
 *
 * @param selection strict (the lowest non-empty level first) or weighted worker-time shares
 * @param weights one positive weight per level, each in [1, 1000]; empty for {@link
 *     #defaultWeights} of the layout's levels. Ignored with strict selection
 * @param aging none, plain or pausing aging of the held deliveries
 * @param agingThreshold the time a delivery waits at the head of its lane in the consumer before it
 *     is promoted one level; positive
 * @param agingInterval the time between aging passes; positive
 * @param lanePrefetch the prefetch of each lane's consumer, in [0, 65535]: 0 for the application's
 *     prefetch plus one (unlimited when the application set none)
 * @param anticipation how long the consumer waits for a lane's next delivery before handing over
 *     work of a level served later, while that lane is likely not empty (it delivered, or had a
 *     delivery settled, within this time, and RabbitMQ may send it more); zero or positive, at most
 *     1 s; 20 ms by default. Used with {@link LaneFetch#PUSH} only
 * @param fetch how the consumer gets messages from the lanes: {@link LaneFetch#PUSH} holds each
 *     lane's next delivery, {@link LaneFetch#PULL} takes a message only when the application has
 *     room for it, {@link LaneFetch#BY_QUEUE_TYPE} (the default) pulls classic lanes and has quorum
 *     lanes pushed
 */
public record LaneOptions(
    Selection selection,
    List<Integer> weights,
    AgingMode aging,
    Duration agingThreshold,
    Duration agingInterval,
    int lanePrefetch,
    Duration anticipation,
    LaneFetch fetch) {

  /** The default anticipation, 20 ms. */
  public static final Duration DEFAULT_ANTICIPATION = Duration.ofMillis(20);

  /** Checks the values; see the class description for the rules. */
  public LaneOptions {
    Objects.requireNonNull(selection, "selection");
    Objects.requireNonNull(aging, "aging");
    Objects.requireNonNull(agingThreshold, "agingThreshold");
    Objects.requireNonNull(agingInterval, "agingInterval");
    weights = List.copyOf(Objects.requireNonNull(weights, "weights"));
    for (int w : weights) {
      if (w < WeightedLevelSelector.MIN_WEIGHT || w > WeightedLevelSelector.MAX_WEIGHT) {
        throw new IllegalArgumentException(
            "lane weights must each be a positive integer in [1, 1000]: " + weights);
      }
    }
    if (agingThreshold.isNegative() || agingThreshold.isZero()) {
      throw new IllegalArgumentException("aging threshold must be positive: " + agingThreshold);
    }
    if (agingInterval.isNegative() || agingInterval.isZero()) {
      throw new IllegalArgumentException("aging interval must be positive: " + agingInterval);
    }
    Objects.requireNonNull(anticipation, "anticipation");
    if (anticipation.isNegative() || anticipation.compareTo(Duration.ofSeconds(1)) > 0) {
      throw new IllegalArgumentException("anticipation must be in [0, 1 s]: " + anticipation);
    }
    if (lanePrefetch < 0 || lanePrefetch > 65535) {
      throw new IllegalArgumentException("lanePrefetch must be in [0, 65535]: " + lanePrefetch);
    }
    Objects.requireNonNull(fetch, "fetch");
  }

  /**
   * Returns the defaults: weighted, default weights, pausing aging after 5 s every 0.5 s, lane
   * prefetch one above the application's, pulled on classic lanes and pushed on quorum ones.
   *
   * @return the defaults
   */
  public static LaneOptions defaults() {
    return new LaneOptions(
        Selection.WEIGHTED,
        List.of(),
        AgingMode.PAUSING,
        Duration.ofSeconds(5),
        Duration.ofMillis(500),
        0,
        DEFAULT_ANTICIPATION,
        LaneFetch.BY_QUEUE_TYPE);
  }

  /**
   * Returns strict priority over the lanes with no aging: the lowest non-empty level first, as a
   * classic priority queue serves (long jobs can starve).
   *
   * @return the options
   */
  public static LaneOptions strict() {
    return defaults().withSelection(Selection.STRICT).withAging(AgingMode.NONE);
  }

  /**
   * Returns a copy with other weights.
   *
   * @param value one weight per level, each in [1, 1000]
   * @return the copy
   */
  public LaneOptions withWeights(List<Integer> value) {
    return new LaneOptions(
        selection, value, aging, agingThreshold, agingInterval, lanePrefetch, anticipation, fetch);
  }

  /**
   * Returns a copy with another selection.
   *
   * @param value strict or weighted
   * @return the copy
   */
  public LaneOptions withSelection(Selection value) {
    return new LaneOptions(
        value, weights, aging, agingThreshold, agingInterval, lanePrefetch, anticipation, fetch);
  }

  /**
   * Returns a copy with another aging mode.
   *
   * @param value none, plain or pausing
   * @return the copy
   */
  public LaneOptions withAging(AgingMode value) {
    return new LaneOptions(
        selection,
        weights,
        value,
        agingThreshold,
        agingInterval,
        lanePrefetch,
        anticipation,
        fetch);
  }

  /**
   * Returns a copy with another aging threshold.
   *
   * @param value positive
   * @return the copy
   */
  public LaneOptions withAgingThreshold(Duration value) {
    return new LaneOptions(
        selection, weights, aging, value, agingInterval, lanePrefetch, anticipation, fetch);
  }

  /**
   * Returns a copy with another lane prefetch.
   *
   * @param value in [0, 65535], 0 for the application's prefetch plus one
   * @return the copy
   */
  public LaneOptions withLanePrefetch(int value) {
    return new LaneOptions(
        selection, weights, aging, agingThreshold, agingInterval, value, anticipation, fetch);
  }

  /**
   * Returns a copy with another anticipation.
   *
   * @param value in [0, 1 s]; zero hands over whatever is held at once
   * @return the copy
   */
  public LaneOptions withAnticipation(Duration value) {
    return new LaneOptions(
        selection, weights, aging, agingThreshold, agingInterval, lanePrefetch, value, fetch);
  }

  /**
   * Returns a copy with another way of getting messages from the lanes.
   *
   * @param value push (hold each lane's next delivery) or pull (take a message only when the
   *     application has room)
   * @return the copy
   */
  public LaneOptions withFetch(LaneFetch value) {
    return new LaneOptions(
        selection,
        weights,
        aging,
        agingThreshold,
        agingInterval,
        lanePrefetch,
        anticipation,
        value);
  }

  /**
   * Returns the weights used for a number of levels: the configured ones, or {@link
   * #defaultWeights}.
   *
   * @param levels the layout's levels, in [2, 10]
   * @return one weight per level
   * @throws IllegalArgumentException when configured weights do not have one entry per level
   */
  public List<Integer> weightsFor(int levels) {
    if (weights.isEmpty()) {
      return defaultWeights(levels);
    }
    if (weights.size() != levels) {
      throw new IllegalArgumentException(
          "lane weights must have one entry per level (" + levels + "): " + weights);
    }
    return weights;
  }

  /**
   * Returns the scheduling core's configuration for a number of levels.
   *
   * @param levels the layout's levels, in [2, 10]
   * @return the configuration
   */
  public SchedulerConfig schedulerConfig(int levels) {
    return new SchedulerConfig(
        levels, selection, aging, weightsFor(levels), agingThreshold, agingInterval);
  }

  /**
   * Returns the default weights for a number of levels: level i of L gets {@code 8^((L-1-i)/(L-1))}
   * rounded, so level 0 has 8 times the weight of the lowest level and the ratios between
   * neighbours are equal. For 3 levels this is the seed paper's (8, 3, 1); for 2 levels (8, 1); for
   * 5 levels (8, 5, 3, 2, 1).
   *
   * @param levels in [2, 10]
   * @return one weight per level, level 0 first
   */
  public static List<Integer> defaultWeights(int levels) {
    io.harbinger.predictor.PredictorConfig.checkLevels(levels);
    List<Integer> w = new ArrayList<>(levels);
    for (int i = 0; i < levels; i++) {
      w.add((int) Math.round(Math.pow(8.0, (double) (levels - 1 - i) / (levels - 1))));
    }
    return List.copyOf(w);
  }
}
