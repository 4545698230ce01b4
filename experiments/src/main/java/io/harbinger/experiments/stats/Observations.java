package io.harbinger.experiments.stats;

import java.util.Map;

/** The per-unit values of each arm's metrics, as a gate reads them. */
@FunctionalInterface
public interface Observations {

  /**
   * Returns one arm's values of one metric, by unit (seed or window).
   *
   * @param arm the arm name
   * @param metric the metric name
   * @return unit name to value; empty when the arm or metric is unknown
   */
  Map<String, Double> values(String arm, String metric);
}
