package io.harbinger.experiments.workload;

import java.util.Objects;

/**
 * What a production-flow workload is generated from.
 *
 * @param seed the seed every random draw derives from (the reference runs use 11, 22, 33, 44, 55)
 * @param arrivalSeconds the length of the arrival window before time scaling, in [1, 86,400]; 300
 *     by default
 * @param rateScale the multiplier on every base rate, in (0, 100]; 1.8 on the reference machine
 * @param timeScale the compression of the whole run, in [1, 1000]: arrival times, sleeps and CPU
 *     units are divided by it (1 = real time, 10 = a 300 s run in 30 s)
 * @param webhooks whether the slow webhook attempts fail (the reference) or succeed
 * @param regime what changes in the shifted phase: the reference's cost shift, or an inversion too
 */
public record WorkloadConfig(
    long seed,
    double arrivalSeconds,
    double rateScale,
    double timeScale,
    Webhooks webhooks,
    Regime regime) {

  /** The reference arrival window. */
  public static final double DEFAULT_ARRIVAL_SECONDS = 300;

  /** The reference machine's rate scale. */
  public static final double REFERENCE_RATE_SCALE = 1.8;

  /** Checks the ranges. */
  public WorkloadConfig {
    Objects.requireNonNull(webhooks, "webhooks");
    Objects.requireNonNull(regime, "regime");
    if (!(arrivalSeconds >= 1 && arrivalSeconds <= 86_400)) {
      throw new IllegalArgumentException("arrivalSeconds must be in [1, 86400]: " + arrivalSeconds);
    }
    if (!(rateScale > 0 && rateScale <= 100)) {
      throw new IllegalArgumentException("rateScale must be in (0, 100]: " + rateScale);
    }
    if (!(timeScale >= 1 && timeScale <= 1000)) {
      throw new IllegalArgumentException("timeScale must be in [1, 1000]: " + timeScale);
    }
  }

  /**
   * Creates a configuration with the reference's cost shift.
   *
   * @param seed the seed
   * @param arrivalSeconds the arrival window before time scaling, in [1, 86,400]
   * @param rateScale the multiplier on every base rate, in (0, 100]
   * @param timeScale the compression of the whole run, in [1, 1000]
   * @param webhooks what slow webhook attempts do
   */
  public WorkloadConfig(
      long seed, double arrivalSeconds, double rateScale, double timeScale, Webhooks webhooks) {
    this(seed, arrivalSeconds, rateScale, timeScale, webhooks, Regime.SHIFT);
  }

  /**
   * Creates a configuration with the reference's failing slow webhooks and cost shift.
   *
   * @param seed the seed
   * @param arrivalSeconds the arrival window before time scaling, in [1, 86,400]
   * @param rateScale the multiplier on every base rate, in (0, 100]
   * @param timeScale the compression of the whole run, in [1, 1000]
   */
  public WorkloadConfig(long seed, double arrivalSeconds, double rateScale, double timeScale) {
    this(seed, arrivalSeconds, rateScale, timeScale, Webhooks.FAILING);
  }

  /**
   * Returns the reference configuration for a seed: 300 s, rate scale 1.8, real time.
   *
   * @param seed the seed
   * @return the configuration
   */
  public static WorkloadConfig reference(long seed) {
    return new WorkloadConfig(seed, DEFAULT_ARRIVAL_SECONDS, REFERENCE_RATE_SCALE, 1);
  }

  /**
   * Returns a copy with another rate scale.
   *
   * @param newRateScale the rate scale
   * @return the new configuration
   */
  public WorkloadConfig withRateScale(double newRateScale) {
    return new WorkloadConfig(seed, arrivalSeconds, newRateScale, timeScale, webhooks, regime);
  }

  /**
   * Returns a copy with another time scale.
   *
   * @param newTimeScale the time scale
   * @return the new configuration
   */
  public WorkloadConfig withTimeScale(double newTimeScale) {
    return new WorkloadConfig(seed, arrivalSeconds, rateScale, newTimeScale, webhooks, regime);
  }

  /**
   * Returns a copy with another webhook variant.
   *
   * @param newWebhooks what slow webhook attempts do
   * @return the new configuration
   */
  public WorkloadConfig withWebhooks(Webhooks newWebhooks) {
    return new WorkloadConfig(seed, arrivalSeconds, rateScale, timeScale, newWebhooks, regime);
  }

  /**
   * Returns a copy with another regime.
   *
   * @param newRegime what changes in the shifted phase
   * @return the new configuration
   */
  public WorkloadConfig withRegime(Regime newRegime) {
    return new WorkloadConfig(seed, arrivalSeconds, rateScale, timeScale, webhooks, newRegime);
  }

  /**
   * Returns the expected number of jobs of a type: the sum over phases of rate times phase length.
   *
   * @param type the job type
   * @return the expected count
   */
  public double expectedCount(JobType type) {
    double sum = 0;
    for (Phase p : Phase.values()) {
      sum += type.ratePerSecond(p, rateScale) * (p.endFraction() - p.startFraction());
    }
    return sum * arrivalSeconds;
  }
}
