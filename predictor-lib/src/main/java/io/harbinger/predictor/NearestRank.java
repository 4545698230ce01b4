package io.harbinger.predictor;

/**
 * The nearest-rank percentile, the one definition of the project (seed paper section 5.3): of n
 * sorted values, the percentile p is the value at rank {@code ceil(n * p / 100)}, without
 * interpolation. Example: of 10, 20, 30 and 40, P50 is 20 and P99 is 40.
 *
 * <p>Implementation notes: the rank is computed with a tolerance of 1e-9, so that a percentile
 * given as a fraction times 100 (such as 100 / 3 for a tertile) is not pushed one rank up by
 * rounding; rank 0 (percentile 0) is read as the minimum. Stateless and thread-safe.
 */
public final class NearestRank {

  private NearestRank() {}

  /**
   * Returns the index the nearest-rank rule picks in a sorted array of {@code n} values.
   *
   * @param n the number of values, at least 1
   * @param percent the percentile, in [0, 100]
   * @return {@code ceil(n * percent / 100) - 1}, clamped to [0, n - 1]
   * @throws IllegalArgumentException when n is below 1 or percent is outside [0, 100]
   */
  public static int index(int n, double percent) {
    if (n < 1) {
      throw new IllegalArgumentException("a percentile needs at least one value: " + n + " given");
    }
    if (!(percent >= 0 && percent <= 100)) {
      throw new IllegalArgumentException("percent must be in [0, 100]: " + percent);
    }
    int rank = (int) Math.ceil(n * percent / 100.0 - 1e-9);
    return Math.max(0, Math.min(n - 1, rank - 1));
  }

  /**
   * Returns the nearest-rank percentile of sorted values.
   *
   * @param sorted ascending values, not empty; not modified
   * @param percent the percentile, in [0, 100]
   * @return the value
   */
  public static double of(double[] sorted, double percent) {
    return sorted[index(sorted.length, percent)];
  }

  /**
   * Returns the nearest-rank percentile of sorted values.
   *
   * @param sorted ascending values, not empty; not modified
   * @param percent the percentile, in [0, 100]
   * @return the value
   */
  public static long of(long[] sorted, double percent) {
    return sorted[index(sorted.length, percent)];
  }
}
