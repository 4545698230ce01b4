package io.harbinger.experiments.sim;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.harbinger.broker.ArmDefinition;
import io.harbinger.broker.Arms;
import io.harbinger.experiments.stats.Bootstrap;
import io.harbinger.experiments.stats.Criterion;
import io.harbinger.experiments.stats.Gate;
import io.harbinger.experiments.stats.GateResult;
import io.harbinger.experiments.stats.Interval;
import io.harbinger.experiments.stats.MovingBlockBootstrap;
import io.harbinger.experiments.stats.Observations;
import io.harbinger.experiments.stats.PercentileBootstrap;
import io.harbinger.experiments.stats.Verdict;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalDouble;

/**
 * The arms of one trace at one load, their window statistics, and the simulation gates.
 *
 * <p>Example: {@code SimulationReport.run(input, arms, 2026, command).text()} gives a Markdown
 * table with one row per arm (whole-run mean, the window-averaged change against FIFO with its
 * intervals, P50, P99, short-class P50, longest long wait, share predicted) and the gates.
 *
 * <p>Implementation notes (reference sections 5.4, 6.1, 6.3 and 6.4; seed paper section 5.2). Arms
 * are paired with FIFO by window. Two windowings are reported: 7 equal-count windows with the
 * i.i.d. percentile bootstrap (the original simulator's) and 28 equal-time windows with the
 * moving-block bootstrap in blocks of 4 (the corrected one), both 10,000 resamples, seed 2026. Gate
 * A is {@code predictive_warm} with strict priority and default aging: P1 mean at most -15% with
 * its interval below zero, G1 P99 ratio at most 1.25 (v2), G2 long max wait ratio at most 2.0. Gate
 * B is {@code predictive_warm+weights+pausing} with the same rules except G1 at most 2.0 (v3). A
 * gate is judged only when its arm and {@code fifo} were simulated. Runs are simulated one after
 * another and reduced to statistics at once, so memory holds one run at a time.
 */
public final class SimulationReport {

  /** The baseline every arm is compared with. */
  public static final String BASELINE = "fifo";

  private static final ObjectMapper JSON =
      new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  private final String command;
  private final SimInput input;
  private final long seed;
  private final List<ArmResult> arms;
  private final List<GateOutcome> gates;

  /**
   * One arm's statistics.
   *
   * @param arm the arm's name
   * @param whole metrics over all evaluation jobs
   * @param countWindows metrics per equal-count window
   * @param timeWindows metrics per equal-time window
   * @param meanVsFifoCount the window-averaged change in mean latency against FIFO, equal-count
   *     windows, i.i.d. bootstrap; null for FIFO or when unevaluable
   * @param meanVsFifoTime the same over equal-time windows with the block bootstrap
   * @param predictedShare the share of jobs predicted, NaN without a predictor
   * @param outcomes the predictor's outcomes by name
   * @param promotions aging promotions
   */
  public record ArmResult(
      String arm,
      Map<String, Double> whole,
      Map<String, Map<String, Double>> countWindows,
      Map<String, Map<String, Double>> timeWindows,
      Interval meanVsFifoCount,
      Interval meanVsFifoTime,
      double predictedShare,
      Map<String, Long> outcomes,
      long promotions) {
    /** Checks and copies. */
    public ArmResult {
      Objects.requireNonNull(arm, "arm");
      whole = Map.copyOf(whole);
      outcomes = Map.copyOf(outcomes);
    }
  }

  /**
   * A gate judged on one windowing.
   *
   * @param gate "A" or "B"
   * @param arm the arm under test
   * @param windowing "7 equal-count windows, i.i.d. bootstrap" or the 28-window block variant
   * @param result the verdicts
   */
  public record GateOutcome(String gate, String arm, String windowing, GateResult result) {}

  private SimulationReport(
      String command, SimInput input, long seed, List<ArmResult> arms, List<GateOutcome> gates) {
    this.command = command;
    this.input = input;
    this.seed = seed;
    this.arms = List.copyOf(arms);
    this.gates = List.copyOf(gates);
  }

