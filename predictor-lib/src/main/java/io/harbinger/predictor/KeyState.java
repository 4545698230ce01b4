package io.harbinger.predictor;

/**
 * One tracked key: its histogram, its activity times, its held level and its place in its shard's
 * recency list.
 *
 * <p>Not thread-safe: guarded by its shard's lock.
 */
final class KeyState extends DurationHistogram {

  final String key;
  long lastActivityNanos;
  long lastDecayNanos;
  int heldLevel = -1;
  boolean predictedSinceListed;
  Outcome lastOutcome;
  KeyState older;
  KeyState newer;

  private boolean summaryValid;
  private double estimate;
  private double tail;

  KeyState(String key, long nowNanos) {
    this.key = key;
    this.lastActivityNanos = nowNanos;
    this.lastDecayNanos = nowNanos;
  }

  void invalidateSummary() {
    summaryValid = false;
  }

  double estimate(double estimateQuantile, double tailQuantile) {
    summarise(estimateQuantile, tailQuantile);
    return estimate;
  }

  double tail(double estimateQuantile, double tailQuantile) {
    summarise(estimateQuantile, tailQuantile);
    return tail;
  }

  private void summarise(double estimateQuantile, double tailQuantile) {
    if (!summaryValid) {
      estimate = quantile(estimateQuantile);
      tail = quantile(tailQuantile);
      summaryValid = true;
    }
  }
}
