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
 * <p>Assumptions and guarantees: thread-safe; {@link #record} and {@link #status} hold this
 * object's lock for a few array operations, {@link #holding} is a volatile read.
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
  private double gain = Double.NaN;
  private String reason;
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
    reason = enabled ? "no reports yet" : "safeguard off: no reports yet";
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
   * @param level the level the current assignment gives the report's key
   * @param durationNanos the actual duration, finite and non-negative
   */
  synchronized void record(int level, double durationNanos) {
    total = total * decay + 1;
    for (int l = 0; l < jobs.length; l++) {
      jobs[l] *= decay;
      work[l] *= decay;
    }
    jobs[level] += 1;
    work[level] += durationNanos;
    judge();
  }

  private void judge() {
    if (total < minReports) {
      gain = Double.NaN;
      reason =
          String.format(
              Locale.ROOT, "too few reports: %.0f of %.0f, routing unchanged", total, minReports);
      return;
    }
    PriorityGain.Estimate estimate = PriorityGain.fromTotals(jobs, work, load);
    if (!estimate.known()) {
      gain = Double.NaN;
      reason = estimate.problem() + ", routing unchanged";
      return;
    }
    gain = estimate.gain();
    judged = true;
    if (!enabled) {
      reason =
          String.format(
              Locale.ROOT,
              "safeguard off: estimated gain %.1f%%, levels kept",
              Math.abs(gain) < 5e-4 ? 0.0 : 100 * gain);
      return;
    }
    judgeTail();
    if (holding && gain >= margin + hysteresis) {
      holding = false;
    } else if (!holding && gain < margin) {
      holding = true;
      holds++;
    }
    reason =
        holding
            ? String.format(
                Locale.ROOT,
                "estimated gain %.1f%%: FIFO order until it reaches %.1f%% (margin %.1f%%)",
                Math.abs(gain) < 5e-4 ? 0.0 : 100 * gain,
                100 * (margin + hysteresis),
                100 * margin)
            : String.format(
                Locale.ROOT,
                "estimated gain %.1f%%: levels kept (FIFO order below %.1f%%)",
                Math.abs(gain) < 5e-4 ? 0.0 : 100 * gain,
                100 * margin);
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
  }

  private void judgeTail() {
    if (!(lift.limit > 0) && !(sink.limit > 0)) {
      return;
    }
    // Judged only after the mean estimate, so jobs and work are both positive; the shares sum to 1
    // within rounding, and the estimator checks them to 1e-6.
    tailRatio = PriorityGain.tailWaitRatio(shares(jobs), shares(work), load, TAIL_MIN_JOB_SHARE);
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

  /** Each level's share of the totals; zeros while they sum to nothing. */
  private static double[] shares(double[] totals) {
    double sum = 0;
    for (double t : totals) {
      sum += t;
    }
    double[] shares = new double[totals.length];
    for (int l = 0; l < totals.length && sum > 0; l++) {
      shares[l] = totals[l] / sum;
    }
    return shares;
  }

  synchronized SafeguardStatus status() {
    List<Double> js = new ArrayList<>();
    List<Double> ws = new ArrayList<>();
    if (total > 0) {
      for (double s : shares(jobs)) {
        js.add(s);
      }
      for (double s : shares(work)) {
        ws.add(s);
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
        reason,
        holds,
        tailRatio,
        lift.on,
        lift.starts,
        sink.on,
        sink.starts);
  }
}
