package io.harbinger.experiments.sim;

import io.harbinger.check.sim.SimInput;
import io.harbinger.check.sim.SimRun;
import io.harbinger.experiments.stats.Percentiles;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Latency metrics of a simulated run, over the whole evaluation and per window.
 *
 * <p>Example: with 7 equal-count windows, window 1 holds evaluation jobs [0, n/7) by arrival; with
 * 28 equal-time windows, window 1 holds the jobs that arrived in the first 28th of the evaluation
 * span. Each window gets the metrics of {@link #METRICS}; times are milliseconds.
 *
 * <p>Implementation notes (seed paper sections 4 and 5.2, with the original simulator's metric
 * definitions): latency = end - arrival, wait = start - arrival; percentiles are nearest-rank;
 * slowdown = latency / duration with the duration floored at 1 ms so that zero-length jobs do not
 * divide by zero; classes are the history tertiles of {@link SimInput#tierOf}; {@code
 * long_max_wait_ms} is the longest wait of a long job. A metric with no job to measure (an empty
 * class or window) is left out, so pairing skips it rather than reading a zero.
 */
public final class WindowStats {

  /** The metric names, in report order. */
  public static final List<String> METRICS =
      List.of(
          "count",
          "mean_ms",
          "p50_ms",
          "p95_ms",
          "p99_ms",
          "slowdown_p50",
          "slowdown_p99",
          "long_max_wait_ms",
          "short_mean_ms",
          "short_p50_ms",
          "medium_mean_ms",
          "medium_p50_ms",
          "long_mean_ms",
          "long_p50_ms");

  private static final double MS = 1e6;
  private static final String[] CLASSES = {"short", "medium", "long"};

  private WindowStats() {}

  /**
   * Returns the metrics over all evaluation jobs.
   *
   * @param run the run
   * @return metric name to value
   */
  public static Map<String, Double> whole(SimRun run) {
    int[] all = new int[run.jobs()];
    Arrays.setAll(all, i -> i);
    return metrics(run, all, all.length);
  }

  /**
   * Returns the metrics of equal-count windows: window w (from 1) holds jobs [n(w-1)/k, nw/k).
   *
   * @param run the run
   * @param windows the number of windows, in [1, jobs]
   * @return window number ("1", "2", ...) to metrics
   */
  public static Map<String, Map<String, Double>> byCount(SimRun run, int windows) {
    int n = run.jobs();
    if (windows < 1 || windows > n) {
      throw new IllegalArgumentException("windows must be in [1, " + n + "]: " + windows);
    }
    Map<String, Map<String, Double>> out = new LinkedHashMap<>();
    for (int w = 0; w < windows; w++) {
      int from = (int) ((long) n * w / windows);
      int to = (int) ((long) n * (w + 1) / windows);
      int[] jobs = new int[to - from];
      Arrays.setAll(jobs, i -> from + i);
      out.put(Integer.toString(w + 1), metrics(run, jobs, jobs.length));
    }
    return out;
  }

  /**
   * Returns the metrics of equal-time windows over the evaluation's arrival span; empty windows are
   * left out.
   *
   * @param run the run
   * @param windows the number of windows, in [1, 10000]
   * @return window number ("1", "2", ...) to metrics
   */
  public static Map<String, Map<String, Double>> byTime(SimRun run, int windows) {
    if (windows < 1 || windows > 10_000) {
      throw new IllegalArgumentException("windows must be in [1, 10000]: " + windows);
    }
    SimInput input = run.input();
    int n = run.jobs();
    long first = input.arrivalNanos(0);
    double span = input.arrivalNanos(n - 1) - first + 1.0;
    Map<String, Map<String, Double>> out = new LinkedHashMap<>();
    int from = 0;
    while (from < n) {
      int w = windowOf(input.arrivalNanos(from) - first, windows, span);
      int to = from + 1;
      while (to < n && windowOf(input.arrivalNanos(to) - first, windows, span) == w) {
        to++;
      }
      int[] jobs = new int[to - from];
      int base = from;
      Arrays.setAll(jobs, k -> base + k);
      out.put(Integer.toString(w + 1), metrics(run, jobs, jobs.length));
      from = to;
    }
    return out;
  }

  /** Arrivals are sorted, so each equal-time window is a contiguous range of jobs. */
  private static int windowOf(long offsetNanos, int windows, double span) {
    return Math.min(windows - 1, (int) (offsetNanos * (double) windows / span));
  }

  private static Map<String, Double> metrics(SimRun run, int[] jobs, int count) {
    SimInput input = run.input();
    double[] latency = new double[count];
    double[] slowdown = new double[count];
    double[][] byClass = new double[3][count];
    int[] classCount = new int[3];
    double longMaxWait = Double.NaN;
    double sum = 0;
    for (int k = 0; k < count; k++) {
      int i = jobs[k];
      long duration = input.durationNanos(i);
      double l = run.latencyNanos(i) / MS;
      latency[k] = l;
      sum += l;
      slowdown[k] = l / Math.max(duration / MS, 1.0);
      int c = input.tierOf(duration);
      byClass[c][classCount[c]++] = l;
      if (c == 2) {
        double wait = run.waitNanos(i) / MS;
        longMaxWait = Double.isNaN(longMaxWait) ? wait : Math.max(longMaxWait, wait);
      }
    }
    Map<String, Double> m = new LinkedHashMap<>();
    m.put("count", (double) count);
    if (count == 0) {
      return m;
    }
    Arrays.sort(latency);
    Arrays.sort(slowdown);
    m.put("mean_ms", sum / count);
    m.put("p50_ms", Percentiles.nearestRankOfSorted(latency, 50));
    m.put("p95_ms", Percentiles.nearestRankOfSorted(latency, 95));
    m.put("p99_ms", Percentiles.nearestRankOfSorted(latency, 99));
    m.put("slowdown_p50", Percentiles.nearestRankOfSorted(slowdown, 50));
    m.put("slowdown_p99", Percentiles.nearestRankOfSorted(slowdown, 99));
    if (!Double.isNaN(longMaxWait)) {
      m.put("long_max_wait_ms", longMaxWait);
    }
    for (int c = 0; c < 3; c++) {
      if (classCount[c] > 0) {
        double[] v = Arrays.copyOf(byClass[c], classCount[c]);
        Arrays.sort(v);
        double s = 0;
        for (double x : v) {
          s += x;
        }
        m.put(CLASSES[c] + "_mean_ms", s / v.length);
        m.put(CLASSES[c] + "_p50_ms", Percentiles.nearestRankOfSorted(v, 50));
      }
    }
    Map<String, Double> ordered = new LinkedHashMap<>();
    for (String name : METRICS) {
      if (m.containsKey(name)) {
        ordered.put(name, m.get(name));
      }
    }
    return ordered;
  }
}
