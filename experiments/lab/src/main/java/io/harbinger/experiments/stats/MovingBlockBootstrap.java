package io.harbinger.experiments.stats;

import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The moving-block percentile bootstrap of a mean, for values in time order that are correlated
 * with their neighbours (windows that share a backlog).
 *
 * <p>Example: 28 per-window deltas with block length 4 are resampled as 7 blocks, each block four
 * adjacent windows starting at a uniformly drawn index in [0, 24]; the resampled mean is the mean
 * of the 28 concatenated values.
 *
 * <p>Implementation notes: seed paper section 4 (the replay's primary interval is "a moving-block
 * bootstrap over the paired per-window changes with blocks of four windows"). The blocks overlap
 * and do not wrap around (Kunsch's moving blocks); {@code ceil(n / L)} blocks are drawn and the
 * concatenation is cut to n values. When fewer values than the block length are given, the block
 * length falls to n, which makes every resample the full sample and the interval zero-width: with
 * so few windows there is nothing to resample honestly. Interval ends use the same indices as
 * {@link PercentileBootstrap} (250 and 9749 for 10,000 resamples at 95%).
 *
 * <p>Instances are immutable and thread-safe; every call starts from the seed.
 */
public final class MovingBlockBootstrap implements Bootstrap {

  /** The block length of the replay's primary interval. */
  public static final int DEFAULT_BLOCK_LENGTH = 4;

  private final int blockLength;
  private final int resamples;
  private final long seed;
  private final double confidence;

  /**
   * Creates a moving-block bootstrap.
   *
   * @param blockLength the number of adjacent values per block, at least 1
   * @param resamples resamples per interval, at least 100
   * @param seed the random seed, any value
   * @param confidence the confidence level, in (0, 1)
   */
  public MovingBlockBootstrap(int blockLength, int resamples, long seed, double confidence) {
    if (blockLength < 1) {
      throw new IllegalArgumentException("blockLength must be at least 1: " + blockLength);
    }
    Bootstrap.checkParameters(resamples, confidence);
    this.blockLength = blockLength;
    this.resamples = resamples;
    this.seed = seed;
    this.confidence = confidence;
  }

  /**
   * Returns the replay's bootstrap: blocks of 4, 10,000 resamples, seed 2026, 95%.
   *
   * @return the default moving-block bootstrap
   */
  public static MovingBlockBootstrap defaults() {
    return new MovingBlockBootstrap(
        DEFAULT_BLOCK_LENGTH,
        PercentileBootstrap.DEFAULT_RESAMPLES,
        PercentileBootstrap.DEFAULT_SEED,
        PercentileBootstrap.DEFAULT_CONFIDENCE);
  }

  @Override
  public Interval meanInterval(List<Double> values) {
    double[] sample = Bootstrap.checkedValues(values);
    int n = sample.length;
    int length = Math.min(blockLength, n);
    int starts = n - length + 1;
    SplittableRandom random = new SplittableRandom(seed);
    double[] means = new double[resamples];
    for (int r = 0; r < resamples; r++) {
      double sum = 0;
      int taken = 0;
      while (taken < n) {
        int start = random.nextInt(starts);
        for (int j = 0; j < length && taken < n; j++, taken++) {
          sum += sample[start + j];
        }
      }
      means[r] = sum / n;
    }
    Arrays.sort(means);
    return new Interval(
        Percentiles.mean(sample),
        means[Bootstrap.lowIndex(resamples, confidence)],
        means[Bootstrap.highIndex(resamples, confidence)],
        n);
  }

  @Override
  public int resamples() {
    return resamples;
  }

  /**
   * Returns the block length.
   *
   * @return the number of adjacent values per block
   */
  public int blockLength() {
    return blockLength;
  }

  @Override
  public String toString() {
    return "MovingBlockBootstrap[blockLength=" + blockLength + ", resamples=" + resamples + "]";
  }
}
