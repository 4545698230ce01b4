package io.harbinger.experiments.stats;

import java.util.List;

/**
 * A resampling method that puts a confidence interval around the mean of paired values.
 *
 * <p>Two implementations: {@link PercentileBootstrap} resamples values independently (the
 * production flow pairs by seed, the simulator's 7 windows), {@link MovingBlockBootstrap} resamples
 * runs of adjacent values (28 windows of a replay, where adjacent windows share a backlog).
 */
public sealed interface Bootstrap permits PercentileBootstrap, MovingBlockBootstrap {

  /**
   * Returns the mean of the values with its confidence interval.
   *
   * @param values the per-pair values in unit order, at least one, all finite
   * @return the plain mean and the interval from the sorted resampled means
   */
  Interval meanInterval(List<Double> values);

  /**
   * Returns the number of resamples drawn per interval.
   *
   * @return the resample count
   */
  int resamples();

  /**
   * Returns the index of the lower interval end in the sorted resampled means: {@code
   * floor(resamples * (1 - confidence) / 2)}, 250 for 10,000 resamples at 95%.
   *
   * @param resamples the resample count
   * @param confidence the confidence level in (0, 1)
   * @return the index of the lower end
   */
  static int lowIndex(int resamples, double confidence) {
    return (int) Math.floor(resamples * (1 - confidence) / 2 + 1e-9);
  }

  /**
   * Returns the index of the upper interval end in the sorted resampled means: {@code
   * ceil(resamples * (1 + confidence) / 2) - 1}, 9749 for 10,000 resamples at 95%.
   *
   * @param resamples the resample count
   * @param confidence the confidence level in (0, 1)
   * @return the index of the upper end
   */
  static int highIndex(int resamples, double confidence) {
    return (int) Math.ceil(resamples * (1 + confidence) / 2 - 1e-9) - 1;
  }

  /**
   * Checks the values and copies them to an array.
   *
   * @param values the per-pair values
   * @return the values as an array
   */
  static double[] checkedValues(List<Double> values) {
    if (values.isEmpty()) {
      throw new IllegalArgumentException("a bootstrap needs at least one value: 0 given");
    }
    double[] out = Percentiles.toArray(values);
    for (int i = 0; i < out.length; i++) {
      if (!Double.isFinite(out[i])) {
        throw new IllegalArgumentException("values must be finite: " + out[i] + " at index " + i);
      }
    }
    return out;
  }

  /**
   * Checks the shared parameters.
   *
   * @param resamples the resample count
   * @param confidence the confidence level
   */
  static void checkParameters(int resamples, double confidence) {
    if (resamples < 100) {
      throw new IllegalArgumentException("resamples must be at least 100: " + resamples);
    }
    if (!(confidence > 0 && confidence < 1)) {
      throw new IllegalArgumentException("confidence must be in (0, 1): " + confidence);
    }
  }
}
