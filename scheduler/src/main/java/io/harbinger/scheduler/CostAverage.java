package io.harbinger.scheduler;

/**
 * An exponentially weighted moving average of acknowledged handler durations, the fallback cost of
 * weighted selection when a job has no prediction (as in the original implementation: alpha 0.05,
 * the first sample taken as is).
 */
final class CostAverage {

  static final double ALPHA = 0.05;
  static final double MIN_COST_MILLIS = 1.0;

  private double averageMillis = Double.NaN;

  void add(double durationNanos) {
    if (!(durationNanos >= 0) || Double.isInfinite(durationNanos)) {
      return;
    }
    double millis = durationNanos / 1e6;
    averageMillis =
        Double.isNaN(averageMillis) ? millis : averageMillis + ALPHA * (millis - averageMillis);
  }

  double averageMillis() {
    return averageMillis;
  }

  /** Returns the cost of a pull: the prediction, else this average, else 1 ms; at least 1 ms. */
  double costMillis(double predictedNanos) {
    double millis;
    if (predictedNanos >= 0 && !Double.isInfinite(predictedNanos)) {
      millis = predictedNanos / 1e6;
    } else if (!Double.isNaN(averageMillis)) {
      millis = averageMillis;
    } else {
      millis = MIN_COST_MILLIS;
    }
    return Math.max(millis, MIN_COST_MILLIS);
  }
}
