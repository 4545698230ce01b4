package io.harbinger.experiments.analysis;

import io.harbinger.experiments.stats.Percentiles;
import io.harbinger.experiments.workload.JobType;
import io.harbinger.experiments.workload.MessageRecord;
import io.harbinger.experiments.workload.Phase;
import io.harbinger.experiments.workload.RunRecord;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The metrics of one run: what the analysis pairs across arms.
 *
 * <p>Example: a run whose 4 completed messages took 10, 20, 30 and 400 ms has mean 115 ms, P50 20
 * ms and P99 400 ms (nearest rank).
 *
 * <p>Implementation notes: the metrics of the original implementation's production-flow report.
 * Latency = end - submit and wait = first start - submit, over completed messages; percentiles are
 * nearest-rank; the short class is reserve_inventory, push_notification, reindex_product and
 * generate_invoice together; "export max wait" is the longest wait of any export_report; throughput
 * = completed / (last end - first submit). Phases are cohorts by arrival phase. A run with no
 * completed message has NaN latency metrics, which makes every paired criterion on it unevaluable.
 *
 * @param arm the arm
 * @param seed the seed
 * @param timeScale the run's time scale (a latency in a compressed run is compressed too)
 * @param messages messages in the run
 * @param completed messages completed
 * @param deadLettered messages dead-lettered
 * @param lost messages neither completed nor dead-lettered
 * @param submitErrors failed publishes
 * @param all latency summary of every completed message
 * @param shortClass latency summary of the short classes
 * @param exportMaxWaitMillis longest wait of an export_report, NaN when none started
 * @param throughputPerSecond completed per second of run, NaN when nothing completed
 * @param meanWaitMillis mean wait of completed messages, NaN when none
 * @param slowdownP50 nearest-rank median of latency / max(handler, 1 ms), NaN when none
 * @param slowdownP99 nearest-rank P99 of the slowdown, NaN when none
 * @param byPhase latency summary per arrival phase, every phase present
 * @param byClass latency summary per job type, every type present
 */
