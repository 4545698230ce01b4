package io.harbinger.experiments.stats;

import java.util.Objects;

/**
 * The paired change of one metric, arm against its baseline, with its interval.
 *
 * @param metric the metric name
 * @param pairs the per-seed values (relative deltas; a ratio minus one is the same number)
 * @param interval the mean of the pairs with its bootstrap interval, or null when unevaluable
 */
public record MetricDelta(String metric, PairedValues pairs, Interval interval) {

  /** Checks the fields. */
  public MetricDelta {
    Objects.requireNonNull(metric, "metric");
    Objects.requireNonNull(pairs, "pairs");
    if (pairs.evaluable() != (interval != null)) {
      throw new IllegalArgumentException(
          "an interval is required exactly when the pairs are evaluable: " + metric);
    }
  }
}