  /**
   * Simulates every arm and judges the gates.
   *
   * @param input the prepared trace
   * @param arms the arms; FIFO is added first when missing
   * @param seed the seed of random arms
   * @param command the command line that produced the report, shown at its top
   * @return the report
   */
  public static SimulationReport run(
      SimInput input, List<ArmDefinition> arms, long seed, String command) {
    List<ArmDefinition> all = new ArrayList<>();
    all.add(Arms.simulated(BASELINE));
    for (ArmDefinition a : arms) {
      if (!all.contains(a)) {
        all.add(a);
      }
    }
    Map<String, Map<String, Map<String, Double>>> count = new LinkedHashMap<>();
    Map<String, Map<String, Map<String, Double>>> time = new LinkedHashMap<>();
    List<ArmResult> partial = new ArrayList<>();
    for (ArmDefinition arm : all) {
      SimRun run = Simulator.run(input, arm, seed);
      Map<String, Map<String, Double>> c = WindowStats.byCount(run, 7);
      Map<String, Map<String, Double>> t = WindowStats.byTime(run, 28);
      count.put(arm.name(), c);
      time.put(arm.name(), t);
      partial.add(
          new ArmResult(
              arm.name(),
              WindowStats.whole(run),
              c,
              t,
              null,
              null,
              run.predictedShare(),
              run.outcomes(),
              run.promotions()));
    }
    Observations byCount = Observations.of(count);
    Observations byTime = Observations.of(time);
    Bootstrap iid = PercentileBootstrap.defaults();
    Bootstrap block = MovingBlockBootstrap.defaults();
    List<ArmResult> results = new ArrayList<>();
    for (ArmResult r : partial) {
      Interval ic = null;
      Interval it = null;
      if (!r.arm().equals(BASELINE)) {
        ic = meanChange(r.arm(), byCount, iid);
        it = meanChange(r.arm(), byTime, block);
      }
      results.add(
          new ArmResult(
              r.arm(),
              r.whole(),
              r.countWindows(),
              r.timeWindows(),
              ic,
              it,
              r.predictedShare(),
              r.outcomes(),
              r.promotions()));
    }
    List<GateOutcome> gates = new ArrayList<>();
    addGate(gates, "A", "predictive_warm", 1.25, count, byCount, byTime, iid, block);
    addGate(gates, "B", "predictive_warm+weights+pausing", 2.0, count, byCount, byTime, iid, block);
    return new SimulationReport(command, input, seed, results, gates);
  }

  private static Interval meanChange(String arm, Observations obs, Bootstrap bootstrap) {
    Verdict v =
        Gate.evaluate(new Criterion.Reduction("mean", "mean_ms", arm, BASELINE), obs, bootstrap);
    return v.interval();
  }

  private static void addGate(
      List<GateOutcome> gates,
      String name,
      String arm,
      double p99Limit,
      Map<String, ?> present,
      Observations byCount,
      Observations byTime,
      Bootstrap iid,
      Bootstrap block) {
    if (!present.containsKey(arm)) {
      return;
    }
    List<Criterion> criteria =
        List.of(
            new Criterion.Improvement("P1", "mean_ms", arm, BASELINE, -0.15),
            new Criterion.MaxRatio("G1", "p99_ms", arm, BASELINE, p99Limit, OptionalDouble.empty()),
            new Criterion.MaxRatio(
                "G2", "long_max_wait_ms", arm, BASELINE, 2.0, OptionalDouble.empty()));
    gates.add(
        new GateOutcome(
            name,
            arm,
            "7 equal-count windows, i.i.d. bootstrap",
            new Gate(criteria, iid).evaluate(byCount)));
    gates.add(
        new GateOutcome(
            name,
            arm,
            "28 equal-time windows, block bootstrap (4)",
            new Gate(criteria, block).evaluate(byTime)));
  }

  /** Returns the arms' statistics, FIFO first. */
  public List<ArmResult> arms() {
    return arms;
  }

