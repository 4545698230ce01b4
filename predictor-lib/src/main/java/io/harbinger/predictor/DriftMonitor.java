package io.harbinger.predictor;

/**
 * Keeps the drift signals: rolling tier agreement and the EWMA of the log error.
 *
 * <p>Implementation notes: the original implementation's drift signals (seed paper section 3.9:
 * informational, they never change routing). A full window of {@value #WINDOW} scores with
 * agreement below {@value #ALERT_BELOW} latches the alert; agreement above {@value #CLEAR_ABOVE}
 * clears it. The log error floors both durations at the histogram's 10 µs floor.
 *
 * <p>Assumptions and guarantees: thread-safe; every method holds the monitor's lock briefly and
 * never blocks otherwise.
 */
final class DriftMonitor {

  static final int WINDOW = 512;
  static final double ALERT_BELOW = 0.50;
  static final double CLEAR_ABOVE = 0.60;
  static final double ALPHA = 0.01;

  private final boolean[] window = new boolean[WINDOW];
  private int filled;
  private int next;
  private int windowMatches;
  private long scored;
  private long matches;
  private boolean alert;
  private long alerts;
  private double ewma = Double.NaN;

  synchronized void score(
      int predictedLevel, double estimateNanos, double actualNanos, Boundaries b) {
    boolean match = b.levelOf(actualNanos) == predictedLevel;
    scored++;
    if (match) {
      matches++;
    }
    if (filled == WINDOW && window[next]) {
      windowMatches--;
    }
    window[next] = match;
    if (match) {
      windowMatches++;
    }
    next = (next + 1) % WINDOW;
    filled = Math.min(WINDOW, filled + 1);
    double agreement = (double) windowMatches / filled;
    if (!alert && filled == WINDOW && agreement < ALERT_BELOW) {
      alert = true;
      alerts++;
    } else if (alert && agreement > CLEAR_ABOVE) {
      alert = false;
    }
    if (!Double.isNaN(estimateNanos)) {
      double floor = HistogramLayout.MIN_NANOS;
      double error =
          Math.abs(Math.log(Math.max(estimateNanos, floor) / Math.max(actualNanos, floor)))
              / Math.log(2);
      ewma = Double.isNaN(ewma) ? error : ewma + ALPHA * (error - ewma);
    }
  }

  synchronized DriftSignals signals() {
    double agreement = filled == 0 ? Double.NaN : (double) windowMatches / filled;
    return new DriftSignals(scored, matches, agreement, alert, alerts, ewma);
  }
}