public record RunMetrics(
    String arm,
    long seed,
    double timeScale,
    int messages,
    int completed,
    int deadLettered,
    int lost,
    long submitErrors,
    LatencySummary all,
    LatencySummary shortClass,
    double exportMaxWaitMillis,
    double throughputPerSecond,
    double meanWaitMillis,
    double slowdownP50,
    double slowdownP99,
    Map<Phase, LatencySummary> byPhase,
    Map<JobType, LatencySummary> byClass) {

  /** Mean latency of all completed messages, ms. */
  public static final String MEAN_MS = "mean_ms";

  /** Median latency, ms. */
  public static final String P50_MS = "p50_ms";

  /** P99 latency, ms. */
  public static final String P99_MS = "p99_ms";

  /** Median latency of the short classes, ms. */
  public static final String SHORT_P50_MS = "short_p50_ms";

  /** Longest export_report wait, ms. */
  public static final String EXPORT_MAX_WAIT_MS = "export_max_wait_ms";

  /** Completed messages per second. */
  public static final String THROUGHPUT_PER_S = "throughput_per_s";

  /** Messages that did not complete. */
  public static final String NOT_COMPLETED = "not_completed";

  /** Messages dead-lettered. */
  public static final String DEAD_LETTERED = "dead_lettered";

  /** Messages lost. */
  public static final String LOST = "lost";

  /** Failed publishes. */
  public static final String SUBMIT_ERRORS = "submit_errors";

  /** The headline metrics, in report order. */
  public static final List<String> HEADLINE =
      List.of(MEAN_MS, P50_MS, P99_MS, SHORT_P50_MS, EXPORT_MAX_WAIT_MS, THROUGHPUT_PER_S);

  /** Checks the counts and copies the maps. */
  public RunMetrics {
    Objects.requireNonNull(arm, "arm");
    Objects.requireNonNull(all, "all");
    Objects.requireNonNull(shortClass, "shortClass");
    if (messages < 0 || completed < 0 || deadLettered < 0 || lost < 0 || submitErrors < 0) {
      throw new IllegalArgumentException("counts must be >= 0");
    }
    if (completed + deadLettered + lost != messages) {
      throw new IllegalArgumentException(
          "completed + dead-lettered + lost must equal messages: "
              + completed
              + " + "
              + deadLettered
              + " + "
              + lost
              + " != "
              + messages);
    }
    byPhase = Collections.unmodifiableMap(new EnumMap<>(byPhase));
    byClass = Collections.unmodifiableMap(new EnumMap<>(byClass));
  }

  /**
   * Computes a run's metrics.
   *
   * @param run the run
   * @return its metrics
   */
  public static RunMetrics of(RunRecord run) {
    List<MessageRecord> done = new ArrayList<>();
    int deadLettered = 0;
    int lost = 0;
    long firstSubmit = Long.MAX_VALUE;
    long lastEnd = Long.MIN_VALUE;
    double exportMaxWait = Double.NaN;
    for (MessageRecord m : run.messages()) {
      firstSubmit = Math.min(firstSubmit, m.submitNanos());
      if (m.jobType() == JobType.EXPORT_REPORT && !Double.isNaN(m.waitMillis())) {
        exportMaxWait =
            Double.isNaN(exportMaxWait) ? m.waitMillis() : Math.max(exportMaxWait, m.waitMillis());
      }
      switch (m.outcome()) {
        case COMPLETED -> {
          done.add(m);
          lastEnd = Math.max(lastEnd, m.endNanos());
        }
        case DEAD_LETTERED -> deadLettered++;
        case LOST -> lost++;
      }
    }
    Map<Phase, LatencySummary> byPhase = new EnumMap<>(Phase.class);
    for (Phase p : Phase.values()) {
      byPhase.put(p, summarise(done.stream().filter(m -> m.phase() == p).toList()));
    }
    Map<JobType, LatencySummary> byClass = new EnumMap<>(JobType.class);
    for (JobType t : JobType.values()) {
      byClass.put(t, summarise(done.stream().filter(m -> m.jobType() == t).toList()));
    }
    double throughput = Double.NaN;
    if (!done.isEmpty() && lastEnd > firstSubmit) {
      throughput = done.size() / ((lastEnd - firstSubmit) / 1e9);
    }
    double meanWait = Double.NaN;
    double slowP50 = Double.NaN;
    double slowP99 = Double.NaN;
    if (!done.isEmpty()) {
      meanWait = done.stream().mapToDouble(MessageRecord::waitMillis).average().orElseThrow();
      double[] slow = done.stream().mapToDouble(MessageRecord::slowdown).toArray();
      Arrays.sort(slow);
      slowP50 = Percentiles.nearestRankOfSorted(slow, 50);
      slowP99 = Percentiles.nearestRankOfSorted(slow, 99);
    }
    return new RunMetrics(
        run.arm(),
        run.seed(),
        run.config().timeScale(),
        run.messages().size(),
        done.size(),
        deadLettered,
        lost,
        run.submitErrors(),
        summarise(done),
        summarise(done.stream().filter(m -> m.jobType().shortClass()).toList()),
        exportMaxWait,
        throughput,
        meanWait,
        slowP50,
        slowP99,
        byPhase,
        byClass);
  }

  private static LatencySummary summarise(List<MessageRecord> done) {
    double[] latencies = done.stream().mapToDouble(MessageRecord::latencyMillis).toArray();
    double[] waits = done.stream().mapToDouble(MessageRecord::waitMillis).toArray();
    double[] handlers = done.stream().mapToDouble(MessageRecord::handlerMillis).toArray();
    return LatencySummary.of(latencies, waits, handlers);
  }

  /**
   * Returns every metric by name: the headline metrics, the counts, and {@code phase.<phase>.<m>}
   * and {@code class.<job_type>.<m>} for m in mean_ms, p50_ms, p99_ms.
   *
   * @return metric name to value, in a stable order; NaN where undefined
   */
  public Map<String, Double> values() {
    Map<String, Double> v = new LinkedHashMap<>();
    v.put(MEAN_MS, all.meanMillis());
    v.put(P50_MS, all.p50Millis());
    v.put(P99_MS, all.p99Millis());
    v.put(SHORT_P50_MS, shortClass.p50Millis());
    v.put(EXPORT_MAX_WAIT_MS, exportMaxWaitMillis);
    v.put(THROUGHPUT_PER_S, throughputPerSecond);
    v.put("mean_wait_ms", meanWaitMillis);
    v.put("slowdown_p50", slowdownP50);
    v.put("slowdown_p99", slowdownP99);
    v.put("messages", (double) messages);
    v.put("completed", (double) completed);
    v.put(NOT_COMPLETED, (double) (messages - completed));
    v.put(DEAD_LETTERED, (double) deadLettered);
    v.put(LOST, (double) lost);
    v.put(SUBMIT_ERRORS, (double) submitErrors);
    byPhase.forEach((p, s) -> putSummary(v, "phase." + p.wireName() + ".", s));
    byClass.forEach((t, s) -> putSummary(v, "class." + t.wireName() + ".", s));
    return v;
  }

  private static void putSummary(Map<String, Double> v, String prefix, LatencySummary s) {
    v.put(prefix + "count", (double) s.count());
    v.put(prefix + MEAN_MS, s.meanMillis());
    v.put(prefix + P50_MS, s.p50Millis());
    v.put(prefix + P99_MS, s.p99Millis());
  }
}
