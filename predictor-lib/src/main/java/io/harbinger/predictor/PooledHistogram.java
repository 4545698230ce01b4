package io.harbinger.predictor;

/**
 * The histogram of every accepted observation, whose quantiles are the level boundaries.
 *
 * <p>Implementation notes: seed paper equation 2 and spec/harbinger-reference.md section 1.4, the
 * boundaries at the equal quantiles of the pooled observations. With a tail budget ({@link
 * PredictorConfig#tailBudget}, a departure from equation 2) the last boundary is set by the pooled
 * work instead, so that the last level's estimated mean wait stays within the budget. The first
 * boundaries are published once the pooled count reaches {@code boundaryMinObservations}; after
 * that they are recomputed whenever the count is a multiple of {@code boundaryRefreshEvery}. A
 * recomputed boundary within the hysteresis of its published value keeps the published value; a
 * list that is not strictly increasing is dropped and counted.
 *
 * <p>Assumptions and guarantees: thread-safe. {@link #add} holds this object's lock for one
 * histogram update and, on a refresh, two quantile walks; {@link #boundaries()} is a volatile read.
 */
final class PooledHistogram {

  private final DurationHistogram histogram = new DurationHistogram();
  private final double inverseDecay;
  private final int levels;
  private final int minObservations;
  private final int refreshEvery;
  private final double hysteresis;
  private final double workShareAbove;

  private volatile Boundaries published;
  private volatile double median = Double.NaN;
  private long publications;
  private long degenerate;

  PooledHistogram(PredictorConfig config, PredictorTuning tuning) {
    inverseDecay = 1 / tuning.pooledDecay();
    levels = config.levels();
    minObservations = tuning.boundaryMinObservations();
    refreshEvery = tuning.boundaryRefreshEvery();
    hysteresis = tuning.boundaryHysteresis();
    workShareAbove = workShareAbove(config, tuning);
  }

  /**
   * Returns the share of the work the levels above the last may take under a tail budget T at load
   * rho: by Cobham's formula the last level waits 1 / (1 - s) times FIFO's mean wait when the
   * levels served before it carry a load s, so s = 1 - 1/T, a share (1 - 1/T) / rho of the work; 0
   * without a budget.
   */
  static double workShareAbove(PredictorConfig config, PredictorTuning tuning) {
    if (config.tailBudget() == 0) {
      return 0;
    }
    return Math.min(1, (1 - 1 / config.tailBudget()) / tuning.safeguardLoad());
  }

  synchronized void add(double nanos) {
    histogram.add(nanos, inverseDecay);
    long count = histogram.observations;
    if (count >= minObservations && (count == minObservations || count % refreshEvery == 0)) {
      refresh();
    }
  }

  Boundaries boundaries() {
    return published;
  }

  /** Returns the pooled median as of the last refresh, or NaN before the first. */
  double median() {
    return median;
  }

  synchronized long observations() {
    return histogram.observations;
  }

  synchronized long publications() {
    return publications;
  }

  synchronized long degenerateRefreshes() {
    return degenerate;
  }

  /** Copies the state for a snapshot. */
  synchronized void copyTo(DurationHistogram target) {
    target.copyFrom(histogram);
  }

  /** Restores the state from a snapshot; only on a predictor nobody else uses yet. */
  synchronized void restore(DurationHistogram source, Boundaries boundaries) {
    histogram.copyFrom(source);
    published = boundaries;
    median = histogram.total > 0 ? histogram.quantile(0.5) : Double.NaN;
  }

  /** Seed paper equation 2: the boundaries at the equal quantiles of the pooled observations. */
  private double[] equalQuantiles() {
    double[] next = new double[levels - 1];
    for (int j = 1; j < levels; j++) {
      next[j - 1] = histogram.quantile((double) j / levels);
    }
    return next;
  }

  /**
   * The tail budget: the last boundary where the shorter durations carry the budgeted share of the
   * pooled work, never below the equal quantile, and the others at the equal quantiles of the
   * observations below it.
   */
  private double[] budgeted() {
    double[] next = new double[levels - 1];
    double top =
        Math.max(
            histogram.workQuantile(workShareAbove),
            histogram.quantile((double) (levels - 1) / levels));
    double below = histogram.shareAtOrBelow(top);
    for (int j = 1; j < levels - 1; j++) {
      next[j - 1] = histogram.quantile(below * j / (levels - 1));
    }
    next[levels - 2] = top;
    return next;
  }

  private void refresh() {
    median = histogram.quantile(0.5);
    double[] next = workShareAbove > 0 ? budgeted() : equalQuantiles();
    Boundaries old = published;
    if (old != null) {
      for (int j = 0; j < next.length; j++) {
        double kept = old.nanos(j);
        if (Math.abs(next[j] - kept) <= hysteresis * kept) {
          next[j] = kept;
        }
      }
    }
    if (!Boundaries.isValid(next)) {
      degenerate++;
      return;
    }
    if (old != null && java.util.Arrays.equals(next, old.toArray())) {
      return;
    }
    published = Boundaries.of(old == null ? 1 : old.sequence() + 1, next);
    publications++;
  }
}
