package io.harbinger.experiments.analysis;

import io.harbinger.experiments.stats.Bootstrap;
import io.harbinger.experiments.stats.Criterion;
import io.harbinger.experiments.stats.Gate;
import io.harbinger.experiments.stats.GateResult;
import io.harbinger.experiments.stats.MetricDelta;
import io.harbinger.experiments.stats.Observations;
import io.harbinger.experiments.stats.PairedStatistic;
import io.harbinger.experiments.stats.PairedValues;
import io.harbinger.experiments.stats.Pairing;
import io.harbinger.experiments.stats.Percentiles;
import io.harbinger.experiments.workload.JobType;
import io.harbinger.experiments.workload.RunRecord;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.function.ToDoubleFunction;

/**
 * The analysis of a set of production-flow runs, computed once: per-arm medians, paired deltas
 * against each arm's FIFO baseline with bootstrap intervals, and the gates' verdicts. {@link
 * ReportFormat} chooses the reporter that writes it (summary.json, report.md, SVG charts).
 *
 * <p>Example: runs of {@code fifo}, {@code predictive}, {@code rabbitmq_fifo} and {@code
 * rabbitmq_predictive} for seeds 11 to 55 give two compared arms: {@code predictive} against {@code
 * fifo} and {@code rabbitmq_predictive} against {@code rabbitmq_fifo} (the longest FIFO arm name
 * whose prefix the arm shares; see {@link #baselineFor}).
 *
 * <p>Implementation notes: seed paper section 4, with the metrics, the bootstrap and the
 * production-flow gate of the original implementation. Tables show the median over seeds of each
 * per-run metric. Deltas pair runs by seed: the per-seed relative change {@code (arm - base) /
 * base}, its plain mean, and the percentile-bootstrap interval (for P99 and the export wait, which
 * the gate judges as ratios, the relative change is the ratio minus one). The gate of every
 * compared arm is {@link Gates#production}.
 *
 * <p>{@code summary.json} schema ({@value #FORMAT}): an object with {@code format}, {@code
 * bootstrap} ({@code method}, {@code resamples}, {@code rng}), {@code time_scale}, and {@code
 * arms}, an array with one object per arm: {@code arm}, {@code baseline} (null for a baseline arm),
 * {@code seeds}, {@code not_completed_total}, {@code median} (metric name to median over seeds),
 * {@code per_seed} (seed to metric name to value), {@code phases} and {@code classes} (name to
 * {@code mean_ms}/{@code p50_ms}/{@code p99_ms} medians), {@code deltas} (array of {@code metric},
 * {@code point}, {@code low}, {@code high}, {@code n}, {@code seeds}, {@code values}, {@code
 * unevaluable}), and for compared arms {@code gate} ({@code passed} and {@code criteria}: {@code
 * id}, {@code arm}, {@code rule}, {@code status}, {@code point}, {@code low}, {@code high}, {@code
 * reason}); when secondary criteria were given, a top-level {@code secondary} object of the same
 * shape as {@code gate}. Undefined numbers are null.
 *
 * <p>Instances are immutable once built and thread-safe.
 */
public final class Analysis {

  /** The format tag of summary.json. */
  public static final String FORMAT = "harbinger-analysis-v1";

  private final Bootstrap bootstrap;
  private final double timeScale;
  private final Map<String, Map<Long, RunMetrics>> runs;
  private final Map<String, String> baselines;
  private final Map<String, List<MetricDelta>> deltas;
  private final Map<String, GateResult> gates;
  private final GateResult secondary;

  private Analysis(
      Bootstrap bootstrap,
      double timeScale,
      Map<String, Map<Long, RunMetrics>> runs,
      Map<String, String> baselines,
      Map<String, List<MetricDelta>> deltas,
      Map<String, GateResult> gates,
      GateResult secondary) {
    this.bootstrap = bootstrap;
    this.timeScale = timeScale;
    this.runs = runs;
    this.baselines = baselines;
    this.deltas = deltas;
    this.gates = gates;
    this.secondary = secondary;
  }

  /**
   * Analyses runs.
   *
   * @param runs the runs, at most one per (arm, seed), all with the same time scale
   * @param bootstrap the resampling method for every interval
   * @return the analysis
   */
  public static Analysis analyse(List<RunRecord> runs, Bootstrap bootstrap) {
    return analyseMetrics(runs.stream().map(RunMetrics::of).toList(), bootstrap, List.of());
  }

