package io.harbinger.experiments.stats;

import java.util.List;
import java.util.Objects;

/**
 * The per-unit paired values of one metric, arm against baseline, or why there are none.
 *
 * @param statistic relative delta or ratio
 * @param units the unit names (seeds or windows) that had both values, in order
 * @param armValues the arm's raw metric value per unit
 * @param baselineValues the baseline's raw metric value per unit
 * @param values the paired value per unit
 * @param unevaluableReason null when evaluable, else why not (fewer than 2 pairs, zero baseline)
 */
public record PairedValues(
    PairedStatistic statistic,
    List<String> units,
    List<Double> armValues,
    List<Double> baselineValues,
    List<Double> values,
    String unevaluableReason) {

  /** Checks the fields and copies the lists. */
  public PairedValues {
    Objects.requireNonNull(statistic, "statistic");
    units = List.copyOf(units);
    armValues = List.copyOf(armValues);
    baselineValues = List.copyOf(baselineValues);
    values = List.copyOf(values);
    if (armValues.size() != units.size()
        || baselineValues.size() != units.size()
        || (unevaluableReason == null && values.size() != units.size())) {
      throw new IllegalArgumentException(
          "one value per unit is required: units "
              + units.size()
              + ", arm "
              + armValues.size()
              + ", baseline "
              + baselineValues.size()
              + ", paired "
              + values.size());
    }
  }

  /**
   * Returns whether a criterion can be judged on these pairs.
   *
   * @return true when there are at least two pairs and no zero baseline
   */
  public boolean evaluable() {
    return unevaluableReason == null;
  }
}
