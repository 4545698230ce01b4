package io.harbinger.experiments.stats;

/** What one pair of (arm, baseline) values becomes before the bootstrap. */
public enum PairedStatistic {
  /** {@code (arm - baseline) / baseline}: -0.25 means the arm is 25% lower. */
  RELATIVE_DELTA {
    @Override
    double of(double arm, double baseline) {
      return (arm - baseline) / baseline;
    }
  },
  /** {@code arm / baseline}: 1.04 means the arm is 4% higher. */
  RATIO {
    @Override
    double of(double arm, double baseline) {
      return arm / baseline;
    }
  };

  /**
   * Computes the paired value; the baseline must be non-zero (checked by {@link Pairing}).
   *
   * @param arm the arm's value
   * @param baseline the baseline's value
   * @return the paired value
   */
  abstract double of(double arm, double baseline);
}
