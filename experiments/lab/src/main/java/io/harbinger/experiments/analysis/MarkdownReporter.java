package io.harbinger.experiments.analysis;

import io.harbinger.experiments.stats.Gate;
import io.harbinger.experiments.stats.GateResult;
import io.harbinger.experiments.stats.MetricDelta;
import io.harbinger.experiments.stats.MovingBlockBootstrap;
import io.harbinger.experiments.stats.PairedStatistic;
import io.harbinger.experiments.stats.PairedValues;
import io.harbinger.experiments.stats.Pairing;
import io.harbinger.experiments.stats.Percentiles;
import io.harbinger.experiments.stats.Verdict;
import io.harbinger.experiments.workload.JobType;
import io.harbinger.experiments.workload.Phase;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * Writes an {@link Analysis} as report.md: losses first, then the per-arm, per-phase and per-class
 * tables, then every compared arm's gate and deltas, then the secondary criteria. Stateless and
 * thread-safe.
 */
final class MarkdownReporter {

  private MarkdownReporter() {}

  /**
   * Returns the report as markdown: losses first, then the per-arm, per-phase and per-class tables,
   * then every arm's deltas and verdicts.
   *
   * @param an the analysis
   * @return the markdown text
   */
  static String render(Analysis an) {
    StringBuilder md = new StringBuilder();
    md.append("# Production-flow analysis\n\n");
    md.append(
        String.format(
            Locale.ROOT,
            "Runs: %d arms, time scale %s. Tables show the median over seeds. Deltas are paired"
                + " by seed against each arm's FIFO baseline: mean of the per-seed relative"
                + " changes with a %s 95%% interval (%d resamples).%n%n",
            an.arms().size(),
            Text.trim(an.timeScale()),
            an.bootstrap() instanceof MovingBlockBootstrap
                ? "moving-block"
                : "percentile-bootstrap",
            an.bootstrap().resamples()));
    for (String arm : an.arms()) {
      an.runs(arm)
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
    for (String arm : an.arms()) {
      md.append(
          String.format(
              Locale.ROOT,
              "| %s | %s | %d | %s | %s | %s | %s | %s | %s/s | %d |%n",
              arm,
              Objects.requireNonNullElse(an.baseline(arm), "-"),
              an.runs(arm).size(),
              Text.ms(an.median(arm, RunMetrics.MEAN_MS)),
              Text.ms(an.median(arm, RunMetrics.P50_MS)),
              Text.ms(an.median(arm, RunMetrics.P99_MS)),
              Text.ms(an.median(arm, RunMetrics.SHORT_P50_MS)),
              Text.ms(an.median(arm, RunMetrics.EXPORT_MAX_WAIT_MS)),
              Text.number(an.median(arm, RunMetrics.THROUGHPUT_PER_S)),
              an.notCompletedTotal(arm)));
    }
    md.append("\n## Mean latency by phase\n\n");
    md.append(
        "Median over seeds of each phase's mean latency (cohort by arrival phase); for compared"
            + " arms, the mean paired change against the baseline with the smallest and largest"
            + " seed in brackets.\n\n");
    md.append("| phase |");
    an.arms().forEach(a -> md.append(' ').append(a).append(" |"));
    md.append("\n|---|");
    an.arms().forEach(a -> md.append("---:|"));
    md.append('\n');
    for (Phase p : Phase.values()) {
      md.append("| ").append(p.wireName()).append(" |");
      String metric = "phase." + p.wireName() + ".mean_ms";
      for (String arm : an.arms()) {
        md.append(' ').append(Text.ms(an.median(arm, metric)));
        String base = an.baseline(arm);
        if (base != null) {
          md.append(' ').append(changeWithRange(an, arm, base, metric));
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
    an.arms().forEach(a -> md.append(' ').append(a).append(" |"));
    md.append("\n|---|---:|");
    an.arms().forEach(a -> md.append("---:|"));
    md.append('\n');
    for (JobType t : an.classesByServiceTime()) {
      md.append("| ")
          .append(t.wireName())
          .append(t.shortClass() ? " (short)" : "")
          .append(" | ")
          .append(Text.ms(an.serviceTime(t)))
          .append(" |");
      for (String arm : an.arms()) {
        md.append(' ')
            .append(Text.ms(an.median(arm, "class." + t.wireName() + ".p50_ms")))
            .append(" / ")
            .append(Text.ms(an.median(arm, "class." + t.wireName() + ".p99_ms")))
            .append(" |");
      }
      md.append('\n');
    }
    for (String arm : an.comparedArms()) {
      GateResult gate = an.gate(arm);
      md.append("\n## ")
          .append(arm)
          .append(" against ")
          .append(an.baseline(arm))
          .append(": gate ")
          .append(gate.passed() ? "PASSED" : "NOT PASSED")
          .append("\n\n");
      appendVerdicts(md, gate);
      md.append("\nAll headline deltas (relative change; for P99 and export wait, ratio - 1):\n\n");
      md.append("| metric | change [95% CI] | per seed |\n|---|---|---|\n");
      for (MetricDelta d : an.deltas(arm)) {
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
    if (an.secondary() != null) {
      md.append("\n## Secondary criteria: ")
          .append(an.secondary().passed() ? "all passed" : "NOT all passed")
          .append("\n\n");
      appendVerdicts(md, an.secondary());
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

  private static String changeWithRange(Analysis an, String arm, String base, String metric) {
    Map<String, Double> a = new LinkedHashMap<>();
    Map<String, Double> b = new LinkedHashMap<>();
    an.runs(arm).forEach((s, m) -> a.put(Long.toString(s), m.values().get(metric)));
    an.runs(base).forEach((s, m) -> b.put(Long.toString(s), m.values().get(metric)));
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
}
