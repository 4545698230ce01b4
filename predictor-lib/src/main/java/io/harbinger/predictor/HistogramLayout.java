package io.harbinger.predictor;

/**
 * The fixed bin layout shared by every duration histogram.
 *
 * <p>Bin 0 holds [0, 10 µs). Bins 1 to 87 are geometric with three bins per octave, so each is
 * 2^(1/3) ≈ 1.26 times as wide as the one below (26% wider): bin k holds [10 µs · 2^((k-1)/3), 10
 * µs · 2^(k/3)). The top edge is 10 µs · 2^29 ≈ 89.5 minutes; longer durations are stored at the
 * top edge and counted as saturated. For example 3 ms is 300 times the floor, log2(300) = 8.23, so
 * it lands in bin 3 · 8 + 0 + 1 = 25, which holds [2.56 ms, 3.23 ms).
 *
 * <p>Implementation notes: the original implementation used 48 bins from a 1 ms floor to 10 minutes
 * at a ratio of 1.327. This layout resolves 100 times shorter durations, reaches nine times longer
 * ones and keeps bins narrower. The bin of a value is computed from its binary exponent and two
 * mantissa comparisons, with no logarithm.
 */
final class HistogramLayout {

  /** Lower edge of bin 1, in nanoseconds. */
  static final double MIN_NANOS = 10_000;

  /** Geometric bins per doubling of duration. */
  static final int BINS_PER_OCTAVE = 3;

  /** Octaves covered above {@link #MIN_NANOS}. */
  static final int OCTAVES = 29;

  /** Total bins, the underflow bin included. */
  static final int BIN_COUNT = 1 + BINS_PER_OCTAVE * OCTAVES;

  /** Top edge of the last bin, in nanoseconds: the largest value stored. */
  static final double MAX_NANOS = Math.scalb(MIN_NANOS, OCTAVES);

  private static final double THIRD = Math.pow(2, 1.0 / 3);
  private static final double TWO_THIRDS = Math.pow(2, 2.0 / 3);
  private static final double[] EDGES = new double[BIN_COUNT + 1];

  static {
    EDGES[0] = 0;
    for (int k = 1; k <= BIN_COUNT; k++) {
      int octave = (k - 1) / BINS_PER_OCTAVE;
      int step = (k - 1) % BINS_PER_OCTAVE;
      double mantissa = step == 0 ? 1 : step == 1 ? THIRD : TWO_THIRDS;
      EDGES[k] = Math.scalb(MIN_NANOS * mantissa, octave);
    }
    EDGES[BIN_COUNT] = MAX_NANOS;
  }

  private HistogramLayout() {}

  /**
   * Returns the bin of a duration.
   *
   * @param nanos a finite, non-negative duration
   * @return the bin index, in [0, BIN_COUNT)
   */
  static int binOf(double nanos) {
    if (nanos < MIN_NANOS) {
      return 0;
    }
    double x = nanos / MIN_NANOS;
    int exponent = Math.getExponent(x);
    if (exponent >= OCTAVES) {
      return BIN_COUNT - 1;
    }
    double mantissa = Math.scalb(x, -exponent);
    int step = mantissa >= TWO_THIRDS ? 2 : mantissa >= THIRD ? 1 : 0;
    int bin = BINS_PER_OCTAVE * exponent + step + 1;
    assert bin >= 1 && bin < BIN_COUNT : bin;
    return bin;
  }

  /**
   * Returns the lower edge of a bin.
   *
   * @param bin in [0, BIN_COUNT)
   * @return nanoseconds
   */
  static double lowerEdge(int bin) {
    return EDGES[bin];
  }

  /**
   * Returns the upper edge of a bin.
   *
   * @param bin in [0, BIN_COUNT)
   * @return nanoseconds
   */
  static double upperEdge(int bin) {
    return EDGES[bin + 1];
  }
}
