package io.harbinger.predictor;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The global safeguard: from the reports, estimates whether the current level assignment shortens
 * the mean wait against FIFO ({@link PriorityGain}), and holds routing in FIFO order while the
 * estimated gain is below a margin.
 *
 * <p>Implementation notes. Each report adds its actual duration to the level the assignment gives
 * its key at that moment (before the report is learned), so a key placed too high counts against
 * the order with its real cost. Counts and work decay by {@code safeguardDecay} per report. The
 * safeguard starts holding when the gain falls below {@code safeguardMargin} and stops when it
 * reaches the margin plus {@code safeguardHysteresis}. While the estimate cannot be made (too few
 * reports, one level holding every job, zero durations), the decision stays as it is and the reason
 * says why.
 *
 * <p>Assumptions and guarantees: thread-safe; {@link #record} and {@link #status} hold this
 * object's lock for a few array operations, {@link #holding} is a volatile read.
 */
final class GainSafeguard {

  private final boolean enabled;
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

  GainSafeguard(PredictorConfig config) {
    enabled = config.safeguard();
    margin = config.safeguardMargin();
    hysteresis = config.safeguardHysteresis();
    load = config.safeguardLoad();
    minReports = config.safeguardMinReports();
    decay = config.safeguardDecay();
    jobs = new double[config.levels()];
    work = new double[config.levels()];
    reason = enabled ? "no reports yet" : "safeguard off";
  }

  /** Returns whether routing is held in FIFO order. */
  boolean holding() {
    return holding;
  }

  /**
   * Records one report.
   *
   * @param level the level the current assignment gives the report's key
   * @param durationNanos the actual duration, finite and non-negative
   */
  synchronized void record(int level, double durationNanos) {
    if (!enabled) {
      return;
    }
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
  }

  synchronized SafeguardStatus status() {
    List<Double> js = new ArrayList<>();
    List<Double> ws = new ArrayList<>();
    double jobTotal = 0;
    double workTotal = 0;
    for (int l = 0; l < jobs.length; l++) {
      jobTotal += jobs[l];
      workTotal += work[l];
    }
    if (jobTotal > 0) {
      for (int l = 0; l < jobs.length; l++) {
        js.add(jobs[l] / jobTotal);
        ws.add(workTotal > 0 ? work[l] / workTotal : 0.0);
      }
    }
    return new SafeguardStatus(enabled, holding, gain, load, total, js, ws, reason, holds);
  }
}
