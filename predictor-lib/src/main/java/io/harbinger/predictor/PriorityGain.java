package io.harbinger.predictor;

import java.util.Objects;

/**
 * The mean wait of non-preemptive priority levels relative to FIFO, from Cobham's formulas (seed
 * paper section 5.1 and Table 18).
 *
 * <p>Example: 90% of jobs take 1 ms and go to level 0, 10% take 10 ms and go to level 1. Level 0
 * then holds 90% of the jobs and 0.9 / 1.9 = 47% of the work; at load 0.5 {@code
 * meanWaitRatio({0.9, 0.1}, {0.47, 0.53}, 0.5)} is 0.72, the all-jobs entry of Table 18, and {@code
 * gain} is 0.28. Swap the levels (the long jobs first) and the ratio is 1.29: the order hurts.
 *
 * <p>Implementation notes. For one server with Poisson arrivals, Cobham gives level l the mean wait
 * W0 / ((1 - s(l-1)) (1 - s(l))), where s(l) is the load of levels 0..l and W0 the mean residual
 * work found by an arrival, and FIFO gives W0 / (1 - rho). W0 is the same under both orders (it
 * depends on every job's second moment, not on the order), so the ratio of the all-jobs means
 * depends only on each level's share of the jobs, its share of the work and the load: no second
 * moment is needed. Misplaced jobs count against the order through the work shares: a long job at
 * level 0 adds its actual duration to level 0's work. Several workers: the load is the per-worker
 * load (offered work per worker), the ratio approximation of Bondi and Buzen, which is exact for
 * M/M/c with equal service rates; {@code MultiWorkerGainTest} in the experiments module measures
 * its error against the simulator with 64 workers.
 *
 * <p>Stateless and thread-safe.
 */
public final class PriorityGain {

  private PriorityGain() {}

  /**
   * Returns the mean wait under priority levels divided by the mean wait under FIFO.
   *
   * @param jobShares each level's share of the jobs, level 0 first; non-negative, finite, summing
   *     to 1 within 1e-6
   * @param workShares each level's share of the work (summed durations), same length and rules
   * @param load the per-worker load, in (0, 1)
   * @return the ratio; below 1 when the order shortens the mean wait
   * @throws IllegalArgumentException when a rule is broken, naming it
   */
  public static double meanWaitRatio(double[] jobShares, double[] workShares, double load) {
    checkInputs(jobShares, workShares, load);
    double ratio = 0;
    double before = 0;
    for (int l = 0; l < jobShares.length; l++) {
      double through = Math.min(before + load * workShares[l], load);
      ratio += jobShares[l] * (1 - load) / ((1 - before) * (1 - through));
      before = through;
    }
    return ratio;
  }

  /**
   * Returns the mean wait of the latest-served level that holds at least {@code minJobShare} of the
   * jobs, divided by the mean wait under FIFO: how much longer than under FIFO the jobs served last
   * wait on average. The tail of the whole queue is theirs, so this is the estimator's view of the
   * tail; it is 1 / (1 - s) where s is the load of every level served before that one.
   *
   * <p>Example: one level of short jobs holding 30% of the work ahead of a level holding the rest,
   * at load 0.8: the second level waits 1 / (1 - 0.24) = 1.32 times as long as under FIFO. With 90%
   * of the work ahead of it (an undecided middle level above a few known long jobs) it waits 3.6
   * times as long.
   *
   * @param jobShares see {@link #meanWaitRatio}
   * @param workShares see {@link #meanWaitRatio}
   * @param load see {@link #meanWaitRatio}
   * @param minJobShare the share of the jobs a level needs to count, in (0, 1]
   * @return the ratio, at least 1 when some level counts; 1 when none does
   * @throws IllegalArgumentException when a rule is broken, naming it
   */
  public static double tailWaitRatio(
      double[] jobShares, double[] workShares, double load, double minJobShare) {
    checkInputs(jobShares, workShares, load);
    if (!(minJobShare > 0 && minJobShare <= 1)) {
      throw new IllegalArgumentException("minJobShare must be in (0, 1]: " + minJobShare);
    }
    double ratio = 1;
    double before = 0;
    for (int l = 0; l < jobShares.length; l++) {
      double through = Math.min(before + load * workShares[l], load);
      if (jobShares[l] >= minJobShare) {
        ratio = (1 - load) / ((1 - before) * (1 - through));
      }
      before = through;
    }
    return Math.max(ratio, 1);
  }

