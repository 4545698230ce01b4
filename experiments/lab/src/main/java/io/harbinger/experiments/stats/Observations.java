package io.harbinger.experiments.stats;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;

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

  /**
   * Returns observations backed by a table, copied.
   *
   * @param table arm to unit to metric to value (a simulator's windows, a benchmark's seeds)
   * @return the observations
   */
  static Observations of(Map<String, Map<String, Map<String, Double>>> table) {
    Map<String, Map<String, Map<String, Double>>> copy = new TreeMap<>();
    table.forEach(
        (arm, units) -> {
          Map<String, Map<String, Double>> u = new LinkedHashMap<>();
          units.forEach((unit, metrics) -> u.put(unit, new LinkedHashMap<>(metrics)));
          copy.put(arm, u);
        });
    return (arm, metric) -> {
      Map<String, Double> out = new LinkedHashMap<>();
      copy.getOrDefault(arm, Map.of())
          .forEach(
              (unit, metrics) -> {
                if (metrics.containsKey(metric)) {
                  out.put(unit, metrics.get(metric));
                }
              });
      return out;
    };
  }
}
