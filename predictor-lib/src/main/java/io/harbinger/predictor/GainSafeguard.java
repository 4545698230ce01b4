package io.harbinger.predictor;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The global safeguard: from the reports, estimates whether the current level assignment shortens
 * the mean wait against FIFO ({@link PriorityGain}), and holds routing in FIFO order while the
 * estimated gain is below a margin.
 *
 * <p>The estimate is made whether or not the safeguard may hold ({@code safeguard}): with it off
 * the levels are never held, but the estimate is still reported, and unmeasured keys still go last
 * once it exists ({@code untrustedLast} depends on the estimate, not on the hold).
 *
 * <p>Implementation notes. Each report adds its actual duration to the level the assignment gives
 * its key at that moment (before the report is learned), so a key placed too high counts against
 * the order with its real cost. Counts and work decay by {@code safeguardDecay} per report. The
 * safeguard starts holding when the gain falls below {@code safeguardMargin} and stops when it
 * reaches the margin plus {@code safeguardHysteresis}. While the estimate cannot be made (too few
 * reports, one level holding every job, zero durations), the decision stays as it is and the reason
 * says why.
 *
 * <p>The tail guard (with {@code tailLimit}): from the same totals, the mean wait of the
 * latest-served level holding at least {@value #TAIL_MIN_JOB_SHARE} of the jobs against FIFO's
 * ({@link PriorityGain#tailWaitRatio}). While it exceeds the limit, the guard lifts: keys the
 * assignment places below the default level are routed at the default level, so the jobs known to
 * be long queue in arrival order with the undecided ones instead of behind all of them. It stops
 * lifting when the ratio falls below {@value #TAIL_RELEASE} of the limit. The ratio is judged on
 * the assignment, not on the routing, so lifting does not hide what it lifts.
 *
 * <p>The sink guard (with {@code tailSink}) judges the same ratio and acts the other way: while it
 * exceeds the limit, keys the assignment leaves at the default level for want of a prediction of
 * their own are routed at the last level, so that the work nobody has estimated queues with the
 * long jobs in arrival order instead of ahead of them. It stops below {@value #TAIL_RELEASE} of the
 * limit. It too is judged on the assignment (untrusted keys at the default level), so sinking does
 * not hide the work it moves, and it does not oscillate.
 *
 * <p>Producers (see {@link ProducerWeights}): each report is also kept under its producer, in
 * scaled units (the totals' decay as a growing increment, as in {@link DurationHistogram}). While a
 * producer holds more of the decayed reports than its limit, the gain and the tail ratio are
 * estimated from the totals with every such producer's jobs and work scaled down to its limit, so
 * that one producer's reports, however many, hold at most that share of the jobs the estimate is
 * made from: 20,000 reports of 30 minutes from one producer weigh as much as its limit allows, not
 * as the 98% of the jobs they would otherwise be. Reports beyond a producer's limit do not count
 * towards the minimum of reports either: while the reports within the limits are fewer, the
 * decision stays as it is, so a flood while the other producers are silent (or just after a
 * restart, the safeguard's memory being empty) neither holds nor releases FIFO order. With no
 * producer over its limit (always so with a single producer), the totals are used as they are.
 *
 * <p>Assumptions and guarantees: thread-safe; {@link #record} and {@link #status} hold this
 * object's lock for a few array operations (for a number of operations proportional to the
 * producers tracked while a producer is capped), {@link #holding} is a volatile read. {@link
 * #record} and {@link #limits} are called with the pooled histogram's lock held.
 */
final class GainSafeguard {

  /** Share of the jobs a level needs for the tail guard to judge its wait: 1%, the P99's share. */
  static final double TAIL_MIN_JOB_SHARE = 0.01;

  /** The tail guard stops lifting below this share of its limit. */
  static final double TAIL_RELEASE = 0.9;

  private final boolean enabled;
  private final TailLatch lift;
  private final TailLatch sink;
  private final double margin;
  private final double hysteresis;
  private final double load;
  private final double minReports;
  private final double decay;
  private final double[] jobs;
  private final double[] work;
  private double total;
  private final double[][] producerJobs;
  private final double[][] producerWork;
  private final double[] producerTotals = new double[ProducerWeights.ENTRIES];
  private final double[] limits = new double[ProducerWeights.ENTRIES];
  private final double[] longRun = new double[ProducerWeights.ENTRIES];
  private final double[] factors = new double[ProducerWeights.ENTRIES];
  private final byte[] scratch = new byte[ProducerWeights.ENTRIES];
  private final double[] cappedJobs;
  private final double[] cappedWork;

  /** Scratch for the per-level shares of each judgement, under the lock. */
  private final double[] jobShares;

  private final double[] workShares;
  private final double inverseDecay;
  private double producerSum;
  private double scale = 1;
  private boolean overLimit;
  private boolean capping;
  private double withinLimits = 1;
  private double gain = Double.NaN;
  private Basis basis = Basis.NO_REPORTS;
  private String problem;
  private double reasonCount;
  private boolean reasonCapping;
  private long holds;
  private volatile boolean holding;
  private volatile boolean judged;
  private double tailRatio = Double.NaN;

  GainSafeguard(PredictorConfig config, PredictorTuning tuning) {
    enabled = config.safeguard();
    margin = tuning.safeguardMargin();
    hysteresis = tuning.safeguardHysteresis();
    load = tuning.safeguardLoad();
    minReports = tuning.safeguardMinReports();
    decay = tuning.safeguardDecay();
    lift = new TailLatch(tuning.tailLimit());
    sink = new TailLatch(tuning.tailSink());
    jobs = new double[config.levels()];
    work = new double[config.levels()];
    inverseDecay = 1 / decay;
    producerJobs = new double[ProducerWeights.ENTRIES][config.levels()];
    producerWork = new double[ProducerWeights.ENTRIES][config.levels()];
    cappedJobs = new double[config.levels()];
    cappedWork = new double[config.levels()];
    jobShares = new double[config.levels()];
    workShares = new double[config.levels()];
    java.util.Arrays.fill(limits, Double.POSITIVE_INFINITY);
    java.util.Arrays.fill(longRun, 1);
  }

  /** Returns whether routing is held in FIFO order. */
  boolean holding() {
    return holding;
  }

  /** Returns whether the gain has been estimated at least once. */
  boolean judged() {
    return judged;
  }

  /** Returns whether the tail guard routes keys placed below the default level at the default. */
  boolean lifting() {
    return lift.on;
  }

  /** Returns whether the sink guard routes untrusted keys at the default level at the last. */
  boolean sinking() {
    return sink.on;
  }

  /**
   * Records one report.
   *
   * @param producer the report's producer entry in {@link ProducerWeights}
   * @param level the level the current assignment gives the report's key
   * @param durationNanos the actual duration, finite and non-negative
   */
  synchronized void record(int producer, int level, double durationNanos) {
    total = total * decay + 1;
    for (int l = 0; l < jobs.length; l++) {
      jobs[l] *= decay;
      work[l] *= decay;
    }
    jobs[level] += 1;
    work[level] += durationNanos;
    producerJobs[producer][level] += scale;
    producerWork[producer][level] += scale * durationNanos;
    producerTotals[producer] += scale;
    producerSum += scale;
    scale *= inverseDecay;
    if (scale > DurationHistogram.RENORMALISE_ABOVE) {
      for (int e = 0; e < ProducerWeights.ENTRIES; e++) {
        for (int l = 0; l < jobs.length; l++) {
          producerJobs[e][l] /= scale;
          producerWork[e][l] /= scale;
        }
        producerTotals[e] /= scale;
      }
      producerSum /= scale;
      scale = 1;
    }
    if (overLimit || producerTotals[producer] > limits[producer] * producerSum) {
      recap();
    }
    judge();
  }

  /**
   * Takes the producers' limits from the pooled histogram's last refresh.
   *
   * @param producers the producer table, just refreshed
   * @param dropped a bit per tracked entry whose producer was dropped or replaced: its reports join
   *     the untracked entry's
   */
  synchronized void limits(ProducerWeights producers, long dropped) {
    for (int e = 0; e < ProducerWeights.ENTRIES; e++) {
      limits[e] = producers.limit(e);
      longRun[e] = producers.longRunShare(e);
      if (e < ProducerWeights.MAX_TRACKED && (dropped & (1L << e)) != 0) {
        int u = ProducerWeights.UNTRACKED;
        for (int l = 0; l < jobs.length; l++) {
          producerJobs[u][l] += producerJobs[e][l];
          producerWork[u][l] += producerWork[e][l];
          producerJobs[e][l] = 0;
          producerWork[e][l] = 0;
        }
        producerTotals[u] += producerTotals[e];
        producerTotals[e] = 0;
      }
    }
    recap();
  }

  /**
   * Recomputes the share of the reports within the producers' limits, which producers are capped
   * and, if any is, the capped totals.
   */
  private void recap() {
    boolean over = false;
    double within = 0;
    for (int e = 0; e < ProducerWeights.ENTRIES; e++) {
      double limit = limits[e] * producerSum;
      if (producerTotals[e] > limit) {
        over = true;
        within += limit;
      } else {
        within += producerTotals[e];
      }
    }
    overLimit = over;
    withinLimits = over ? Math.min(1, within / producerSum) : 1;
    capping = ProducerWeights.capFactors(producerTotals, longRun, limits, factors, scratch);
    if (!capping) {
      return;
    }
    java.util.Arrays.fill(cappedJobs, 0);
    java.util.Arrays.fill(cappedWork, 0);
    for (int e = 0; e < ProducerWeights.ENTRIES; e++) {
      if (producerTotals[e] > 0) {
        for (int l = 0; l < jobs.length; l++) {
          cappedJobs[l] += factors[e] * producerJobs[e][l];
          cappedWork[l] += factors[e] * producerWork[e][l];
        }
      }
    }
  }

  /** What the last judgement rested on; {@link #reason()} words it only when asked. */
  private enum Basis {
    NO_REPORTS,
    TOO_FEW,
    TOO_FEW_WITHIN_LIMITS,
    UNKNOWN,
    OFF,
    ESTIMATED
  }

  private void judge() {
    reasonCapping = capping;
    if (total < minReports) {
      gain = Double.NaN;
      basis = Basis.TOO_FEW;
      reasonCount = total;
      return;
    }
    if (overLimit && total * withinLimits < minReports) {
      gain = Double.NaN;
      basis = Basis.TOO_FEW_WITHIN_LIMITS;
      reasonCount = total * withinLimits;
      return;
    }
    PriorityGain.Estimate estimate =
        capping
            ? PriorityGain.fromTotals(cappedJobs, cappedWork, load, jobShares, workShares)
            : PriorityGain.fromTotals(jobs, work, load, jobShares, workShares);
    if (!estimate.known()) {
      gain = Double.NaN;
      basis = Basis.UNKNOWN;
      problem = estimate.problem();
      return;
    }
    gain = estimate.gain();
    judged = true;
    if (!enabled) {
      basis = Basis.OFF;
      return;
    }
    basis = Basis.ESTIMATED;
    judgeTail();
    if (holding && gain >= margin + hysteresis) {
      holding = false;
    } else if (!holding && gain < margin) {
      holding = true;
      holds++;
    }
  }

  /** Words the last judgement; called under the lock, only for {@link #status}. */
  private String reason() {
    double shown = Math.abs(gain) < 5e-4 ? 0.0 : 100 * gain;
    String reason =
        switch (basis) {
          case NO_REPORTS -> enabled ? "no reports yet" : "safeguard off: no reports yet";
          case TOO_FEW ->
              String.format(
                  Locale.ROOT,
                  "too few reports: %.0f of %.0f, routing unchanged",
                  reasonCount,
                  minReports);
          case TOO_FEW_WITHIN_LIMITS ->
              String.format(
                  Locale.ROOT,
                  "too few reports within the producers' share limits: %.0f of %.0f, routing"
                      + " unchanged",
                  reasonCount,
                  minReports);
          case UNKNOWN -> problem + ", routing unchanged";
          case OFF ->
              String.format(
                  Locale.ROOT, "safeguard off: estimated gain %.1f%%, levels kept", shown);
          case ESTIMATED ->
              holding
                  ? String.format(
                      Locale.ROOT,
                      "estimated gain %.1f%%: FIFO order until it reaches %.1f%% (margin %.1f%%)",
                      shown,
                      100 * (margin + hysteresis),
                      100 * margin)
                  : String.format(
                      Locale.ROOT,
                      "estimated gain %.1f%%: levels kept (FIFO order below %.1f%%)",
                      shown,
                      100 * margin);
        };
    if (basis != Basis.ESTIMATED) {
      return reason;
    }
    if (reasonCapping) {
      reason += "; a producer over its share limit is counted at the limit";
    }
    if (sink.on) {
      reason +=
          String.format(
              Locale.ROOT,
              "; the last level's wait estimated at %.2fx FIFO's (sink limit %.2fx): untrusted keys"
                  + " at the default level are routed at the last until it falls below %.2fx",
              tailRatio,
              sink.limit,
              TAIL_RELEASE * sink.limit);
    }
    if (lift.on) {
      reason +=
          String.format(
              Locale.ROOT,
              "; the last level's wait estimated at %.2fx FIFO's (limit %.2fx): keys placed below"
                  + " the default level are routed at it until it falls below %.2fx",
              tailRatio,
              lift.limit,
              TAIL_RELEASE * lift.limit);
    }
    return reason;
  }

  private void judgeTail() {
    if (!(lift.limit > 0) && !(sink.limit > 0)) {
      return;
    }
    // Judged only after the mean estimate, so jobs and work are both positive; the shares sum to 1
    // within rounding, and the estimator checks them to 1e-6.
    sharesInto(capping ? cappedJobs : jobs, jobShares);
    sharesInto(capping ? cappedWork : work, workShares);
    tailRatio = PriorityGain.tailWaitRatio(jobShares, workShares, load, TAIL_MIN_JOB_SHARE);
    lift.judge(tailRatio);
    sink.judge(tailRatio);
  }

  /**
   * One guard on the tail ratio: on above its limit, off below {@value #TAIL_RELEASE} of it; never
   * on while its limit is zero. Judged under the safeguard's lock; {@link #on} is read without it.
   */
  private static final class TailLatch {
    private final double limit;
    private volatile boolean on;
    private long starts;

    TailLatch(double limit) {
      this.limit = limit;
    }

    void judge(double ratio) {
      if (!(limit > 0)) {
        return;
      }
      if (on && ratio < TAIL_RELEASE * limit) {
        on = false;
      } else if (!on && ratio > limit) {
        on = true;
        starts++;
      }
    }
  }

  /**
   * Writes each level's share of the totals into {@code shares}; zeros while they sum to nothing.
   */
  private static void sharesInto(double[] totals, double[] shares) {
    double sum = 0;
    for (double t : totals) {
      sum += t;
    }
    for (int l = 0; l < totals.length; l++) {
      shares[l] = sum > 0 ? totals[l] / sum : 0;
    }
  }

  synchronized SafeguardStatus status() {
    List<Double> js = new ArrayList<>();
    List<Double> ws = new ArrayList<>();
    if (total > 0) {
      sharesInto(capping ? cappedJobs : jobs, jobShares);
      sharesInto(capping ? cappedWork : work, workShares);
      for (int l = 0; l < jobShares.length; l++) {
        js.add(jobShares[l]);
        ws.add(workShares[l]);
      }
    }
    return new SafeguardStatus(
        enabled,
        holding,
        gain,
        load,
        margin,
        total,
        js,
        ws,
        reason(),
        holds,
        tailRatio,
        lift.on,
        lift.starts,
        sink.on,
        sink.starts);
  }
}