  /** Returns the gates judged. */
  public List<GateOutcome> gates() {
    return gates;
  }

  /** Returns the input simulated. */
  public SimInput input() {
    return input;
  }

  /**
   * Returns the report as Markdown.
   *
   * @return the text, byte-identical for the same input, arms and seed
   */
  public String text() {
    StringBuilder s = new StringBuilder();
    s.append("# ")
        .append(input.trace().name())
        .append(String.format(Locale.ROOT, " at load %.2f%n%n", input.load()));
    s.append("Command: `").append(command).append("`\n\n");
    s.append(
        String.format(
            Locale.ROOT,
            "%,d history jobs, %,d evaluation jobs, %d workers, arrivals compressed %.4gx,"
                + " history tertiles %s and %s (short / medium / long), seed %d.%n%n",
            input.historyJobs(),
            input.evaluationJobs(),
            input.workers(),
            input.compress(),
            millis(input.tertileNanos(0) / 1e6),
            millis(input.tertileNanos(1) / 1e6),
            seed));
    s.append(
        "| arm | mean | whole-run vs FIFO | mean vs FIFO, 7 windows [95% CI] | mean vs FIFO, 28"
            + " windows, block [95% CI] | P50 | P99 | short P50 | long max wait | predicted |\n");
    s.append("|---|---|---|---|---|---|---|---|---|---|\n");
    double fifoMean = arms.get(0).whole().get("mean_ms");
    for (ArmResult r : arms) {
      Map<String, Double> w = r.whole();
      s.append("| ")
          .append(r.arm())
          .append(" | ")
          .append(millis(w.get("mean_ms")))
          .append(" | ")
          .append(r.arm().equals(BASELINE) ? "-" : pct(w.get("mean_ms") / fifoMean - 1))
          .append(" | ")
          .append(interval(r.meanVsFifoCount(), r.arm()))
          .append(" | ")
          .append(interval(r.meanVsFifoTime(), r.arm()))
          .append(" | ")
          .append(millis(w.get("p50_ms")))
          .append(" | ")
          .append(millis(w.get("p99_ms")))
          .append(" | ")
          .append(millis(w.get("short_p50_ms")))
          .append(" | ")
          .append(millis(w.get("long_max_wait_ms")))
          .append(" | ")
          .append(Double.isNaN(r.predictedShare()) ? "-" : pct0(r.predictedShare()))
          .append(" |\n");
    }
    s.append('\n');
    for (ArmResult r : arms) {
      if (!r.outcomes().isEmpty()) {
        s.append("Predictor outcomes, ").append(r.arm()).append(':');
        long total = r.outcomes().values().stream().mapToLong(Long::longValue).sum();
        for (var o : sortedOutcomes(r.outcomes()).entrySet()) {
          s.append(' ').append(o.getKey()).append(' ').append(pct0((double) o.getValue() / total));
        }
        s.append('\n');
      }
    }
    for (GateOutcome g : gates) {
      s.append(
          String.format(
              Locale.ROOT,
              "%nGate %s (%s), %s: %s%n",
              g.gate(),
              g.arm(),
              g.windowing(),
              g.result().passed() ? "PASSED" : "not passed"));
      for (Verdict v : g.result().verdicts()) {
        s.append("- ")
            .append(v.criterion().id())
            .append(' ')
            .append(v.criterion().rule())
            .append(": ")
            .append(v.status())
            .append(", ")
            .append(v.reason())
            .append('\n');
      }
    }
    return s.toString();
  }

  private static Map<String, Long> sortedOutcomes(Map<String, Long> outcomes) {
    Map<String, Long> m = new LinkedHashMap<>();
    for (io.harbinger.predictor.Outcome o : io.harbinger.predictor.Outcome.values()) {
      String k = o.name().toLowerCase(Locale.ROOT);
      if (outcomes.containsKey(k)) {
        m.put(k, outcomes.get(k));
      }
    }
    return m;
  }

