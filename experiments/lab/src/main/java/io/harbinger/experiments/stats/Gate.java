package io.harbinger.experiments.stats;

import io.harbinger.experiments.stats.Verdict.Status;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * A pre-registered list of criteria, judged together: the gate passes only when every criterion
 * passes.
 *
 * <p>Example: {@code new Gate(List.of(new Criterion.Improvement("P1", "mean_ms", "predictive",
 * "fifo", -0.15)), PercentileBootstrap.defaults()).evaluate(observations)} pairs the predictive and
 * FIFO runs by seed, bootstraps the mean relative delta and passes when it is at most -15% with the
 * interval's upper end below zero.
 *
 * <p>Implementation notes: seed paper section 4, with the original implementation's decision rules.
 * For paired criteria, the point is the plain mean of the per-unit values and the interval comes
 * from the bootstrap; an unevaluable comparison (fewer than two pairs, a zero baseline) is reported
 * as such and counts as failure. {@link Criterion.NoLostWork} reads the arm's runs directly.
 *
 * <p>Instances are immutable and thread-safe.
 */
public final class Gate {

  private final List<Criterion> criteria;
  private final Bootstrap bootstrap;

  /**
   * Creates a gate.
   *
   * @param criteria the criteria, at least one, ids unique
   * @param bootstrap the resampling method for the intervals
   */
  public Gate(List<Criterion> criteria, Bootstrap bootstrap) {
    this.criteria = List.copyOf(criteria);
    this.bootstrap = Objects.requireNonNull(bootstrap, "bootstrap");
    if (this.criteria.isEmpty()) {
      throw new IllegalArgumentException("a gate needs at least one criterion: 0 given");
    }
    long distinct = this.criteria.stream().map(Criterion::id).distinct().count();
    if (distinct != this.criteria.size()) {
      throw new IllegalArgumentException(
          "criterion ids must be unique: " + this.criteria.stream().map(Criterion::id).toList());
    }
  }

  /**
   * Returns the criteria in order.
   *
   * @return the criteria
   */
  public List<Criterion> criteria() {
    return criteria;
  }

  /**
   * Judges every criterion.
   *
   * @param observations the per-unit metric values of every arm
   * @return one verdict per criterion, in order
   */
  public GateResult evaluate(Observations observations) {
    List<Verdict> verdicts = new ArrayList<>(criteria.size());
    for (Criterion c : criteria) {
      verdicts.add(evaluate(c, observations, bootstrap));
    }
    return new GateResult(verdicts);
  }

  /**
   * Judges one criterion.
   *
   * @param criterion the criterion
   * @param observations the per-unit metric values
   * @param bootstrap the resampling method
   * @return the verdict
   */
  public static Verdict evaluate(
      Criterion criterion, Observations observations, Bootstrap bootstrap) {
    return switch (criterion) {
      case Criterion.NoLostWork c -> noLostWork(c, observations);
      case Criterion.GapToReference c -> gap(c, observations, bootstrap);
      case Criterion.Paired c -> paired(c, observations, bootstrap);
    };
  }

  private static Verdict noLostWork(Criterion.NoLostWork c, Observations observations) {
    int runs = -1;
    List<String> problems = new ArrayList<>();
    for (String metric : c.zeroMetrics()) {
      Map<String, Double> byUnit = observations.values(c.arm(), metric);
      runs = Math.max(runs, byUnit.size());
      for (Map.Entry<String, Double> e : byUnit.entrySet()) {
        Double v = e.getValue();
        if (v == null || !(v <= 0)) {
          problems.add(metric + " = " + format(v) + " in " + e.getKey());
        }
      }
    }
    if (runs <= 0) {
      return new Verdict(c, Status.UNEVALUABLE, null, null, "no runs of arm " + c.arm() + " found");
    }
    if (problems.isEmpty()) {
      return new Verdict(
          c,
          Status.PASS,
          null,
          null,
          "all " + runs + " runs have " + String.join(", ", c.zeroMetrics()) + " = 0");
    }
    return new Verdict(c, Status.FAIL, null, null, "work lost: " + String.join("; ", problems));
  }

  private static Verdict gap(
      Criterion.GapToReference c, Observations observations, Bootstrap bootstrap) {
    Map<String, Double> base = observations.values(c.baseline(), c.metric());
    Map<String, Double> arm = observations.values(c.arm(), c.metric());
    Map<String, Double> ref = observations.values(c.reference(), c.metric());
    java.util.TreeMap<String, Double> ordered = new java.util.TreeMap<>(Pairing::compareUnits);
    ordered.putAll(arm);
    List<String> units = new ArrayList<>();
    List<Double> armValues = new ArrayList<>();
    List<Double> refValues = new ArrayList<>();
    List<Double> gaps = new ArrayList<>();
    String why = null;
    for (String unit : ordered.keySet()) {
      Double b = base.get(unit);
      Double a = arm.get(unit);
      Double r = ref.get(unit);
      if (b == null || r == null) {
        continue;
      }
      if (b == 0
          || !Double.isFinite(b)
          || a == null
          || !Double.isFinite(a)
          || !Double.isFinite(r)) {
        why = "a value of unit " + unit + " is zero or not finite: " + List.of(a, r, b);
        continue;
      }
      double armChange = PairedStatistic.RELATIVE_DELTA.of(a, b);
      double refChange = PairedStatistic.RELATIVE_DELTA.of(r, b);
      units.add(unit);
      armValues.add(armChange);
      refValues.add(refChange);
      gaps.add(armChange - refChange);
    }
    if (why == null && units.size() < Pairing.MIN_PAIRS) {
      why =
          "at least "
              + Pairing.MIN_PAIRS
              + " units with "
              + c.arm()
              + ", "
              + c.reference()
              + " and "
              + c.baseline()
              + " are required: "
              + units.size();
    }
    PairedValues pairs =
        new PairedValues(PairedStatistic.RELATIVE_DELTA, units, armValues, refValues, gaps, why);
    if (why != null) {
      return new Verdict(c, Status.UNEVALUABLE, pairs, null, "unevaluable: " + why);
    }
    Interval ci = bootstrap.meanInterval(gaps);
    boolean pass = ci.high() <= c.maxPoints();
    return verdict(
        c,
        pass,
        pairs,
        ci,
        points(ci.point())
            + " ["
            + points(ci.low())
            + ", "
            + points(ci.high())
            + "] over "
            + ci.n()
            + " (change "
            + pct(mean(armValues))
            + " against "
            + pct(mean(refValues))
            + ")"
            + ": CI upper "
            + (pass ? "<= " : "> ")
            + points(c.maxPoints()).substring(1)
            + " limit");
  }

