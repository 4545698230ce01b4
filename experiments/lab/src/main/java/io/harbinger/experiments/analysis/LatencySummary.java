package io.harbinger.experiments.analysis;

import io.harbinger.experiments.stats.Percentiles;
import java.util.Arrays;

/**
 * Latency of a group of completed messages (a phase cohort or a job class).
 *
 * @param count completed messages in the group, at least 0
 * @param meanMillis mean latency, NaN when the group is empty
 * @param p50Millis nearest-rank median latency, NaN when empty
 * @param p99Millis nearest-rank P99 latency, NaN when empty
 * @param maxWaitMillis longest wait (submit to first start), NaN when empty
 * @param p50HandlerMillis nearest-rank median handler time (the service time), NaN when empty
 */
public record LatencySummary(
    int count,
    double meanMillis,
    double p50Millis,
    double p99Millis,
    double maxWaitMillis,
    double p50HandlerMillis) {

  /** The summary of no messages. */
  public static final LatencySummary EMPTY =
      new LatencySummary(0, Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN);

  /** Checks the count. */
  public LatencySummary {
    if (count < 0) {
      throw new IllegalArgumentException("count must be >= 0: " + count);
    }
  }

  /**
   * Summarises latencies and waits.
   *
   * @param latenciesMillis the latencies (not modified)
   * @param waitsMillis the waits of the same messages
   * @param handlerMillis the handler times of the same messages
   * @return the summary, {@link #EMPTY} for no values
   */
  static LatencySummary of(double[] latenciesMillis, double[] waitsMillis, double[] handlerMillis) {
    if (latenciesMillis.length == 0) {
      return EMPTY;
    }
    double[] sorted = latenciesMillis.clone();
    Arrays.sort(sorted);
    double maxWait = Double.NaN;
    for (double w : waitsMillis) {
      maxWait = Double.isNaN(maxWait) ? w : Math.max(maxWait, w);
    }
    return new LatencySummary(
        sorted.length,
        Percentiles.mean(sorted),
        Percentiles.nearestRankOfSorted(sorted, 50),
        Percentiles.nearestRankOfSorted(sorted, 99),
        maxWait,
        Percentiles.nearestRank(handlerMillis, 50));
  }
}
