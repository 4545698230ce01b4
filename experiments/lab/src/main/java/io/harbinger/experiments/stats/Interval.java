package io.harbinger.experiments.stats;

/**
 * A point estimate of a mean with its bootstrap confidence interval.
 *
 * @param point the plain mean of the values, finite
 * @param low the lower end of the interval, at most {@code point} for the percentile bootstrap
 * @param high the upper end of the interval, at least {@code low}
 * @param n the number of values the estimate is over, at least 1
 */
public record Interval(double point, double low, double high, int n) {

  /** Checks the fields. */
  public Interval {
    if (!Double.isFinite(point) || !Double.isFinite(low) || !Double.isFinite(high)) {
      throw new IllegalArgumentException(
          "point and interval must be finite: " + point + " [" + low + ", " + high + "]");
    }
    if (low > high) {
      throw new IllegalArgumentException("low must not exceed high: " + low + " > " + high);
    }
    if (n < 1) {
      throw new IllegalArgumentException("n must be at least 1: " + n);
    }
  }

  /**
   * Returns whether the interval lies entirely below a value.
   *
   * @param value the bound
   * @return {@code high < value}
   */
  public boolean below(double value) {
    return high < value;
  }
}
