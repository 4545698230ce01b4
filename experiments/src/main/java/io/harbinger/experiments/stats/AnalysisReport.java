package io.harbinger.experiments.stats;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.harbinger.experiments.workload.JobType;
import io.harbinger.experiments.workload.Phase;
import io.harbinger.experiments.workload.RunRecord;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalDouble;
import java.util.TreeMap;
import java.util.function.DoubleUnaryOperator;
import java.util.function.ToDoubleFunction;

/**
 * The analysis of a set of production-flow runs: per-arm tables, paired deltas against each arm's
 * FIFO baseline with bootstrap intervals, the gate's verdicts, and the outputs (summary.json, a
 * markdown report and SVG charts).
 *
 * <p>Example: runs of {@code fifo}, {@code predictive}, {@code rabbitmq_fifo} and {@code
 * rabbitmq_predictive} for seeds 11 to 55 give two compared arms: {@code predictive} against {@code
 * fifo} and {@code rabbitmq_predictive} against {@code rabbitmq_fifo} (the longest FIFO arm name
 * whose prefix the arm shares; see {@link #baselineFor}).
 *
 * <p>Implementation notes: seed paper section 4 and harbinger-reference sections 4.3 and 6.1-6.2.
 * Tables show the median over seeds of each per-run metric. Deltas pair runs by seed: the per-seed
 * relative change {@code (arm - base) / base}, its plain mean, and the percentile-bootstrap
 * interval (for P99 and the export wait, which the gate judges as ratios, the relative change is
 * the ratio minus one). The gate of every compared arm is P1 (mean at most -15%, CI upper below 0),
 * P2 (short-class P50 at most -30%, CI upper below 0), G1 (P99 ratio CI upper at most 1.25), G2
 * (export max wait ratio CI upper at most 2.0, and no export wait above 60 s divided by the time
 * scale), G3 (every run completed every message, none dead-lettered, no submit error).
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
public final class AnalysisReport {

  /** The format tag of summary.json. */
  public static final String FORMAT = "harbinger-analysis-v1";

  /** The export wait cap of G2 before time scaling. */
  public static final double EXPORT_WAIT_CAP_MILLIS = 60_000;

  private static final List<String> G3_METRICS =
      List.of(RunMetrics.NOT_COMPLETED, RunMetrics.DEAD_LETTERED, RunMetrics.SUBMIT_ERRORS);

  private final Bootstrap bootstrap;
  private final double timeScale;
  private final Map<String, Map<Long, RunMetrics>> runs;
  private final Map<String, String> baselines;
  private final Map<String, List<MetricDelta>> deltas;
  private final Map<String, GateResult> gates;
  private final GateResult secondary;

  private AnalysisReport(
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
  public static AnalysisReport analyse(List<RunRecord> runs, Bootstrap bootstrap) {
    return analyseMetrics(runs.stream().map(RunMetrics::of).toList(), bootstrap, List.of());
  }

  /**
   * Analyses runs and also judges secondary criteria between any arms (S1 predictive against
   * static_tuned, S3 shadow within 5% of FIFO, ...), reported beside the per-arm gates.
   *
   * @param runs the runs, at most one per (arm, seed), all with the same time scale
   * @param bootstrap the resampling method for every interval
   * @param secondaryCriteria criteria over the metric names of {@link RunMetrics#values()}, may be
   *     empty
   * @return the analysis
   */
  public static AnalysisReport analyse(
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
  public static AnalysisReport analyseMetrics(
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
      gates.put(arm, new Gate(v2Gate(arm, base, scale), bootstrap).evaluate(observations));
    }
    GateResult secondary =
        secondaryCriteria.isEmpty()
            ? null
            : new Gate(secondaryCriteria, bootstrap).evaluate(observations);
    return new AnalysisReport(bootstrap, scale, byArm, baselines, deltas, gates, secondary);
  }

  private static MetricDelta delta(
      String metric, Map<String, Double> arm, Map<String, Double> base, Bootstrap bootstrap) {
    PairedValues pairs = Pairing.pair(arm, base, PairedStatistic.RELATIVE_DELTA);
    return new MetricDelta(
        metric, pairs, pairs.evaluable() ? bootstrap.meanInterval(pairs.values()) : null);
  }

  /**
   * Returns the production-flow gate of an arm: P1, P2, G1, G2 and G3 (reference section 6.2).
   *
   * @param arm the arm
   * @param baseline its FIFO baseline
   * @param timeScale the runs' time scale (the 60 s export-wait cap is divided by it)
   * @return the criteria in order
   */
  public static List<Criterion> v2Gate(String arm, String baseline, double timeScale) {
    return List.of(
        new Criterion.Improvement("P1", RunMetrics.MEAN_MS, arm, baseline, -0.15),
        new Criterion.Improvement("P2", RunMetrics.SHORT_P50_MS, arm, baseline, -0.30),
        new Criterion.MaxRatio(
            "G1", RunMetrics.P99_MS, arm, baseline, 1.25, OptionalDouble.empty()),
        new Criterion.MaxRatio(
            "G2",
            RunMetrics.EXPORT_MAX_WAIT_MS,
            arm,
            baseline,
            2.0,
            OptionalDouble.of(EXPORT_WAIT_CAP_MILLIS / timeScale)),
        new Criterion.NoLostWork("G3", arm, G3_METRICS));
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

  private long notCompletedTotal(String arm) {
    return runs.getOrDefault(arm, Map.of()).values().stream()
        .mapToLong(m -> m.messages() - m.completed() + m.submitErrors())
        .sum();
  }

  /**
   * Returns the summary as JSON text (schema in the class comment).
   *
   * @return pretty-printed JSON
   */
  public String summaryJson() {
    ObjectMapper mapper = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
    ObjectNode root = mapper.createObjectNode();
    root.put("format", FORMAT);
    ObjectNode boot = root.putObject("bootstrap");
    boot.put("method", bootstrap.toString());
    boot.put("resamples", bootstrap.resamples());
    boot.put(
        "rng",
        "java.util.SplittableRandom seeded with the bootstrap seed (not Python's random.Random)");
    root.put("time_scale", timeScale);
    ArrayNode arms = root.putArray("arms");
    for (String arm : runs.keySet()) {
      ObjectNode a = arms.addObject();
      a.put("arm", arm);
      a.put("baseline", baselines.get(arm));
      ArrayNode seeds = a.putArray("seeds");
      runs.get(arm).keySet().forEach(seeds::add);
      a.put("not_completed_total", notCompletedTotal(arm));
      ObjectNode median = a.putObject("median");
      List<String> names = new ArrayList<>(RunMetrics.HEADLINE);
      names.addAll(
          List.of("mean_wait_ms", "slowdown_p50", "slowdown_p99", "messages", "completed"));
      names.addAll(G3_METRICS);
      names.add(RunMetrics.LOST);
      for (String metric : names) {
        putNumber(median, metric, median(arm, metric));
      }
      ObjectNode perSeed = a.putObject("per_seed");
      runs.get(arm)
          .forEach(
              (seed, m) -> {
                ObjectNode s = perSeed.putObject(Long.toString(seed));
                m.values().forEach((k, v) -> putNumber(s, k, v));
              });
      ObjectNode phases = a.putObject("phases");
      for (Phase p : Phase.values()) {
        ObjectNode o = phases.putObject(p.wireName());
        for (String m : List.of("mean_ms", "p50_ms", "p99_ms")) {
          putNumber(o, m, median(arm, "phase." + p.wireName() + "." + m));
        }
      }
      ObjectNode classes = a.putObject("classes");
      for (JobType t : JobType.values()) {
        ObjectNode o = classes.putObject(t.wireName());
        for (String m : List.of("mean_ms", "p50_ms", "p99_ms")) {
          putNumber(o, m, median(arm, "class." + t.wireName() + "." + m));
        }
      }
      ArrayNode ds = a.putArray("deltas");
      for (MetricDelta d : deltas(arm)) {
        ObjectNode o = ds.addObject();
        o.put("metric", d.metric());
        putInterval(o, d.interval());
        ArrayNode units = o.putArray("seeds");
        d.pairs().units().forEach(units::add);
        ArrayNode values = o.putArray("values");
        d.pairs().values().forEach(values::add);
        o.put("unevaluable", d.pairs().unevaluableReason());
      }
      GateResult gate = gates.get(arm);
      if (gate != null) {
        ObjectNode g = a.putObject("gate");
        g.put("passed", gate.passed());
        putVerdicts(g.putArray("criteria"), gate);
      }
    }
    if (secondary != null) {
      ObjectNode g = root.putObject("secondary");
      g.put("passed", secondary.passed());
      putVerdicts(g.putArray("criteria"), secondary);
    }
    try {
      return mapper.writeValueAsString(root) + "\n";
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalStateException("summary.json could not be serialised", e);
    }
  }

  private static void putVerdicts(ArrayNode criteria, GateResult gate) {
    for (Verdict v : gate.verdicts()) {
      ObjectNode c = criteria.addObject();
      c.put("id", v.criterion().id());
      c.put("arm", v.criterion().arm());
      c.put("rule", v.criterion().rule());
      c.put("status", v.status().name());
      putInterval(c, v.interval());
      c.put("reason", v.reason());
    }
  }

  private static void putInterval(ObjectNode o, Interval i) {
    putNumber(o, "point", i == null ? Double.NaN : i.point());
    putNumber(o, "low", i == null ? Double.NaN : i.low());
    putNumber(o, "high", i == null ? Double.NaN : i.high());
    if (i == null) {
      o.putNull("n");
    } else {
      o.put("n", i.n());
    }
  }

  private static void putNumber(ObjectNode o, String name, double value) {
    if (Double.isFinite(value)) {
      o.put(name, value);
    } else {
      o.putNull(name);
    }
  }

  /**
   * Returns the report as markdown: losses first, then the per-arm, per-phase and per-class tables,
   * then every arm's deltas and verdicts.
   *
   * @return the markdown text
   */
  public String markdown() {
    StringBuilder md = new StringBuilder();
    md.append("# Production-flow analysis\n\n");
    md.append(
        String.format(
            Locale.ROOT,
            "Runs: %d arms, time scale %s. Tables show the median over seeds. Deltas are paired"
                + " by seed against each arm's FIFO baseline: mean of the per-seed relative"
                + " changes with a %s 95%% interval (%d resamples).%n%n",
            runs.size(),
            trim(timeScale),
            bootstrap instanceof MovingBlockBootstrap ? "moving-block" : "percentile-bootstrap",
            bootstrap.resamples()));
    for (String arm : runs.keySet()) {
      runs.get(arm)
          .forEach(
              (seed, m) -> {
                long missing = m.messages() - m.completed();
                if (missing > 0 || m.submitErrors() > 0) {
                  md.append(
                      String.format(
                          Locale.ROOT,
                          "**WORK LOST: arm %s seed %d: %d of %d messages not completed (%d lost,"
                              + " %d dead-lettered), %d submit errors.**%n%n",
                          arm,
                          seed,
                          missing,
                          m.messages(),
                          m.lost(),
                          m.deadLettered(),
                          m.submitErrors()));
                }
              });
    }
    md.append("## Arms\n\n");
    md.append(
        "| arm | baseline | seeds | mean | P50 | P99 | short P50 | export max wait | throughput"
            + " | not completed |\n");
    md.append("|---|---|---|---:|---:|---:|---:|---:|---:|---:|\n");
    for (String arm : runs.keySet()) {
      md.append(
          String.format(
              Locale.ROOT,
              "| %s | %s | %d | %s | %s | %s | %s | %s | %s/s | %d |%n",
              arm,
              Objects.requireNonNullElse(baselines.get(arm), "-"),
              runs.get(arm).size(),
              ms(median(arm, RunMetrics.MEAN_MS)),
              ms(median(arm, RunMetrics.P50_MS)),
              ms(median(arm, RunMetrics.P99_MS)),
              ms(median(arm, RunMetrics.SHORT_P50_MS)),
              ms(median(arm, RunMetrics.EXPORT_MAX_WAIT_MS)),
              number(median(arm, RunMetrics.THROUGHPUT_PER_S)),
              notCompletedTotal(arm)));
    }
    md.append("\n## Mean latency by phase\n\n");
    md.append(
        "Median over seeds of each phase's mean latency (cohort by arrival phase); for compared"
            + " arms, the mean paired change against the baseline with the smallest and largest"
            + " seed in brackets.\n\n");
    md.append("| phase |");
    runs.keySet().forEach(a -> md.append(' ').append(a).append(" |"));
    md.append("\n|---|");
    runs.keySet().forEach(a -> md.append("---:|"));
    md.append('\n');
    for (Phase p : Phase.values()) {
      md.append("| ").append(p.wireName()).append(" |");
      String metric = "phase." + p.wireName() + ".mean_ms";
      for (String arm : runs.keySet()) {
        md.append(' ').append(ms(median(arm, metric)));
        String base = baselines.get(arm);
        if (base != null) {
          md.append(' ').append(changeWithRange(arm, base, metric));
        }
        md.append(" |");
      }
      md.append('\n');
    }
    md.append("\n## Latency by job class\n\n");
    md.append(
        "P50 / P99 per class (median over seeds), classes ordered by their median handler"
            + " time.\n\n");
    md.append("| class | handler P50 |");
    runs.keySet().forEach(a -> md.append(' ').append(a).append(" |"));
    md.append("\n|---|---:|");
    runs.keySet().forEach(a -> md.append("---:|"));
    md.append('\n');
    for (JobType t : classesByServiceTime()) {
      md.append("| ")
          .append(t.wireName())
          .append(t.shortClass() ? " (short)" : "")
          .append(" | ")
          .append(ms(serviceTime(t)))
          .append(" |");
      for (String arm : runs.keySet()) {
        md.append(' ')
            .append(ms(median(arm, "class." + t.wireName() + ".p50_ms")))
            .append(" / ")
            .append(ms(median(arm, "class." + t.wireName() + ".p99_ms")))
            .append(" |");
      }
      md.append('\n');
    }
    for (String arm : gates.keySet()) {
      GateResult gate = gates.get(arm);
      md.append("\n## ")
          .append(arm)
          .append(" against ")
          .append(baselines.get(arm))
          .append(": gate ")
          .append(gate.passed() ? "PASSED" : "NOT PASSED")
          .append("\n\n");
      appendVerdicts(md, gate);
      md.append("\nAll headline deltas (relative change; for P99 and export wait, ratio - 1):\n\n");
      md.append("| metric | change [95% CI] | per seed |\n|---|---|---|\n");
      for (MetricDelta d : deltas(arm)) {
        md.append("| ")
            .append(d.metric())
            .append(" | ")
            .append(
                d.interval() == null
                    ? "unevaluable: " + d.pairs().unevaluableReason()
                    : Gate.pct(d.interval().point())
                        + " ["
                        + Gate.pct(d.interval().low())
                        + ", "
                        + Gate.pct(d.interval().high())
                        + "]")
            .append(" | ")
            .append(perSeed(d.pairs()))
            .append(" |\n");
      }
    }
    if (secondary != null) {
      md.append("\n## Secondary criteria: ")
          .append(secondary.passed() ? "all passed" : "NOT all passed")
          .append("\n\n");
      appendVerdicts(md, secondary);
    }
    md.append("\nCharts: `charts/deltas.svg` (change against FIFO with intervals and per-seed");
    md.append(
        " values), `charts/per-class-<arm>.svg` (per-class P50 and P99, baseline beside arm).\n");
    return md.toString();
  }

  private static void appendVerdicts(StringBuilder md, GateResult gate) {
    md.append("| criterion | arm | rule | estimate [95% CI] | per seed | verdict |\n");
    md.append("|---|---|---|---|---|---|\n");
    for (Verdict v : gate.verdicts()) {
      md.append("| ")
          .append(v.criterion().id())
          .append(" | ")
          .append(v.criterion().arm())
          .append(" | ")
          .append(v.criterion().rule())
          .append(" | ")
          .append(v.reason().replace("|", "\\|"))
          .append(" | ")
          .append(perSeed(v.pairs()))
          .append(" | ")
          .append(
              v.status() == Verdict.Status.PASS
                  ? "pass"
                  : "**" + v.status().name().toLowerCase(Locale.ROOT) + "**")
          .append(" |\n");
    }
  }

  private String changeWithRange(String arm, String base, String metric) {
    Map<String, Double> a = new LinkedHashMap<>();
    Map<String, Double> b = new LinkedHashMap<>();
    runs.get(arm).forEach((s, m) -> a.put(Long.toString(s), m.values().get(metric)));
    runs.get(base).forEach((s, m) -> b.put(Long.toString(s), m.values().get(metric)));
    PairedValues pairs = Pairing.pair(a, b, PairedStatistic.RELATIVE_DELTA);
    if (!pairs.evaluable()) {
      return "(n/a)";
    }
    double[] v = Percentiles.toArray(pairs.values());
    Arrays.sort(v);
    return "("
        + Gate.pct(Percentiles.mean(v))
        + " ["
        + Gate.pct(v[0])
        + ", "
        + Gate.pct(v[v.length - 1])
        + "])";
  }

  private static String perSeed(PairedValues pairs) {
    if (pairs == null || pairs.units().isEmpty()) {
      return "-";
    }
    List<String> parts = new ArrayList<>();
    for (int i = 0; i < pairs.units().size(); i++) {
      String value =
          pairs.values().size() == pairs.units().size()
              ? (pairs.statistic() == PairedStatistic.RATIO
                  ? String.format(Locale.ROOT, "%.2f", pairs.values().get(i))
                  : Gate.pct(pairs.values().get(i)))
              : "?";
      parts.add(pairs.units().get(i) + ": " + value);
    }
    return String.join(", ", parts);
  }

  private double serviceTime(JobType t) {
    double[] v =
        runs.values().stream()
            .flatMap(m -> m.values().stream())
            .mapToDouble(m -> m.byClass().get(t).p50HandlerMillis())
            .filter(d -> !Double.isNaN(d))
            .toArray();
    return v.length == 0 ? Double.NaN : Percentiles.nearestRank(v, 50);
  }

  List<JobType> classesByServiceTime() {
    List<JobType> types = new ArrayList<>(List.of(JobType.values()));
    types.sort(
        Comparator.comparingDouble(
            (JobType t) -> {
              double s = serviceTime(t);
              return Double.isNaN(s) ? Double.MAX_VALUE : s;
            }));
    return types;
  }

  static String ms(double millis) {
    if (Double.isNaN(millis)) {
      return "n/a";
    }
    if (Math.abs(millis) >= 10_000) {
      return String.format(Locale.ROOT, "%.1f s", millis / 1000);
    }
    if (Math.abs(millis) >= 100) {
      return String.format(Locale.ROOT, "%.0f ms", millis);
    }
    return String.format(Locale.ROOT, "%.1f ms", millis);
  }

  private static String number(double value) {
    return Double.isNaN(value) ? "n/a" : String.format(Locale.ROOT, "%.1f", value);
  }

  private static String trim(double value) {
    return Gate.format(value);
  }

  /**
   * Returns the chart of every compared arm's change against its baseline: one panel per gated
   * metric (mean, short-class P50, P99, export max wait), a bar at the point estimate, a whisker
   * over the interval and a hollow dot per seed.
   *
   * @return a self-contained SVG document
   */
  public String deltaChartSvg() {
    List<String> metrics =
        List.of(
            RunMetrics.MEAN_MS,
            RunMetrics.SHORT_P50_MS,
            RunMetrics.P99_MS,
            RunMetrics.EXPORT_MAX_WAIT_MS);
    List<String> titles =
        List.of(
            "mean (P1)",
            "short-class P50 (P2)",
            "P99 ratio - 1 (G1)",
            "export max wait ratio - 1 (G2)");
    List<String> arms = new ArrayList<>(deltas.keySet());
    int labelWidth = 190;
    int panelWidth = 230;
    int rowHeight = 30;
    int top = 60;
    int height = top + Math.max(1, arms.size()) * rowHeight + 50;
    Svg svg = new Svg(labelWidth + metrics.size() * panelWidth + 20, height);
    svg.text(
        10,
        22,
        "Change against FIFO: paired mean over seeds, 95% bootstrap interval, one"
            + " hollow dot per seed",
        "start",
        14);
    for (int i = 0; i < arms.size(); i++) {
      double y = top + i * rowHeight + rowHeight / 2.0;
      svg.text(labelWidth - 8, y + 4, arms.get(i) + " vs " + baselines.get(arms.get(i)), "end", 11);
    }
    for (int p = 0; p < metrics.size(); p++) {
      double x0 = labelWidth + p * panelWidth + 10;
      double x1 = x0 + panelWidth - 20;
      double lo = -0.1;
      double hi = 0.1;
      for (String arm : arms) {
        MetricDelta d = deltas.get(arm).get(RunMetrics.HEADLINE.indexOf(metrics.get(p)));
        for (double v : d.pairs().values()) {
          lo = Math.min(lo, v);
          hi = Math.max(hi, v);
        }
        if (d.interval() != null) {
          lo = Math.min(lo, d.interval().low());
          hi = Math.max(hi, d.interval().high());
        }
      }
      double span = hi - lo;
      lo -= span * 0.05;
      hi += span * 0.05;
      double fLo = lo;
      double fSpan = hi - lo;
      DoubleUnaryOperator x = v -> x0 + (v - fLo) / fSpan * (x1 - x0);
      svg.text((x0 + x1) / 2, top - 18, titles.get(p), "middle", 12);
      double bottom = top + arms.size() * rowHeight;
      svg.line(x.applyAsDouble(0), top - 6, x.applyAsDouble(0), bottom, "#444444", 1);
      svg.line(x0, bottom, x1, bottom, "#888888", 1);
      for (double tick : ticks(lo, hi)) {
        double tx = x.applyAsDouble(tick);
        svg.line(tx, bottom, tx, bottom + 4, "#888888", 1);
        svg.text(tx, bottom + 16, String.format(Locale.ROOT, "%+.0f%%", tick * 100), "middle", 10);
      }
      for (int i = 0; i < arms.size(); i++) {
        MetricDelta d = deltas.get(arms.get(i)).get(RunMetrics.HEADLINE.indexOf(metrics.get(p)));
        double yc = top + i * rowHeight + rowHeight / 2.0;
        if (d.interval() == null) {
          svg.text((x0 + x1) / 2, yc + 4, "unevaluable", "middle", 10);
          continue;
        }
        double zero = x.applyAsDouble(0);
        double point = x.applyAsDouble(d.interval().point());
        String colour = d.interval().point() <= 0 ? "#4477aa" : "#cc6677";
        svg.rect(Math.min(zero, point), yc - 7, Math.abs(point - zero), 14, colour, "none");
        double wl = x.applyAsDouble(d.interval().low());
        double wh = x.applyAsDouble(d.interval().high());
        svg.line(wl, yc, wh, yc, "#000000", 1.5);
        svg.line(wl, yc - 5, wl, yc + 5, "#000000", 1.5);
        svg.line(wh, yc - 5, wh, yc + 5, "#000000", 1.5);
        for (double v : d.pairs().values()) {
          svg.circle(x.applyAsDouble(v), yc, 3, "none", "#222222");
        }
      }
    }
    return svg.render();
  }

  private static List<Double> ticks(double lo, double hi) {
    double span = hi - lo;
    double raw = span / 5;
    double magnitude = Math.pow(10, Math.floor(Math.log10(raw)));
    double step = magnitude;
    for (double m : new double[] {1, 2, 5, 10}) {
      if (m * magnitude >= raw) {
        step = m * magnitude;
        break;
      }
    }
    List<Double> ticks = new ArrayList<>();
    for (double t = Math.ceil(lo / step) * step; t <= hi + 1e-12; t += step) {
      ticks.add(Math.abs(t) < 1e-12 ? 0 : t);
    }
    return ticks;
  }

  /**
   * Returns the per-class chart of a compared arm, like the paper's figure 9: for each class
   * (cheapest median handler time first), the baseline's and the arm's P50 as bars and P99 as a
   * whisker on a logarithmic axis (median over seeds).
   *
   * @param arm a compared arm
   * @return a self-contained SVG document
   */
  public String perClassChartSvg(String arm) {
    String base = baselines.get(arm);
    if (base == null) {
      throw new IllegalArgumentException("arm has no baseline to compare with: " + arm);
    }
    List<JobType> classes = classesByServiceTime();
    double lo = Double.MAX_VALUE;
    double hi = 0;
    for (JobType t : classes) {
      for (String a : List.of(base, arm)) {
        for (String m : List.of("p50_ms", "p99_ms")) {
          double v = median(a, "class." + t.wireName() + "." + m);
          if (v > 0) {
            lo = Math.min(lo, v);
            hi = Math.max(hi, v);
          }
        }
      }
    }
    if (hi == 0) {
      lo = 1;
      hi = 10;
    }
    double decadeLo = Math.floor(Math.log10(lo));
    double decadeHi = Math.max(decadeLo + 1, Math.ceil(Math.log10(hi)));
    int left = 70;
    int groupWidth = 90;
    int top = 50;
    int plotHeight = 300;
    int width = left + classes.size() * groupWidth + 20;
    Svg svg = new Svg(width, top + plotHeight + 110);
    svg.text(
        10,
        22,
        "Latency by class: "
            + base
            + " (grey) beside "
            + arm
            + " (blue); bar = P50, whisker up to P99; log scale",
        "start",
        13);
    DoubleUnaryOperator y =
        v -> top + plotHeight - (Math.log10(v) - decadeLo) / (decadeHi - decadeLo) * plotHeight;
    double bottom = top + plotHeight;
    for (double d = decadeLo; d <= decadeHi; d++) {
      double yy = y.applyAsDouble(Math.pow(10, d));
      svg.line(left, yy, width - 20, yy, "#dddddd", 1);
      svg.text(left - 6, yy + 4, ms(Math.pow(10, d)), "end", 10);
    }
    svg.line(left, top, left, bottom, "#888888", 1);
    for (int i = 0; i < classes.size(); i++) {
      JobType t = classes.get(i);
      double gx = left + i * groupWidth + 10;
      String[] arms = {base, arm};
      String[] colours = {"#aaaaaa", "#4477aa"};
      for (int k = 0; k < 2; k++) {
        double p50 = median(arms[k], "class." + t.wireName() + ".p50_ms");
        double p99 = median(arms[k], "class." + t.wireName() + ".p99_ms");
        double bx = gx + k * 34;
        if (p50 > 0) {
          double top50 = y.applyAsDouble(p50);
          svg.rect(bx, top50, 28, bottom - top50, colours[k], "none");
          if (p99 > 0) {
            double top99 = y.applyAsDouble(p99);
            svg.line(bx + 14, top50, bx + 14, top99, "#000000", 1.2);
            svg.line(bx + 8, top99, bx + 20, top99, "#000000", 1.2);
          }
        } else {
          svg.text(bx + 14, bottom - 4, "n/a", "middle", 9);
        }
      }
      svg.text(gx + 31, bottom + 14, t.wireName(), "end", 10, -35);
    }
    return svg.render();
  }

  /**
   * Writes summary.json, report.md and the charts into a directory.
   *
   * @param directory the output directory, created if needed
   * @throws IOException when a file cannot be written
   */
  public void write(Path directory) throws IOException {
    Files.createDirectories(directory.resolve("charts"));
    Files.writeString(directory.resolve("summary.json"), summaryJson(), StandardCharsets.UTF_8);
    Files.writeString(directory.resolve("report.md"), markdown(), StandardCharsets.UTF_8);
    Files.writeString(
        directory.resolve("charts").resolve("deltas.svg"), deltaChartSvg(), StandardCharsets.UTF_8);
    for (String arm : deltas.keySet()) {
      Files.writeString(
          directory.resolve("charts").resolve("per-class-" + arm + ".svg"),
          perClassChartSvg(arm),
          StandardCharsets.UTF_8);
    }
  }
}