  private static String points(double fraction) {
    return String.format(Locale.ROOT, "%+.1f points", fraction * 100);
  }

  private static double mean(List<Double> values) {
    return values.stream().mapToDouble(Double::doubleValue).average().orElse(Double.NaN);
  }

  private static Verdict paired(
      Criterion.Paired c, Observations observations, Bootstrap bootstrap) {
    PairedValues pairs =
        Pairing.pair(
            observations.values(c.arm(), c.metric()),
            observations.values(c.baseline(), c.metric()),
            c.statistic());
    if (!pairs.evaluable()) {
      return new Verdict(
          c, Status.UNEVALUABLE, pairs, null, "unevaluable: " + pairs.unevaluableReason());
    }
    Interval ci = bootstrap.meanInterval(pairs.values());
    String shown = show(c.statistic(), ci);
    return switch (c) {
      case Criterion.Improvement r -> {
        boolean pass = ci.point() <= r.maxRelativeDelta() && ci.high() < 0;
        yield verdict(
            c,
            pass,
            pairs,
            ci,
            shown
                + (pass ? " meets " : " misses ")
                + "<= "
                + pct(r.maxRelativeDelta())
                + " with CI upper < 0");
      }
      case Criterion.Reduction r -> {
        boolean pass = ci.high() < 0;
        yield verdict(c, pass, pairs, ci, shown + (pass ? ": CI upper < 0" : ": CI upper >= 0"));
      }
      case Criterion.NonInferiority r -> {
        boolean pass = ci.high() <= r.margin();
        yield verdict(
            c,
            pass,
            pairs,
            ci,
            shown + ": CI upper " + (pass ? "<= " : "> ") + pct(r.margin()) + " margin");
      }
      case Criterion.MaxRatio r -> {
        List<String> over = new ArrayList<>();
        if (r.maxArmValue().isPresent()) {
          double cap = r.maxArmValue().getAsDouble();
          for (int i = 0; i < pairs.units().size(); i++) {
            if (pairs.armValues().get(i) > cap) {
              over.add(pairs.units().get(i) + " = " + format(pairs.armValues().get(i)));
            }
          }
        }
        boolean ratioOk = ci.high() <= r.limit();
        String text =
            shown + ": CI upper " + (ratioOk ? "<= " : "> ") + format(r.limit()) + "x limit";
        if (!over.isEmpty()) {
          text += "; arm value over cap " + format(r.maxArmValue().getAsDouble()) + " in " + over;
        }
        yield verdict(c, ratioOk && over.isEmpty(), pairs, ci, text);
      }
      case Criterion.MinRatio r -> {
        boolean pass = ci.low() >= r.limit();
        yield verdict(
            c,
            pass,
            pairs,
            ci,
            shown + ": CI lower " + (pass ? ">= " : "< ") + format(r.limit()) + "x limit");
      }
      case Criterion.WithinRelative r -> {
        boolean pass = ci.low() >= -r.limit() && ci.high() <= r.limit();
        yield verdict(
            c,
            pass,
            pairs,
            ci,
            shown + (pass ? ": CI within +-" : ": CI not within +-") + pct(r.limit()).substring(1));
      }
    };
  }

  private static Verdict verdict(
      Criterion c, boolean pass, PairedValues pairs, Interval ci, String reason) {
    return new Verdict(c, pass ? Status.PASS : Status.FAIL, pairs, ci, reason);
  }

  private static String show(PairedStatistic statistic, Interval ci) {
    return switch (statistic) {
      case RELATIVE_DELTA ->
          pct(ci.point()) + " [" + pct(ci.low()) + ", " + pct(ci.high()) + "] over " + ci.n();
      case RATIO ->
          format(ci.point())
              + "x ["
              + format(ci.low())
              + ", "
              + format(ci.high())
              + "] over "
              + ci.n();
    };
  }

  /**
   * Formats a fraction as a signed percentage with one decimal, e.g. {@code -0.153} as {@code
   * -15.3%}.
   *
   * @param fraction the fraction
   * @return the text
   */
  public static String pct(double fraction) {
    return String.format(Locale.ROOT, "%+.1f%%", fraction * 100);
  }

  /**
   * Formats a number with at most three decimals and no trailing zeros, e.g. {@code 1.250} as
   * {@code 1.25}.
   *
   * @param value the number, or null
   * @return the text, {@code missing} for null
   */
  public static String format(Double value) {
    if (value == null) {
      return "missing";
    }
    return String.format(Locale.ROOT, "%.3f", value).replaceAll("\\.?0+$", "");
  }
}
