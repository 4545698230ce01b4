package io.harbinger.experiments.stats;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Pairs an arm's per-unit metric values with its baseline's.
 *
 * <p>Example: arm {@code {11: 6.0, 22: 6.6}} against FIFO {@code {11: 8.0, 22: 8.8}} gives the
 * relative deltas {@code [-0.25, -0.25]}; against FIFO {@code {11: 8.0}} alone it is unevaluable
 * (one pair).
 *
 * <p>Implementation notes: seed paper section 4, with the original implementation's rules for an
 * unevaluable comparison. Units are paired by name (seed or window); a unit present on one side
 * only is dropped. Fewer than two pairs, or a zero, NaN or missing baseline value on a paired unit,
 * makes the comparison unevaluable, and unevaluable counts as failure in a gate.
 */
public final class Pairing {

  /** The fewest pairs a criterion can be judged on. */
  public static final int MIN_PAIRS = 2;

  private Pairing() {}

  /**
   * Pairs two series of per-unit values.
   *
   * @param arm unit name to the arm's value
   * @param baseline unit name to the baseline's value
   * @param statistic what each pair becomes
   * @return the pairs in unit order (natural order of the names, numeric names by number)
   */
  public static PairedValues pair(
      Map<String, Double> arm, Map<String, Double> baseline, PairedStatistic statistic) {
    TreeMap<String, Double> ordered = new TreeMap<>(Pairing::compareUnits);
    ordered.putAll(arm);
    List<String> units = new ArrayList<>();
    List<Double> armValues = new ArrayList<>();
    List<Double> baseValues = new ArrayList<>();
    List<Double> values = new ArrayList<>();
    String reason = null;
    for (Map.Entry<String, Double> e : ordered.entrySet()) {
      if (!baseline.containsKey(e.getKey())) {
        continue;
      }
      Double a = e.getValue();
      Double b = baseline.get(e.getKey());
      units.add(e.getKey());
      armValues.add(a == null ? Double.NaN : a);
      baseValues.add(b == null ? Double.NaN : b);
      if (b == null || b == 0 || !Double.isFinite(b)) {
        reason = "baseline value of unit " + e.getKey() + " is zero or missing: " + b;
      } else if (a == null || !Double.isFinite(a)) {
        reason = "arm value of unit " + e.getKey() + " is not finite: " + a;
      } else {
        values.add(statistic.of(a, b));
      }
    }
    if (reason == null && units.size() < MIN_PAIRS) {
      reason = "at least " + MIN_PAIRS + " paired units are required: " + units.size();
    }
    return new PairedValues(statistic, units, armValues, baseValues, values, reason);
  }

  static int compareUnits(String a, String b) {
    boolean numA = isNumber(a);
    boolean numB = isNumber(b);
    if (numA && numB) {
      int c = Long.compare(Long.parseLong(a), Long.parseLong(b));
      if (c != 0) {
        return c;
      }
    } else if (numA != numB) {
      return numA ? -1 : 1;
    }
    return a.compareTo(b);
  }

  private static boolean isNumber(String s) {
    if (s.isEmpty() || s.length() > 18) {
      return false;
    }
    for (int i = 0; i < s.length(); i++) {
      if (!Character.isDigit(s.charAt(i))) {
        return false;
      }
    }
    return true;
  }
}
