package io.harbinger.experiments.sim;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.harbinger.experiments.stats.Interval;
import io.harbinger.experiments.stats.Verdict;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The formats a {@link SimulationReport} is written in: {@link #MARKDOWN} (table.md: the arms'
 * table, the predictor's outcomes and the gates) and {@link #JSON} (summary.json: the input, every
 * arm's whole-run and per-window metrics, and the gates). Both are byte-identical for the same
 * input, arms and seed.
 */
public enum SimulationFormat {
  /** table.md. */
  MARKDOWN,
  /** summary.json. */
  JSON;

  private static final ObjectMapper MAPPER =
      new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  /**
   * Renders a report.
   *
   * @param report the report
   * @return the text
   */
  public String render(SimulationReport report) {
    return this == MARKDOWN ? markdown(report) : json(report);
  }

  /**
   * Returns the report as Markdown.
   *
   * @return the text, byte-identical for the same input, arms and seed
   */
  static String markdown(SimulationReport report) {
    StringBuilder s = new StringBuilder();
    s.append("# ")
        .append(report.input().trace().name())
        .append(String.format(Locale.ROOT, " at load %.2f%n%n", report.input().load()));
    s.append("Command: `").append(report.command()).append("`\n\n");
    s.append(
        String.format(
            Locale.ROOT,
            "%,d history jobs, %,d evaluation jobs, %d workers, arrivals compressed %.4gx,"
                + " history tertiles %s and %s (short / medium / long), seed %d.%n%n",
            report.input().historyJobs(),
            report.input().evaluationJobs(),
            report.input().workers(),
            report.input().compress(),
            millis(report.input().tertileNanos(0) / 1e6),
            millis(report.input().tertileNanos(1) / 1e6),
            report.seed()));
    s.append(
        "| arm | mean | whole-run vs FIFO | mean vs FIFO, 7 windows [95% CI] | mean vs FIFO, 28"
            + " windows, block [95% CI] | P50 | P99 | short P50 | long max wait | predicted |\n");
    s.append("|---|---|---|---|---|---|---|---|---|---|\n");
    double fifoMean = report.arms().get(0).whole().get("mean_ms");
    for (SimulationReport.ArmResult r : report.arms()) {
      Map<String, Double> w = r.whole();
      s.append("| ")
          .append(r.arm())
          .append(" | ")
          .append(millis(w.get("mean_ms")))
          .append(" | ")
          .append(
              r.arm().equals(SimulationReport.BASELINE)
                  ? "-"
                  : pct(w.get("mean_ms") / fifoMean - 1))
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
    for (SimulationReport.ArmResult r : report.arms()) {
      if (!r.outcomes().isEmpty()) {
        s.append("Predictor outcomes, ").append(r.arm()).append(':');
        long total = r.outcomes().values().stream().mapToLong(Long::longValue).sum();
        for (var o : sortedOutcomes(r.outcomes()).entrySet()) {
          s.append(' ').append(o.getKey()).append(' ').append(pct0((double) o.getValue() / total));
        }
        s.append('\n');
      }
    }
    for (SimulationReport.GateOutcome g : report.gates()) {
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
  static String json(SimulationReport report) {
    Map<String, Object> root = new LinkedHashMap<>();
    root.put("command", report.command());
    root.put("trace", report.input().trace().name());
    root.put("load", report.input().load());
    root.put("workers", report.input().workers());
    root.put("history_jobs", report.input().historyJobs());
    root.put("evaluation_jobs", report.input().evaluationJobs());
    root.put("compress", report.input().compress());
    root.put(
        "tertiles_ms",
        List.of(report.input().tertileNanos(0) / 1e6, report.input().tertileNanos(1) / 1e6));
    root.put("seed", report.seed());
    List<Object> armList = new ArrayList<>();
    for (SimulationReport.ArmResult r : report.arms()) {
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
    for (SimulationReport.GateOutcome g : report.gates()) {
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
      return MAPPER.writeValueAsString(root) + "\n";
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
    if (arm.equals(SimulationReport.BASELINE)) {
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
