package io.harbinger.predictor;

import java.util.List;

/**
 * The global safeguard's decision and its inputs, taken at one moment (see {@link
 * HistogramPredictor}, implementation notes on the safeguard).
 *
 * @param enabled whether the safeguard is configured on
 * @param holding whether the safeguard holds routing in FIFO order now: every message goes to the
 *     default level; in shadow mode this is what it would do
 * @param estimatedGain the share of FIFO's mean wait the current level assignment is estimated to
 *     save (negative when it costs), or NaN while the estimate cannot be made
 * @param load the per-worker load the estimate is evaluated at
 * @param margin the estimated gain below which the safeguard holds FIFO order; it releases at a
 *     gain above the margin by its hysteresis
 * @param reports the decayed weight of the reports the estimate is made from
 * @param jobShares each level's decayed share of the reported jobs, by the level the assignment
 *     gives their keys; empty before the first report
 * @param workShares each level's decayed share of the reported work (actual durations)
 * @param reason why the safeguard is in its state, in words: for example {@code "estimated gain
 *     -31.2% below the margin 2.0%"} or {@code "one level holds every job: no order to judge"}
 * @param holds how many times the safeguard started holding
 * @param tailWaitRatio the tail and sink guards' estimate: the mean wait of the latest-served level
 *     holding at least 1% of the jobs, over FIFO's mean wait; NaN while both are off or it cannot
 *     be made
 * @param lifting whether the tail guard routes keys placed below the default level at the default
 *     level now (in shadow mode: would)
 * @param lifts how many times the tail guard started lifting
 * @param sinking whether the sink guard routes untrusted keys left at the default level at the last
 *     level now (in shadow mode: would)
 * @param sinks how many times the sink guard started sinking
 */
public record SafeguardStatus(
    boolean enabled,
    boolean holding,
    double estimatedGain,
    double load,
    double margin,
    double reports,
    List<Double> jobShares,
    List<Double> workShares,
    String reason,
    long holds,
    double tailWaitRatio,
    boolean lifting,
    long lifts,
    boolean sinking,
    long sinks) {

  /** Copies the lists so the record stays immutable. */
  public SafeguardStatus {
    jobShares = List.copyOf(jobShares);
    workShares = List.copyOf(workShares);
  }
}
