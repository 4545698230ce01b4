package io.harbinger.predictor;

/**
 * One tracked key: its histogram, its activity times, its held level, its place in its shard's
 * recency list, and a summary of its histogram cached between observations.
 *
 * <p>The summary (estimate, tail, mean, lowest bin, censored share) and the observation count live
 * in this small object, apart from the histogram's bins, so that predicting a key whose summary is
 * current reads one object and not the bins: a prediction is on the publish path, an observation is
 * not.
 *
 * <p>Not thread-safe: guarded by its shard's lock.
 */
final class KeyState {

  final String key;
  final int hash;
  final DurationHistogram histogram = new DurationHistogram();
  long observations;
  long lastActivityNanos;
  long lastDecayNanos;
  int heldLevel = -1;
  boolean predictedSinceListed;
  Outcome lastOutcome;
  KeyState older;
  KeyState newer;
  KeyState nextInBucket;
  long lastObservedNanos = Long.MIN_VALUE;
  double meanGapNanos = Double.NaN;
  double keyError = Double.NaN;
  double globalError = Double.NaN;
  int scored;
  boolean distrusted;

  private boolean summaryValid;
  private boolean hasWeight;
  private double censoredShare;
  private double estimate;
  private double tail;
  private double mean;
  private double lowest;

  KeyState(String key, long nowNanos) {
    this.key = key;
    this.hash = KeyShard.hash(key);
    this.lastActivityNanos = nowNanos;
    this.lastDecayNanos = nowNanos;
  }

  /** Marks the summary stale after the histogram changed and refreshes the observation count. */
  void changed() {
    observations = histogram.observations;
    summaryValid = false;
  }

  /**
   * Scores one observation against the key's estimate and a global median, and updates the per-key
   * safeguard's verdict with hysteresis.
   */
  void scoreError(
      double keyLog2Error, double globalLog2Error, double weight, double enter, double exit) {
    if (scored == 0) {
      keyError = keyLog2Error;
      globalError = globalLog2Error;
    } else {
      keyError += weight * (keyLog2Error - keyError);
      globalError += weight * (globalLog2Error - globalError);
    }
    scored++;
    if (scored < GUARD_MIN_SCORED) {
      return;
    }
    if (!distrusted) {
      distrusted = keyError >= 1 && keyError >= enter * globalError;
    } else {
      distrusted = keyError >= exit / enter && keyError >= exit * globalError;
    }
  }

  /** Forgets the per-key safeguard's scores, when the history they judged is discarded. */
  void resetGuard() {
    keyError = Double.NaN;
    globalError = Double.NaN;
    scored = 0;
    distrusted = false;
  }

  /** Scored observations before the per-key safeguard may distrust a key. */
  static final int GUARD_MIN_SCORED = 8;

  /** Replaces the histogram with a restored one. */
  void restore(DurationHistogram from) {
    histogram.copyFrom(from);
    changed();
  }

  boolean hasWeight(double estimateQuantile, double tailQuantile) {
    summarise(estimateQuantile, tailQuantile);
    return hasWeight;
  }

  double censoredShare(double estimateQuantile, double tailQuantile) {
    summarise(estimateQuantile, tailQuantile);
    return censoredShare;
  }

  double estimate(double estimateQuantile, double tailQuantile) {
    summarise(estimateQuantile, tailQuantile);
    return estimate;
  }

  double tail(double estimateQuantile, double tailQuantile) {
    summarise(estimateQuantile, tailQuantile);
    return tail;
  }

  double mean(double estimateQuantile, double tailQuantile) {
    summarise(estimateQuantile, tailQuantile);
    return mean;
  }

  double lowest(double estimateQuantile, double tailQuantile) {
    summarise(estimateQuantile, tailQuantile);
    return lowest;
  }

  private void summarise(double estimateQuantile, double tailQuantile) {
    if (!summaryValid) {
      hasWeight = histogram.total > 0;
      censoredShare = histogram.censoredShare();
      estimate = histogram.quantile(estimateQuantile);
      tail = histogram.quantile(tailQuantile);
      mean = histogram.mean();
      lowest = histogram.quantile(0);
      summaryValid = true;
    }
  }
}
