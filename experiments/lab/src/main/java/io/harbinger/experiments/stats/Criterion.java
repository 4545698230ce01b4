package io.harbinger.experiments.stats;

import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.OptionalDouble;

/**
 * One pre-registered pass criterion: an arm's metric against a baseline's, and the rule it must
 * meet.
 *
 * <p>Implementation notes: the decision rules of the original implementation's evaluation (seed
 * paper section 4), one record per rule. A relative-delta criterion with a negative {@code
 * max_relative_delta} is an {@link Improvement}, with zero a {@link Reduction}, with a positive one
 * a {@link NonInferiority}; ratio criteria are {@link MaxRatio} and {@link MinRatio}; {@code
 * max_abs_relative_delta} is {@link WithinRelative}; G3 is {@link NoLostWork}. Bounds are judged on
 * the interval's ends, which is how the paper reads guardrails ("judged on the upper end of their
 * intervals").
 */
public sealed interface Criterion {

  /**
   * Returns the criterion's short name, such as {@code P1}.
   *
   * @return the id
   */
  String id();

  /**
   * Returns the arm under test.
   *
   * @return the arm name
   */
  String arm();

  /**
   * Returns a one-line statement of the rule for reports.
   *
   * @return the rule, such as {@code mean_ms vs fifo: <= -15% and CI upper < 0}
   */
  String rule();

  private static void requirePositive(double value, String what) {
    if (!(value > 0 && Double.isFinite(value))) {
      throw new IllegalArgumentException(what + " must be > 0: " + value);
    }
  }

  private static void check(String id, String metric, String arm, String baseline) {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(metric, "metric");
    Objects.requireNonNull(arm, "arm");
    Objects.requireNonNull(baseline, "baseline");
    if (id.isBlank() || metric.isBlank() || arm.isBlank() || baseline.isBlank()) {
      throw new IllegalArgumentException(
          "id, metric, arm and baseline must not be blank: " + List.of(id, metric, arm, baseline));
    }
  }

  private static String percent(double fraction) {
    return String.format(Locale.ROOT, "%+.1f%%", fraction * 100);
  }

  /** A criterion judged on paired per-unit values of one metric. */
  sealed interface Paired extends Criterion {

    /**
     * Returns the metric compared.
     *
     * @return the metric name
     */
    String metric();

    /**
     * Returns the baseline arm.
     *
     * @return the baseline name
     */
    String baseline();

    /**
     * Returns how each pair becomes one value.
     *
     * @return relative delta or ratio
     */
    PairedStatistic statistic();
  }

  /**
   * An improvement claim: pass if the mean relative delta is at most {@code maxRelativeDelta} and
   * the interval's upper end is below zero.
   *
   * @param id the short name
   * @param metric the metric
   * @param arm the arm
   * @param baseline the baseline
   * @param maxRelativeDelta the target, negative (-0.15 for "at least 15% lower")
   */
  record Improvement(String id, String metric, String arm, String baseline, double maxRelativeDelta)
      implements Paired {
    /** Checks the fields. */
    public Improvement {
      check(id, metric, arm, baseline);
      if (!(maxRelativeDelta < 0 && maxRelativeDelta > -1)) {
        throw new IllegalArgumentException(
            "an improvement target must be in (-1, 0): " + maxRelativeDelta);
      }
    }

    @Override
    public PairedStatistic statistic() {
      return PairedStatistic.RELATIVE_DELTA;
    }

    @Override
    public String rule() {
      return metric + " vs " + baseline + ": <= " + percent(maxRelativeDelta) + " and CI < 0";
    }
  }

  /**
   * A reduction claim with no size ({@code max_relative_delta = 0}): pass if the interval's upper
   * end is below zero.
   *
   * @param id the short name
   * @param metric the metric
   * @param arm the arm
   * @param baseline the baseline
   */
  record Reduction(String id, String metric, String arm, String baseline) implements Paired {
    /** Checks the fields. */
    public Reduction {
      check(id, metric, arm, baseline);
    }

    @Override
    public PairedStatistic statistic() {
      return PairedStatistic.RELATIVE_DELTA;
    }

    @Override
    public String rule() {
      return metric + " vs " + baseline + ": CI < 0";
    }
  }

  /**
   * A non-inferiority claim: pass if the interval's upper end is at most {@code margin}.
   *
   * @param id the short name
   * @param metric the metric
   * @param arm the arm
   * @param baseline the baseline
   * @param margin the largest acceptable relative increase, positive (0.10 for "+10%")
   */
  record NonInferiority(String id, String metric, String arm, String baseline, double margin)
      implements Paired {
    /** Checks the fields. */
    public NonInferiority {
      check(id, metric, arm, baseline);
      requirePositive(margin, "a non-inferiority margin");
    }

    @Override
    public PairedStatistic statistic() {
      return PairedStatistic.RELATIVE_DELTA;
    }

    @Override
    public String rule() {
      return metric + " vs " + baseline + ": CI upper <= " + percent(margin);
    }
  }