  /**
   * Analyses runs and also judges secondary criteria between any arms (the project's targets, for
   * example), reported beside the per-arm gates.
   *
   * @param runs the runs, at most one per (arm, seed), all with the same time scale
   * @param bootstrap the resampling method for every interval
   * @param secondaryCriteria criteria over the metric names of {@link RunMetrics#values()}, may be
   *     empty
   * @return the analysis
   */
  public static Analysis analyse(
      List<RunRecord> runs, Bootstrap bootstrap, List<Criterion> secondaryCriteria) {
    return analyseMetrics(runs.stream().map(RunMetrics::of).toList(), bootstrap, secondaryCriteria);
  }

  /**
   * Analyses already computed run metrics.
   *
   * @param metrics the per-run metrics, at most one per (arm, seed), all with the same time scale
   * @param bootstrap the resampling method
   * @param secondaryCriteria criteria between any arms, judged beside the gates, may be empty
   * @return the analysis
   */
  public static Analysis analyseMetrics(
      List<RunMetrics> metrics, Bootstrap bootstrap, List<Criterion> secondaryCriteria) {
    Objects.requireNonNull(bootstrap, "bootstrap");
    if (metrics.isEmpty()) {
      throw new IllegalArgumentException("an analysis needs at least one run: 0 given");
    }
    double scale = metrics.get(0).timeScale();
    Map<String, Map<Long, RunMetrics>> byArm = new TreeMap<>();
    for (RunMetrics m : metrics) {
      if (m.timeScale() != scale) {
        throw new IllegalArgumentException(
            "all runs must share one time scale: " + scale + " and " + m.timeScale());
      }
      RunMetrics previous = byArm.computeIfAbsent(m.arm(), a -> new TreeMap<>()).put(m.seed(), m);
      if (previous != null) {
        throw new IllegalArgumentException(
            "two runs of arm " + m.arm() + " with seed " + m.seed() + " given");
      }
    }
    Map<String, String> baselines = new LinkedHashMap<>();
    for (String arm : byArm.keySet()) {
      baselines.put(arm, baselineFor(arm, byArm.keySet()));
    }
    Observations observations = observations(byArm);
    Map<String, List<MetricDelta>> deltas = new LinkedHashMap<>();
    Map<String, GateResult> gates = new LinkedHashMap<>();
    for (String arm : byArm.keySet()) {
      String base = baselines.get(arm);
      if (base == null) {
        continue;
      }
      List<MetricDelta> list = new ArrayList<>();
      for (String metric : RunMetrics.HEADLINE) {
        list.add(
            delta(
                metric,
                observations.values(arm, metric),
                observations.values(base, metric),
                bootstrap));
      }
      deltas.put(arm, List.copyOf(list));
      gates.put(
          arm, new Gate(Gates.production(arm, base, scale), bootstrap).evaluate(observations));
    }
    GateResult secondary =
        secondaryCriteria.isEmpty()
            ? null
            : new Gate(secondaryCriteria, bootstrap).evaluate(observations);
    return new Analysis(bootstrap, scale, byArm, baselines, deltas, gates, secondary);
  }

  private static MetricDelta delta(
      String metric, Map<String, Double> arm, Map<String, Double> base, Bootstrap bootstrap) {
    PairedValues pairs = Pairing.pair(arm, base, PairedStatistic.RELATIVE_DELTA);
    return new MetricDelta(
        metric, pairs, pairs.evaluable() ? bootstrap.meanInterval(pairs.values()) : null);
  }

  /**
   * Returns the FIFO baseline of an arm: null when the arm's name ends in {@code fifo} (it is a
   * baseline), else the FIFO arm with the longest name whose prefix before {@code fifo} starts the
   * arm's name ({@code rabbitmq_fifo} for {@code rabbitmq_static_tuned}, {@code fifo} for {@code
   * predictive}), else null.
   *
   * @param arm the arm
   * @param arms every arm of the analysis
   * @return the baseline arm or null
   */
  public static String baselineFor(String arm, Collection<String> arms) {
    if (arm.endsWith("fifo")) {
      return null;
    }
    return arms.stream()
        .filter(a -> a.endsWith("fifo"))
        .filter(a -> arm.startsWith(a.substring(0, a.length() - "fifo".length())))
        .max(Comparator.comparingInt(String::length).thenComparing(Comparator.naturalOrder()))
        .orElse(null);
  }

