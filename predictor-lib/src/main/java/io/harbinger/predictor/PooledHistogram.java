package io.harbinger.predictor;

/**
 * The histogram of every accepted observation, whose quantiles are the level boundaries.
 *
 * <p>Implementation notes: seed paper equation 2 and spec/harbinger-reference.md section 1.4. The
 * first boundaries are published once the pooled count reaches {@code boundaryMinObservations};
 * after that they are recomputed whenever the count is a multiple of {@code boundaryRefreshEvery}.
 * A recomputed boundary within the hysteresis of its published value keeps the published value; a
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

  private volatile Boundaries published;
  private volatile double median = Double.NaN;
  private long publications;
  private long degenerate;

  PooledHistogram(PredictorConfig config) {
    inverseDecay = 1 / config.pooledDecay();
    levels = config.levels();
    minObservations = config.boundaryMinObservations();
    refreshEvery = config.boundaryRefreshEvery();
    hysteresis = config.boundaryHysteresis();
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

  private void refresh() {
    median = histogram.quantile(0.5);
    double[] next = new double[levels - 1];
    for (int j = 1; j < levels; j++) {
      next[j - 1] = histogram.quantile((double) j / levels);
    }
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
