package io.harbinger.predictor;

import java.util.Arrays;

/**
 * A decaying histogram of durations over the bins of {@link HistogramLayout}, with interpolated
 * quantiles.
 *
 * <p>Each observation's weight shrinks by the decay factor every time a newer one arrives (seed
 * paper equation 1). With decay 0.995, after 100 observations at 2 ms followed by 200 at 20 ms the
 * old regime keeps 0.995^200 ≈ 37% of its own weight, about a fifth of the total, so the median is
 * 20 ms.
 *
 * <p>Implementation notes (seed paper section 3.4, with the original implementation's decay by
 * scaled increments): decay is O(1) per observation by "scaled increments": a new observation adds
 * the current scale, and the scale then grows by 1/decay, which is the same as multiplying all
 * earlier weight by the decay. When the scale passes {@link #RENORMALISE_ABOVE}, every stored
 * weight is divided by it and it resets to 1. Wall-clock decay is also O(1): only ratios of weights
 * are ever read, so shrinking all old weight by a factor is the same as growing the scale by its
 * inverse. Bin weights are floats to keep a key under 1 KiB, and a float resolves an increment only
 * while the bin holds less than about 2^24 increments. Every weight is at most 1/(1 - decay) times
 * the scale, so this matters only for a decay within 2.4e-7 of 1: when the total passes {@link
 * #MAX_WEIGHT_RATIO} times the scale, all weights are halved. With decay 1 ("no decay") that
 * amounts to a half-life of about two million observations instead of none.
 *
 * <p>Not thread-safe: the owner guards it.
 */
final class DurationHistogram {

  /** Renormalise when the scale passes this; keeps float bins far from overflow. */
  static final double RENORMALISE_ABOVE = 1e30;

  /** Largest ratio of the total weight to the scale before weights are halved. */
  static final double MAX_WEIGHT_RATIO = 1 << 22;

  final float[] bins = new float[HistogramLayout.BIN_COUNT];

  /**
   * Bounds of the bins that may hold weight: every bin outside [low, high] is zero. Kept by {@link
   * #add}, {@link #clear} and {@link #copyFrom}; a writer of {@link #bins} calls {@link
   * #boundsFromBins} after.
   */
  int low = HistogramLayout.BIN_COUNT;

  int high = -1;
  double scale = 1;
  double total;
  double sum;
  double censored;
  long observations;
  long saturated;

  /** Product of the factors every stored weight was multiplied by since the owner last reset it. */
  double rescaled = 1;

  /**
   * Adds one duration.
   *
   * @param nanos finite and non-negative; values above the top edge are stored at the top edge
   * @param inverseDecay 1 / decay
   * @return whether the value was above the top edge (saturated)
   */
  boolean add(double nanos, double inverseDecay) {
    boolean clamp = nanos > HistogramLayout.MAX_NANOS;
    double value = clamp ? HistogramLayout.MAX_NANOS : nanos;
    int bin = HistogramLayout.binOf(value);
    bins[bin] += (float) scale;
    if (bin < low) {
      low = bin;
    }
    if (bin > high) {
      high = bin;
    }
    total += scale;
    sum += scale * value;
    observations++;
    if (clamp) {
      saturated++;
    }
    advance(inverseDecay);
    return clamp;
  }

  /**
   * Adds one censored delivery: it decays like an observation but is not a duration.
   *
   * @param inverseDecay 1 / decay
   */
  void addCensored(double inverseDecay) {
    censored += scale;
    advance(inverseDecay);
  }

  /**
   * Multiplies all stored weight by a factor, relative to future observations.
   *
   * @param factor in (0, 1]; smaller factors forget more
   */
  void decayBy(double factor) {
    assert factor > 0 && factor <= 1 : factor;
    double grown = scale / factor;
    if (grown > RENORMALISE_ABOVE || Double.isInfinite(grown)) {
      // Divide everything by the grown scale; weights too small to matter become zero.
      multiplyWeights(1 / scale * factor);
      scale = 1;
    } else {
      scale = grown;
    }
  }

  /** Forgets all weight and the observation count. */
  void clear() {
    Arrays.fill(bins, 0f);
    low = HistogramLayout.BIN_COUNT;
    high = -1;
    scale = 1;
    total = 0;
    sum = 0;
    censored = 0;
    observations = 0;
  }

  /**
   * Returns the q-quantile, interpolated linearly within its bin.
   *
   * @param q in [0, 1]
   * @return nanoseconds, or NaN when the histogram holds no weight
   */
  double quantile(double q) {
    if (!(total > 0)) {
      return Double.NaN;
    }
    double target = q * total;
    double cumulative = 0;
    int last = -1;
    for (int b = low; b <= high; b++) {
      double w = bins[b];
      if (w <= 0) {
        continue;
      }
      last = b;
      if (cumulative + w >= target) {
        return within(b, (target - cumulative) / w);
      }
      cumulative += w;
    }
    // Float rounding can leave the cumulative weight just short of the total.
    return last < 0 ? Double.NaN : HistogramLayout.upperEdge(last);
  }

  /** Receives the values of {@link #quantiles}, lowest index first. */
  interface QuantileSink {

    /**
     * Takes one value.
     *
     * @param index 0 for the lowest value, 1 and 2 for the two quantiles, 3 for the highest
     * @param nanos the value, or NaN when the histogram holds no weight
     */
    void quantile(int index, double nanos);
  }

