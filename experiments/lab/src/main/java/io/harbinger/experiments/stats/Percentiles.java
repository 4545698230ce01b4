package io.harbinger.experiments.stats;

import io.harbinger.predictor.NearestRank;
import java.util.Arrays;
import java.util.Collection;

/**
 * Nearest-rank percentiles and means over plain samples.
 *
 * <p>Example: for the sorted values {@code [10, 20, 30, 40]}, P50 is index {@code ceil(4 * 50 /
 * 100) - 1 = 1}, so 20; P99 is index {@code ceil(3.96) - 1 = 3}, so 40. No interpolation ever
 * happens: every percentile is one of the observed values.
 *
 * <p>Implementation notes: the rule is the original implementation's nearest rank ("the element at
 * index ceil(n*p/100) - 1 of the sorted list"), used by its production-flow report and its
 * simulator. A percentile of 0 is taken as the minimum (index clamped to 0).
 */
public final class Percentiles {

  private Percentiles() {}

  /**
   * Returns the nearest-rank percentile of unsorted values.
   *
   * @param values the sample, not empty, finite values; not modified
   * @param percent the percentile, in [0, 100]
   * @return the element at index {@code max(0, ceil(n * percent / 100) - 1)} of the sorted sample
   */
  public static double nearestRank(double[] values, double percent) {
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    return nearestRankOfSorted(sorted, percent);
  }

  /**
   * Returns the nearest-rank percentile of unsorted values.
   *
   * @param values the sample, not empty, no nulls
   * @param percent the percentile, in [0, 100]
   * @return the nearest-rank percentile
   */
  public static double nearestRank(Collection<? extends Number> values, double percent) {
    return nearestRank(toArray(values), percent);
  }

  /**
   * Returns the nearest-rank percentile of an already sorted array, without copying it.
   *
   * @param sorted ascending values, not empty
   * @param percent the percentile, in [0, 100]
   * @return the element at index {@code max(0, ceil(n * percent / 100) - 1)}
   */
  public static double nearestRankOfSorted(double[] sorted, double percent) {
    if (sorted.length == 0) {
      throw new IllegalArgumentException("a percentile needs at least one value: 0 given");
    }
    if (!(percent >= 0 && percent <= 100)) {
      throw new IllegalArgumentException("percent must be in [0, 100]: " + percent);
    }
    return sorted[rankIndex(sorted.length, percent)];
  }

  /**
   * Returns the index the nearest-rank rule picks in a sorted list of {@code n} values.
   *
   * @param n the number of values, at least 1
   * @param percent the percentile, in [0, 100]
   * @return {@code max(0, ceil(n * percent / 100) - 1)}
   */
  static int rankIndex(int n, double percent) {
    return NearestRank.index(n, percent);
  }

  /**
   * Returns the arithmetic mean.
   *
   * @param values the sample, not empty
   * @return the mean
   */
  public static double mean(double[] values) {
    if (values.length == 0) {
      throw new IllegalArgumentException("a mean needs at least one value: 0 given");
    }
    double sum = 0;
    for (double v : values) {
      sum += v;
    }
    return sum / values.length;
  }

  /**
   * Returns the arithmetic mean.
   *
   * @param values the sample, not empty, no nulls
   * @return the mean
   */
  public static double mean(Collection<? extends Number> values) {
    return mean(toArray(values));
  }

  /**
   * Copies numbers into an array.
   *
   * @param values the numbers, no nulls
   * @return the array, in iteration order
   * @throws NullPointerException naming the index of a null
   */
  public static double[] toArray(Collection<? extends Number> values) {
    double[] out = new double[values.size()];
    int i = 0;
    for (Number n : values) {
      if (n == null) {
        throw new NullPointerException("values must not contain null (index " + i + ")");
      }
      out[i++] = n.doubleValue();
    }
    return out;
  }
}