  /**
   * Returns the share of FIFO's mean wait that the levels save: {@code 1 - meanWaitRatio}.
   *
   * @param jobShares see {@link #meanWaitRatio}
   * @param workShares see {@link #meanWaitRatio}
   * @param load see {@link #meanWaitRatio}
   * @return positive when the order helps, negative when it hurts
   */
  public static double gain(double[] jobShares, double[] workShares, double load) {
    return 1 - meanWaitRatio(jobShares, workShares, load);
  }

  /**
   * An estimate from per-level totals, or why none can be made.
   *
   * @param gain see {@link #gain}; NaN when {@code problem} is set
   * @param problem why the order cannot be judged, or null when {@code gain} is known
   */
  public record Estimate(double gain, String problem) {

    /**
     * Returns whether the gain is known.
     *
     * @return true when no problem stopped the estimate
     */
    public boolean known() {
      return problem == null;
    }
  }

  /**
   * Estimates the gain from each level's job count and summed actual durations, naming the
   * degenerate cases instead of failing on them.
   *
   * @param jobs each level's (possibly decayed) job count, level 0 first; non-negative
   * @param work each level's summed durations, same length; non-negative
   * @param load the per-worker load, in (0, 1)
   * @return the estimate, or the problem: no jobs, one level holding every job, zero durations
   */
  public static Estimate fromTotals(double[] jobs, double[] work, double load) {
    return fromTotals(jobs, work, load, new double[jobs.length], new double[jobs.length]);
  }

  /**
   * {@link #fromTotals(double[], double[], double)} with the shares computed in arrays the caller
   * owns, so that a caller judging on every report allocates nothing for them.
   */
  static Estimate fromTotals(double[] jobs, double[] work, double load, double[] js, double[] ws) {
    double jobTotal = 0;
    double workTotal = 0;
    for (int l = 0; l < jobs.length; l++) {
      jobTotal += jobs[l];
      workTotal += work[l];
    }
    if (!(jobTotal > 0)) {
      return new Estimate(Double.NaN, "no jobs: no order to judge");
    }
    int used = 0;
    for (double j : jobs) {
      if (j > 1e-9 * jobTotal) {
        used++;
      }
    }
    if (used < 2) {
      return new Estimate(Double.NaN, "one level holds every job: no order to judge");
    }
    if (!(workTotal > 0)) {
      return new Estimate(Double.NaN, "every duration is zero: no order to judge");
    }
    double jobSum = 0;
    double workSum = 0;
    for (int l = 0; l < jobs.length; l++) {
      js[l] = jobs[l] / jobTotal;
      ws[l] = work[l] / workTotal;
      jobSum += js[l];
      workSum += ws[l];
    }
    for (int l = 0; l < jobs.length; l++) {
      js[l] /= jobSum;
      ws[l] /= workSum;
    }
    return new Estimate(gain(js, ws, load), null);
  }

  private static void checkInputs(double[] jobShares, double[] workShares, double load) {
    Objects.requireNonNull(jobShares, "jobShares");
    Objects.requireNonNull(workShares, "workShares");
    if (jobShares.length != workShares.length || jobShares.length == 0) {
      throw new IllegalArgumentException(
          "jobShares and workShares must have the same non-zero length: "
              + jobShares.length
              + " and "
              + workShares.length);
    }
    checkShares("jobShares", jobShares);
    checkShares("workShares", workShares);
    if (!(load > 0 && load < 1)) {
      throw new IllegalArgumentException("load must be in (0, 1): " + load);
    }
  }

  private static void checkShares(String name, double[] shares) {
    double sum = 0;
    for (double s : shares) {
      if (!(s >= 0) || Double.isInfinite(s)) {
        throw new IllegalArgumentException(
            name + " must be non-negative and finite: " + java.util.Arrays.toString(shares));
      }
      sum += s;
    }
    if (Math.abs(sum - 1) > 1e-6) {
      throw new IllegalArgumentException(
          name + " must sum to 1: " + sum + " in " + java.util.Arrays.toString(shares));
    }
  }
}
