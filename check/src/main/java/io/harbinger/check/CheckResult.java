package io.harbinger.check;

import io.harbinger.check.sim.WhatIf;
import io.harbinger.check.trace.ReadReport;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Everything {@link PredictabilityCheck} measured on one history, and its verdict. Shares are
 * fractions in [0, 1]; a metric over no rows is NaN (null in the command's JSON).
 *
 * @param history the trace specification that was read
 * @param input what the reader read, used and skipped
 * @param trace facts about the whole trace
 * @param split the history / held-out split and the tiers learned from the history
 * @param coverage which held-out jobs a per-key median can serve
 * @param perKey accuracy of each routable key's history median on its held-out jobs
 * @param global accuracy of the history's global median on the same jobs
 * @param spread within-key tail spread of the routable keys
 * @param replay what the real predictor would have done on the held-out jobs
 * @param fewObservations the same with the opt-in few-observation settings ({@code
 *     PredictorConfig.Builder.fewObservations()}); informational, the verdict uses {@code replay}
 * @param whatIf the simulated what-if
 * @param verdict the advice
 * @param reason why, with the numbers the rules compared
 * @param basis what the verdict was judged on: how much of the input was used, what was left out
 *     and why, how many held-out jobs and keys it rests on, and what the predictor refused
 */
public record CheckResult(
    String history,
    ReadReport input,
    TraceFacts trace,
    Split split,
    Coverage coverage,
    Accuracy perKey,
    Accuracy global,
    Spread spread,
    Replay replay,
    Replay fewObservations,
    WhatIf.Result whatIf,
    Advice verdict,
    String reason,
    String basis) {

  /** Checks that no part is missing. */
  public CheckResult {
    Objects.requireNonNull(history, "history");
    Objects.requireNonNull(input, "input");
    Objects.requireNonNull(trace, "trace");
    Objects.requireNonNull(split, "split");
    Objects.requireNonNull(coverage, "coverage");
    Objects.requireNonNull(perKey, "perKey");
    Objects.requireNonNull(global, "global");
    Objects.requireNonNull(spread, "spread");
    Objects.requireNonNull(replay, "replay");
    Objects.requireNonNull(fewObservations, "fewObservations");
    Objects.requireNonNull(whatIf, "whatIf");
    Objects.requireNonNull(verdict, "verdict");
    Objects.requireNonNull(reason, "reason");
    Objects.requireNonNull(basis, "basis");
  }

  /**
   * Facts about the whole trace.
   *
   * @param jobs jobs read
   * @param keys distinct keys
   * @param spanSeconds last arrival - first arrival
   * @param p50Seconds median duration (nearest rank)
   * @param p90Seconds 90th percentile duration
   * @param p99Seconds 99th percentile duration
   * @param maxSeconds longest duration
   * @param floorSeconds the floor applied to durations before taking logarithms and ratios
   * @param floorSource where the floor came from ("the trace's resolution" or "--floor-millis")
   */
  public record TraceFacts(
      int jobs,
      int keys,
      double spanSeconds,
      double p50Seconds,
      double p90Seconds,
      double p99Seconds,
      double maxSeconds,
      double floorSeconds,
      String floorSource) {}

  /**
   * The split by arrival and what the history defines.
   *
   * @param historyJobs the first half of the jobs by arrival, which trains the medians
   * @param heldOutJobs the rest, on which accuracy is measured
   * @param minObservations history observations a key needs to be routable
   * @param tier1Seconds the history's pooled first tertile: durations up to it are tier 0
   * @param tier2Seconds the second tertile: durations above it are tier 2
   * @param globalMedianSeconds the history's median duration over all keys
   */
  public record Split(
      int historyJobs,
      int heldOutJobs,
      int minObservations,
      double tier1Seconds,
      double tier2Seconds,
      double globalMedianSeconds) {}

  /**
   * Which jobs a per-key median can serve.
   *
   * @param shareOnKeysWithMinObservations share of all jobs whose key has at least minObservations
   *     jobs in the whole trace
   * @param historyKeys keys seen in the history
   * @param routableKeys history keys with at least minObservations history jobs
   * @param routableShare share of held-out jobs on routable keys
   * @param coldShare share of held-out jobs on keys seen in the history, but too few times
   * @param unseenShare share of held-out jobs on keys absent from the history
   */
  public record Coverage(
      double shareOnKeysWithMinObservations,
      int historyKeys,
      int routableKeys,
      double routableShare,
      double coldShare,
      double unseenShare) {}

  /**
   * Accuracy of a predictor of durations on held-out jobs.
   *
   * @param rows held-out jobs scored (those on routable keys)
   * @param medianAbsLog2Error median of |log2(predicted / actual)|, durations floored; 1 is a
   *     factor of 2
   * @param within2x share of rows predicted within a factor of 2
   * @param tierAccuracy share of rows whose predicted tier equals their actual tier
   */
  public record Accuracy(
      long rows, double medianAbsLog2Error, double within2x, double tierAccuracy) {}

  /**
   * The within-key ratio of the 99th percentile to the median, over routable keys' history
   * durations, as quantiles weighted by each key's history jobs.
   *
   * @param keys routable keys measured
   * @param p25 the ratio below which keys carrying 25% of the jobs lie
   * @param p50 the weighted median ratio
   * @param p75 the 75th weighted percentile
   * @param p90 the 90th weighted percentile
   */
  public record Spread(int keys, double p25, double p50, double p75, double p90) {}

  /**
   * The real predictor replayed over the trace in time order.
   *
   * @param setup how the predictor was configured and driven
   * @param heldOutJobs held-out jobs asked about
   * @param predictedShare share of held-out jobs the predictor routed by their key's estimate
   * @param outcomeShares share of held-out jobs by outcome (PREDICTED and each fallback reason), in
   *     the predictor's gate order
   * @param levelAccuracyOfPredicted share of predicted held-out jobs whose predicted level equals
   *     the level of their actual duration under the predictor's boundaries at that moment
   * @param rejectedObservations durations the predictor refused (over its one-day limit)
   * @param untrackedObservations observations of keys the predictor had no room for
   * @param estimatedGain the global safeguard's estimator ({@code PriorityGain}) over the held-out
   *     jobs, grouped by the level the predictor routes them at while it acts (its assignment, with
   *     unmeasured keys at the last level once it sends them there) with their actual durations:
   *     the share of FIFO's mean wait the routing would save at the safeguard's load; NaN when it
   *     cannot be made
   * @param gainNote how the estimate was made, or why it could not be
   * @param assignmentGain the same over the assignment alone (unmeasured keys at the default
   *     level), which is what the global safeguard itself judges; NaN when it cannot be made
   */
  public record Replay(
      String setup,
      long heldOutJobs,
      double predictedShare,
      Map<String, Double> outcomeShares,
      double levelAccuracyOfPredicted,
      long rejectedObservations,
      long untrackedObservations,
      double estimatedGain,
      String gainNote,
      double assignmentGain) {

    /** Copies the map, keeping its order. */
    public Replay {
      outcomeShares = Collections.unmodifiableMap(new LinkedHashMap<>(outcomeShares));
    }
  }
}