  /**
   * Gives a sink the 0-quantile, the {@code lower}- and {@code upper}-quantiles and the 1-quantile,
   * each exactly as {@link #quantile} gives it, in one walk over the bins that may hold weight and
   * without allocating.
   *
   * @param lower in [0, upper]
   * @param upper in [lower, 1]
   * @param sink receives indexes 0 to 3 in order
   */
  void quantiles(double lower, double upper, QuantileSink sink) {
    int i = 0;
    if (total > 0) {
      double target = 0;
      double cumulative = 0;
      int last = -1;
      for (int b = low; b <= high && i < 4; b++) {
        double w = bins[b];
        if (w <= 0) {
          continue;
        }
        last = b;
        while (i < 4 && cumulative + w >= target) {
          sink.quantile(i, within(b, (target - cumulative) / w));
          i++;
          target = (i == 1 ? lower : i == 2 ? upper : 1) * total;
        }
        cumulative += w;
      }
      for (; i < 4; i++) {
        sink.quantile(i, last < 0 ? Double.NaN : HistogramLayout.upperEdge(last));
      }
    }
    for (; i < 4; i++) {
      sink.quantile(i, Double.NaN);
    }
  }

  /** The point a fraction of the way through a bin, the fraction clamped to [0, 1]. */
  private static double within(int bin, double fraction) {
    double clamped = Math.min(1, Math.max(0, fraction));
    double lower = HistogramLayout.lowerEdge(bin);
    return lower + clamped * (HistogramLayout.upperEdge(bin) - lower);
  }

  /**
   * Returns the duration below which a share of the work lies: of the sum of weight times duration,
   * each bin's durations taken at its midpoint and spread evenly across it.
   *
   * @param share in [0, 1]
   * @return nanoseconds, or NaN when the histogram holds no weight
   */
  double workQuantile(double share) {
    double work = 0;
    for (int b = 0; b < bins.length; b++) {
      work += bins[b] * midpoint(b);
    }
    if (!(work > 0)) {
      return total > 0 ? quantile(share) : Double.NaN;
    }
    double target = share * work;
    double cumulative = 0;
    int last = -1;
    for (int b = 0; b < bins.length; b++) {
      double w = bins[b] * midpoint(b);
      if (w <= 0) {
        continue;
      }
      last = b;
      if (cumulative + w >= target) {
        return within(b, (target - cumulative) / w);
      }
      cumulative += w;
    }
    return HistogramLayout.upperEdge(last);
  }

  /**
   * Returns the share of the weight at or below a duration, interpolated linearly within its bin;
   * the inverse of {@link #quantile}.
   *
   * @param nanos a duration
   * @return in [0, 1]; NaN when the histogram holds no weight
   */
  double shareAtOrBelow(double nanos) {
    if (!(total > 0)) {
      return Double.NaN;
    }
    double cumulative = 0;
    for (int b = 0; b < bins.length; b++) {
      double lower = HistogramLayout.lowerEdge(b);
      double upper = HistogramLayout.upperEdge(b);
      if (nanos < lower) {
        break;
      }
      double w = bins[b];
      cumulative += nanos >= upper ? w : w * (nanos - lower) / (upper - lower);
    }
    return Math.min(1, cumulative / total);
  }

  private static double midpoint(int bin) {
    return (HistogramLayout.lowerEdge(bin) + HistogramLayout.upperEdge(bin)) / 2;
  }

  /**
   * Returns the weighted mean.
   *
   * @return nanoseconds, or NaN when empty
   */
  double mean() {
    return total > 0 ? sum / total : Double.NaN;
  }

  /**
   * Returns the decayed share of censored deliveries among all deliveries.
   *
   * @return in [0, 1]; 0 when empty
   */
  double censoredShare() {
    double all = total + censored;
    return all > 0 ? censored / all : 0;
  }

  /**
   * Copies the weights and counts of another histogram into this one.
   *
   * @param other the source
   */
  void copyFrom(DurationHistogram other) {
    System.arraycopy(other.bins, 0, bins, 0, bins.length);
    low = other.low;
    high = other.high;
    scale = other.scale;
    total = other.total;
    sum = other.sum;
    censored = other.censored;
    observations = other.observations;
    saturated = other.saturated;
  }

  /** Sets {@link #low} and {@link #high} from the bins, after a write other than {@link #add}. */
  void boundsFromBins() {
    low = HistogramLayout.BIN_COUNT;
    high = -1;
    for (int b = 0; b < bins.length; b++) {
      if (bins[b] != 0) {
        low = Math.min(low, b);
        high = b;
      }
    }
  }

  private void advance(double inverseDecay) {
    scale *= inverseDecay;
    if (scale > RENORMALISE_ABOVE) {
      multiplyWeights(1 / scale);
      scale = 1;
    } else if (total > MAX_WEIGHT_RATIO * scale) {
      multiplyWeights(0.5);
    }
  }

  private void multiplyWeights(double factor) {
    rescaled *= factor;
    for (int b = 0; b < bins.length; b++) {
      bins[b] = (float) (bins[b] * factor);
    }
    total *= factor;
    sum *= factor;
    censored *= factor;
  }
}