  /**
   * Returns the report as JSON: the input, every arm's whole-run and per-window metrics, and the
   * gates.
   *
   * @return the JSON text, byte-identical for the same input, arms and seed
   */
  public String json() {
    Map<String, Object> root = new LinkedHashMap<>();
    root.put("command", command);
    root.put("trace", input.trace().name());
    root.put("load", input.load());
    root.put("workers", input.workers());
    root.put("history_jobs", input.historyJobs());
    root.put("evaluation_jobs", input.evaluationJobs());
    root.put("compress", input.compress());
    root.put("tertiles_ms", List.of(input.tertileNanos(0) / 1e6, input.tertileNanos(1) / 1e6));
    root.put("seed", seed);
    List<Object> armList = new ArrayList<>();
    for (ArmResult r : arms) {
      Map<String, Object> a = new LinkedHashMap<>();
      a.put("arm", r.arm());
      a.put("whole", ordered(r.whole()));
      a.put("mean_vs_fifo_7_windows", interval(r.meanVsFifoCount()));
      a.put("mean_vs_fifo_28_windows_block", interval(r.meanVsFifoTime()));
      a.put("predicted_share", Double.isNaN(r.predictedShare()) ? null : r.predictedShare());
      a.put("outcomes", sortedOutcomes(r.outcomes()));
      a.put("promotions", r.promotions());
      a.put("windows_7", r.countWindows());
      a.put("windows_28", r.timeWindows());
      armList.add(a);
    }
    root.put("arms", armList);
    List<Object> gateList = new ArrayList<>();
    for (GateOutcome g : gates) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("gate", g.gate());
      m.put("arm", g.arm());
      m.put("windowing", g.windowing());
      m.put("passed", g.result().passed());
      List<Object> vs = new ArrayList<>();
      for (Verdict v : g.result().verdicts()) {
        Map<String, Object> vm = new LinkedHashMap<>();
        vm.put("id", v.criterion().id());
        vm.put("rule", v.criterion().rule());
        vm.put("status", v.status().name());
        vm.put("interval", interval(v.interval()));
        vm.put("reason", v.reason());
        vs.add(vm);
      }
      m.put("criteria", vs);
      gateList.add(m);
    }
    root.put("gates", gateList);
    try {
      return JSON.writeValueAsString(root) + "\n";
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot write the simulation report as JSON", e);
    }
  }

  private static Map<String, Double> ordered(Map<String, Double> metrics) {
    Map<String, Double> m = new LinkedHashMap<>();
    for (String k : WindowStats.METRICS) {
      if (metrics.containsKey(k)) {
        m.put(k, metrics.get(k));
      }
    }
    return m;
  }

  private static Map<String, Object> interval(Interval i) {
    if (i == null) {
      return null;
    }
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("point", i.point());
    m.put("low", i.low());
    m.put("high", i.high());
    m.put("n", i.n());
    return m;
  }

  private static String interval(Interval i, String arm) {
    if (arm.equals(BASELINE)) {
      return "-";
    }
    if (i == null) {
      return "unevaluable";
    }
    return pct(i.point()) + " [" + pct(i.low()) + ", " + pct(i.high()) + "]";
  }

  static String pct(double fraction) {
    return String.format(Locale.ROOT, "%+.1f%%", 100 * fraction);
  }

  private static String pct0(double fraction) {
    return String.format(Locale.ROOT, "%.1f%%", 100 * fraction);
  }

  /**
   * Formats milliseconds in ms, s or h with about three significant digits, never in E-notation.
   */
  static String millis(Double ms) {
    if (ms == null || ms.isNaN()) {
      return "-";
    }
    if (ms < 1000) {
      return digits(ms) + " ms";
    }
    if (ms < 3_600_000) {
      return digits(ms / 1000) + " s";
    }
    return digits(ms / 3_600_000) + " h";
  }

  private static String digits(double v) {
    String pattern = v >= 99.95 ? "%.0f" : v >= 9.995 ? "%.1f" : v >= 0.9995 ? "%.2f" : "%.3f";
    return String.format(Locale.ROOT, pattern, v);
  }
}