  /**
   * A guardrail on a ratio: pass if the interval's upper end is at most {@code limit} and, when
   * given, the arm's own value is at most {@code maxArmValue} in every unit.
   *
   * @param id the short name
   * @param metric the metric
   * @param arm the arm
   * @param baseline the baseline
   * @param limit the largest acceptable ratio, positive (1.25 for "1.25x")
   * @param maxArmValue an absolute cap on every arm value (60,000 ms for export waits), or empty
   */
  record MaxRatio(
      String id,
      String metric,
      String arm,
      String baseline,
      double limit,
      OptionalDouble maxArmValue)
      implements Paired {
    /** Checks the fields. */
    public MaxRatio {
      check(id, metric, arm, baseline);
      Objects.requireNonNull(maxArmValue, "maxArmValue");
      requirePositive(limit, "a ratio limit");
    }

    @Override
    public PairedStatistic statistic() {
      return PairedStatistic.RATIO;
    }

    @Override
    public String rule() {
      return metric
          + " / "
          + baseline
          + ": CI upper <= "
          + limit
          + "x"
          + (maxArmValue.isPresent() ? " and every value <= " + maxArmValue.getAsDouble() : "");
    }
  }

  /**
   * A guardrail on a ratio from below: pass if the interval's lower end is at least {@code limit}.
   *
   * @param id the short name
   * @param metric the metric
   * @param arm the arm
   * @param baseline the baseline
   * @param limit the smallest acceptable ratio, positive (0.98 for throughput)
   */
  record MinRatio(String id, String metric, String arm, String baseline, double limit)
      implements Paired {
    /** Checks the fields. */
    public MinRatio {
      check(id, metric, arm, baseline);
      requirePositive(limit, "a ratio limit");
    }

    @Override
    public PairedStatistic statistic() {
      return PairedStatistic.RATIO;
    }

    @Override
    public String rule() {
      return metric + " / " + baseline + ": CI lower >= " + limit + "x";
    }
  }

  /**
   * An equivalence claim ({@code max_abs_relative_delta}): pass if the whole interval lies within
   * {@code +-limit}.
   *
   * @param id the short name
   * @param metric the metric
   * @param arm the arm
   * @param baseline the baseline
   * @param limit the largest acceptable absolute relative delta, positive (0.05 for "+-5%")
   */
  record WithinRelative(String id, String metric, String arm, String baseline, double limit)
      implements Paired {
    /** Checks the fields. */
    public WithinRelative {
      check(id, metric, arm, baseline);
      requirePositive(limit, "an equivalence limit");
    }

    @Override
    public PairedStatistic statistic() {
      return PairedStatistic.RELATIVE_DELTA;
    }

    @Override
    public String rule() {
      return metric + " vs " + baseline + ": CI within +-" + percent(limit).substring(1);
    }
  }

  /**
   * No lost work: pass if the arm has at least one run and every run has zero for every one of
   * {@code zeroMetrics} (lost, dead-lettered, submit errors).
   *
   * @param id the short name
   * @param arm the arm
   * @param zeroMetrics the metrics that must be zero in every run, at least one
   */
  record NoLostWork(String id, String arm, List<String> zeroMetrics) implements Criterion {
    /** Checks the fields. */
    public NoLostWork {
      check(id, "-", arm, "-");
      zeroMetrics = List.copyOf(zeroMetrics);
      if (zeroMetrics.isEmpty()) {
        throw new IllegalArgumentException("NoLostWork needs at least one metric: 0 given");
      }
    }

    @Override
    public String rule() {
      return "every run: " + String.join(", ", zeroMetrics) + " = 0";
    }
  }

  /**
   * The arm's paired change against a baseline is at most {@code maxPoints} above a reference arm's
   * change against the same baseline: per unit, (arm / baseline - 1) - (reference / baseline - 1),
   * and the interval's upper end of their mean must not exceed the limit.
   *
   * <p>Example: the adapter within 2 points of the oracle, both against FIFO: {@code new
   * GapToReference("T7", "mean_ms", "rabbitmq-predictive", "rabbitmq-oracle", "rabbitmq-fifo",
   * 0.02)}; with the oracle at -59.7% and the adapter at -57.8% a seed's gap is +1.9 points.
   *
   * @param id the criterion's identifier
   * @param metric the metric
   * @param arm the arm judged
   * @param reference the arm it must keep up with
   * @param baseline the arm both changes are taken against
   * @param maxPoints the largest gap as a fraction (0.02 = 2 points), positive
   */
  record GapToReference(
      String id, String metric, String arm, String reference, String baseline, double maxPoints)
      implements Criterion {
    /** Checks the fields. */
    public GapToReference {
      check(id, metric, arm, baseline);
      check(id, metric, reference, baseline);
      requirePositive(maxPoints, "a gap limit");
    }

    @Override
    public String rule() {
      return metric
          + " change vs "
          + baseline
          + " minus "
          + reference
          + "'s: CI upper <= "
          + percent(maxPoints).substring(1).replace("%", " points");
    }
  }
}
