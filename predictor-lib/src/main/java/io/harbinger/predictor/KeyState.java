package io.harbinger.predictor;

/**
 * One tracked key: its histogram, its activity times, its held level, its place in its shard's
 * recency list, and a summary of its histogram cached between observations.
 *
 * <p>The summary (estimate, tail, mean, lowest and highest bins, censored share) and the
 * observation count live in this small object, apart from the histogram's bins, so that predicting
 * a key whose summary is current reads one object and not the bins: a prediction is on the publish
 * path, an observation is not.
 *
 * <p>Not thread-safe: guarded by its shard's lock.
 */
final class KeyState implements DurationHistogram.QuantileSink {

  final String key;
  final int hash;
  final DurationHistogram histogram = new DurationHistogram();
  long observations;
  long lastActivityNanos;
  long lastDecayNanos;
  int heldLevel = -1;
  boolean predictedSinceListed;

  /** The last trusted verdict given, handed out again while nothing in it has changed. */
  private Prediction lastPrediction;

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
  private float[] runValues;
  private int runLength;
  private int runSide;

  private boolean summaryValid;
  private boolean hasWeight;
  private double censoredShare;
  private double estimate;
  private double tail;
  private double mean;
  private double lowest;
  private double highest;

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

  /**
   * Extends or ends the key's run of one-sided observations.
   *
   * @param side +1 for an observation more than an octave above the key's estimate, -1 for one more
   *     than an octave below, 0 otherwise (which ends the run)
   * @param nanos the observation
   * @param needed the run length that shows a change of regime
   * @return whether the run has reached {@code needed}
   */
  boolean extendRun(int side, double nanos, int needed) {
    if (side == 0) {
      runLength = 0;
      return false;
    }
    if (side != runSide || runLength >= needed) {
      runLength = 0;
      runSide = side;
    }
    if (runValues == null || runValues.length != needed) {
      runValues = new float[needed];
      runLength = 0;
    }
    runValues[runLength++] = (float) nanos;
    return runLength == needed;
  }

  /**
   * Replaces the key's history by its current run after a change of regime: the histogram then
   * holds the run's observations in their order (the last of them is the observation being
   * learned), the observation count goes on (the key stays as proven as it was), and the held level
   * and the per-key safeguard's scores are forgotten.
   *
   * @param inverseDecay 1 / the key's decay
   */
  void rebaseOnRun(double inverseDecay) {
    long count = histogram.observations;
    histogram.clear();
    for (int i = 0; i < runLength; i++) {
      histogram.add(runValues[i], inverseDecay);
    }
    histogram.observations = Math.max(count + 1, runLength);
    runLength = 0;
    heldLevel = -1;
    resetGuard();
    changed();
  }

  /** Ends the run of one-sided observations, when the history it was measured against changes. */
  void endRun() {
    runLength = 0;
  }

  /** Scored observations before the per-key safeguard may distrust a key. */
  /**
   * Returns a verdict with these values: the last one given when it has them all (the estimate
   * changes only with the key's histogram, so between observations every lookup of a key gets the
   * same object and allocates nothing), else a new one, kept for the next lookup.
   */
  Prediction prediction(int level, int predictedLevel, Outcome outcome, double estimate, Mode m) {
    Prediction last = lastPrediction;
    if (last != null
        && last.level() == level
        && last.predictedLevel() == predictedLevel
        && last.outcome() == outcome
        && last.mode() == m
        && Double.compare(last.estimateNanos(), estimate) == 0) {
      return last;
    }
    last = new Prediction(level, predictedLevel, outcome, estimate, m);
    lastPrediction = last;
    return last;
  }

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

  double highest(double estimateQuantile, double tailQuantile) {
    summarise(estimateQuantile, tailQuantile);
    return highest;
  }

  private void summarise(double estimateQuantile, double tailQuantile) {
    if (!summaryValid) {
      hasWeight = histogram.total > 0;
      censoredShare = histogram.censoredShare();
      mean = histogram.mean();
      if (estimateQuantile <= tailQuantile) {
        histogram.quantiles(estimateQuantile, tailQuantile, this);
      } else {
        estimate = histogram.quantile(estimateQuantile);
        tail = histogram.quantile(tailQuantile);
        lowest = histogram.quantile(0);
        highest = histogram.quantile(1);
      }
      summaryValid = true;
    }
  }

  /** Takes the summary's quantiles from {@link DurationHistogram#quantiles}. */
  @Override
  public void quantile(int index, double nanos) {
    switch (index) {
      case 0 -> lowest = nanos;
      case 1 -> estimate = nanos;
      case 2 -> tail = nanos;
      default -> highest = nanos;
    }
  }
}
