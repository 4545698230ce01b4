package io.harbinger.experiments.stats;

import java.util.List;
import java.util.SplittableRandom;

/**
 * The ordinary (i.i.d.) percentile bootstrap of a mean: the moving-block bootstrap with blocks of
 * one value.
 *
 * <p>Example: with the defaults (10,000 resamples, seed 2026, 95%), the per-seed deltas {@code
 * [-0.30, -0.25, -0.28, -0.31, -0.26]} give the point {@code -0.28} and an interval inside {@code
 * [-0.31, -0.25]}: every resampled mean lies between the smallest and largest value.
 *
 * <p>Implementation notes: the bootstrap of the original implementation's evaluation (seed paper
 * section 4). Each resample draws n values with replacement and takes their mean ({@link
 * MovingBlockBootstrap} with block length 1 draws exactly that, in the same order from the same
 * generator); the 10,000 means are sorted; the interval is {@code sorted[250]} to {@code
 * sorted[9749]}; the point is the plain mean. The original draws with Python's {@code
 * random.Random(2026).choices}; this class draws with {@link SplittableRandom} seeded by the same
 * number, so its intervals are deterministic but not bit-identical to the original's (they agree to
 * the precision the resampling itself allows).
 *
 * <p>Instances are immutable and thread-safe; every call starts from the seed, so the same values
 * always give the same interval.
 */
public final class PercentileBootstrap implements Bootstrap {

  /** The original implementation's resample count. */
  public static final int DEFAULT_RESAMPLES = 10_000;

  /** The original implementation's seed. */
  public static final long DEFAULT_SEED = 2026;

  /** The original implementation's confidence level. */
  public static final double DEFAULT_CONFIDENCE = 0.95;

  private final int resamples;
  private final long seed;
  private final MovingBlockBootstrap blocksOfOne;

  /**
   * Creates a bootstrap.
   *
   * @param resamples resamples per interval, at least 100
   * @param seed the random seed, any value
   * @param confidence the confidence level, in (0, 1)
   */
  public PercentileBootstrap(int resamples, long seed, double confidence) {
    Bootstrap.checkParameters(resamples, confidence);
    this.resamples = resamples;
    this.seed = seed;
    this.blocksOfOne = new MovingBlockBootstrap(1, resamples, seed, confidence);
  }

  /**
   * Returns the original implementation's bootstrap: 10,000 resamples, seed 2026, 95%.
   *
   * @return the default bootstrap
   */
  public static PercentileBootstrap defaults() {
    return new PercentileBootstrap(DEFAULT_RESAMPLES, DEFAULT_SEED, DEFAULT_CONFIDENCE);
  }

  @Override
  public Interval meanInterval(List<Double> values) {
    return blocksOfOne.meanInterval(values);
  }

  @Override
  public int resamples() {
    return resamples;
  }

  @Override
  public String toString() {
    return "PercentileBootstrap[resamples=" + resamples + ", seed=" + seed + "]";
  }
}
