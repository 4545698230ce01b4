package io.harbinger.predictor;

import java.util.List;

/**
 * The histogram of every accepted observation, whose quantiles are the level boundaries.
 *
 * <p>Implementation notes: seed paper section 3.4, equation 2, as the original implementation
 * applies it: the boundaries at the equal quantiles of the pooled observations. With a tail budget
 * ({@link PredictorConfig#tailBudget}, a departure from equation 2) the last boundary is set by the
 * pooled work instead, so that the last level's estimated mean wait stays within the budget. The
 * first boundaries are published once the pooled count reaches {@code boundaryMinObservations};
 * after that they are recomputed whenever the count is a multiple of {@code boundaryRefreshEvery}.
 * A recomputed boundary within the hysteresis of its published value keeps the published value; a
 * list that is not strictly increasing is dropped and counted.
 *
 * <p>Boundaries (a departure from seed paper section 3.4, equation 2, where every boundary is an
 * equal quantile of the pooled histogram; on by default, {@code tailBudget} {@value
 * PredictorConfig#DEFAULT_TAIL_BUDGET}). Equal quantiles give each level the same share of the jobs
 * whatever work they carry, so where short jobs carry little of it the last level holds job types
 * that could go ahead of the long ones at almost no cost to them. With a budget T the boundary
 * above the last level rises while the levels above it carry at most (1 - 1/T) / {@code
 * safeguardLoad} of the pooled work, so that by Cobham's formula (section 5.1) the last level's
 * mean wait stays within T times FIFO's; it never falls below the equal quantile . A key's estimate
 * is one number, so a boundary inside a key's mass never splits the key.
 *
 * <p>Producers (a departure from equation 2, where every observation weighs the same whoever
 * reported it): the quantiles are taken, at each refresh, from the pooled histogram with every
 * producer's part capped by {@link ProducerWeights}, and so is the pooled median that the per-key
 * safeguard compares keys with; each report is also recorded by the global safeguard under its
 * producer ({@link GainSafeguard}). A producer's reports then weigh at most max(1/8, twice its
 * long-run share) of the weight, and a boundary at pooled quantile q stays between the other
 * producers' quantiles (q - s) / (1 - s) and q / (1 - s) for that share s. Example, with 3 levels
 * and equal quantiles: a producer that sends 20,000 reports of 30 minutes in a burst beside a
 * service with 200,000 reports of history is held to 21% of the weight, so the first boundary stays
 * between the service's own 15th and 42nd percentiles and the second between its 58th and 85th,
 * instead of both going to 30 minutes. With the tail budget, the last boundary follows the work, so
 * it may still rise into such a producer's long jobs, and the service's longest job type then moves
 * up a level (in this example its 3 s exports, from level 2 to 1, beside its 37 ms e-mails). While
 * no producer passes its limit, which is always the case with a single producer, the quantiles are
 * those of the pooled histogram itself, bit for bit.
 *
 * <p>Assumptions and guarantees: thread-safe. {@link #add} holds this object's lock for one
 * histogram update, the safeguard's record (under the safeguard's own lock, always taken after this
 * one) and, on a refresh, the caps and two quantile walks; {@link #boundaries()} is a volatile
 * read.
 */
final class PooledHistogram {

  private final DurationHistogram histogram = new DurationHistogram();
  private final DurationHistogram capped = new DurationHistogram();
  private final ProducerWeights producers;
  private final GainSafeguard safeguard;
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

  PooledHistogram(PredictorConfig config, PredictorTuning tuning, GainSafeguard safeguard) {
    this.safeguard = safeguard;
    inverseDecay = 1 / tuning.pooledDecay();
    producers = new ProducerWeights(inverseDecay);
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

  /**
   * Adds one accepted observation, records it with the global safeguard, and refreshes the
   * boundaries when due.
   *
   * @param key the observation's valid key, whose producer it is counted under
   * @param nanos the duration, finite and non-negative
   * @param level the level the assignment gave the key before this observation, or -1 when there
   *     were no boundaries (the safeguard then records nothing)
   */
  synchronized void add(String key, double nanos, int level) {
    double weight = histogram.scale;
    histogram.rescaled = 1;
    histogram.add(nanos, inverseDecay);
    int producer =
        producers.add(
            key, HistogramLayout.binOf(Math.min(nanos, HistogramLayout.MAX_NANOS)), weight);
    if (histogram.rescaled != 1) {
      producers.rescale(histogram.rescaled);
    }
    if (level >= 0) {
      safeguard.record(producer, level, nanos);
    }
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

  /**
   * Restores the state from a snapshot; only on a predictor nobody else uses yet. The producers'
   * parts are rebuilt from the snapshot's keys ({@link ProducerWeights#restore}).
   */
  synchronized void restore(
      DurationHistogram source, Boundaries boundaries, List<SnapshotCodec.StagedKey> keys) {
    histogram.copyFrom(source);
    producers.restore(histogram, keys);
    published = boundaries;
    median = histogram.total > 0 ? histogram.quantile(0.5) : Double.NaN;
  }

  /** Seed paper equation 2: the boundaries at the equal quantiles of the pooled observations. */
  private double[] equalQuantiles(DurationHistogram pooled) {
    double[] next = new double[levels - 1];
    for (int j = 1; j < levels; j++) {
      next[j - 1] = pooled.quantile((double) j / levels);
    }
    return next;
  }

  /**
   * The tail budget: the last boundary where the shorter durations carry the budgeted share of the
   * pooled work, never below the equal quantile, and the others at the equal quantiles of the
   * observations below it.
   */
  private double[] budgeted(DurationHistogram pooled) {
    double[] next = new double[levels - 1];
    double top =
        Math.max(
            pooled.workQuantile(workShareAbove), pooled.quantile((double) (levels - 1) / levels));
    double below = pooled.shareAtOrBelow(top);
    for (int j = 1; j < levels - 1; j++) {
      next[j - 1] = pooled.quantile(below * j / (levels - 1));
    }
    next[levels - 2] = top;
    return next;
  }

  private void refresh() {
    DurationHistogram pooled = histogram;
    if (producers.computeCaps()) {
      producers.combine(histogram, capped);
      pooled = capped;
    }
    long dropped = producers.evict();
    safeguard.limits(producers, dropped);
    median = pooled.quantile(0.5);
    double[] next = workShareAbove > 0 ? budgeted(pooled) : equalQuantiles(pooled);
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