  private static Observations observations(Map<String, Map<Long, RunMetrics>> byArm) {
    Map<String, Map<String, Map<String, Double>>> table = new TreeMap<>();
    byArm.forEach(
        (arm, seeds) -> {
          Map<String, Map<String, Double>> perSeed = new LinkedHashMap<>();
          seeds.forEach((seed, m) -> perSeed.put(Long.toString(seed), m.values()));
          table.put(arm, perSeed);
        });
    return Observations.of(table);
  }

  /**
   * Returns the arms, in name order.
   *
   * @return the arm names
   */
  public List<String> arms() {
    return List.copyOf(runs.keySet());
  }

  /**
   * Returns the arms compared with a baseline, in name order.
   *
   * @return the arms with deltas and a gate
   */
  public List<String> comparedArms() {
    return List.copyOf(deltas.keySet());
  }

  /**
   * Returns the resampling method of every interval.
   *
   * @return the bootstrap
   */
  public Bootstrap bootstrap() {
    return bootstrap;
  }

  /**
   * Returns the runs' time scale.
   *
   * @return at least 1
   */
  public double timeScale() {
    return timeScale;
  }

  /**
   * Returns an arm's baseline.
   *
   * @param arm the arm
   * @return the baseline arm, or null for a baseline or an arm without one
   */
  public String baseline(String arm) {
    return baselines.get(arm);
  }

  /**
   * Returns an arm's runs by seed.
   *
   * @param arm the arm
   * @return seed to run metrics, empty for an unknown arm
   */
  public Map<Long, RunMetrics> runs(String arm) {
    return Collections.unmodifiableMap(runs.getOrDefault(arm, Map.of()));
  }

  /**
   * Returns an arm's paired deltas of the headline metrics.
   *
   * @param arm the arm
   * @return the deltas in {@link RunMetrics#HEADLINE} order, empty for a baseline
   */
  public List<MetricDelta> deltas(String arm) {
    return deltas.getOrDefault(arm, List.of());
  }

  /**
   * Returns an arm's gate result.
   *
   * @param arm the arm
   * @return the verdicts, or null for a baseline
   */
  public GateResult gate(String arm) {
    return gates.get(arm);
  }

  /**
   * Returns the verdicts of the secondary criteria.
   *
   * @return the verdicts, or null when none were given
   */
  public GateResult secondary() {
    return secondary;
  }

  /**
   * Returns the median over seeds of one metric of an arm.
   *
   * @param arm the arm
   * @param metric the metric name (see {@link RunMetrics#values()})
   * @return the nearest-rank median over the arm's runs, NaN when none has the value
   */
  public double median(String arm, String metric) {
    return medianOf(arm, m -> m.values().getOrDefault(metric, Double.NaN));
  }

  private double medianOf(String arm, ToDoubleFunction<RunMetrics> f) {
    double[] v =
        runs.getOrDefault(arm, Map.of()).values().stream()
            .mapToDouble(f)
            .filter(d -> !Double.isNaN(d))
            .toArray();
    return v.length == 0 ? Double.NaN : Percentiles.nearestRank(v, 50);
  }

  /**
   * Returns the messages of an arm's runs that did not complete, plus submit errors.
   *
   * @param arm the arm
   * @return the total over seeds
   */
  public long notCompletedTotal(String arm) {
    return runs.getOrDefault(arm, Map.of()).values().stream()
        .mapToLong(m -> m.messages() - m.completed() + m.submitErrors())
        .sum();
  }

  /**
   * Returns the median over every run of a class's median handler time.
   *
   * @param t the job type
   * @return milliseconds, NaN when no run has it
   */
  public double serviceTime(JobType t) {
    double[] v =
        runs.values().stream()
            .flatMap(m -> m.values().stream())
            .mapToDouble(m -> m.byClass().get(t).p50HandlerMillis())
            .filter(d -> !Double.isNaN(d))
            .toArray();
    return v.length == 0 ? Double.NaN : Percentiles.nearestRank(v, 50);
  }

  /**
   * Returns the job types, cheapest median handler time first.
   *
   * @return the types
   */
  public List<JobType> classesByServiceTime() {
    List<JobType> types = new ArrayList<>(List.of(JobType.values()));
    types.sort(
        Comparator.comparingDouble(
            (JobType t) -> {
              double s = serviceTime(t);
              return Double.isNaN(s) ? Double.MAX_VALUE : s;
            }));
    return types;
  }
}
