package io.harbinger.scheduler;

import java.util.Arrays;
import java.util.List;

/**
 * Worker-time shares by virtual clocks (seed paper section 3.7, equation 4, as the original
 * implementation applies it).
 *
 * <p>With weights (8, 3, 1) and every level backlogged, the levels receive two thirds, a quarter
 * and a twelfth of the charged worker time. Example: with costs 2, 30 and 600 ms, level 0 is pulled
 * about 4 times per unit of virtual time, level 1 about 0.1 times and level 2 about 1/600 times, so
 * level 0 gets hundreds of times the pulls of level 2 while the charged milliseconds split 8:3:1.
 *
 * <p>Implementation notes: a pull serves the non-empty level with the smallest clock (ties to the
 * lower level), raises the floor {@code vfloor} to that clock, then adds cost/weight to it. A level
 * that goes from empty to non-empty has its clock raised to the floor, so an idle level cannot bank
 * credit (like CFS's {@code min_vruntime}). A refund subtracts the charge again.
 *
 * <p>Not thread-safe.
 */
public final class WeightedLevelSelector implements LevelSelector {

  /** Smallest allowed weight. */
  public static final int MIN_WEIGHT = 1;

  /** Largest allowed weight. */
  public static final int MAX_WEIGHT = 1000;

  private final double[] weights;
  private final double[] clocks;
  private double floor;

  /**
   * Creates a selector.
   *
   * @param weights one weight per level, each in [1, 1000]
   */
  public WeightedLevelSelector(List<Integer> weights) {
    this.weights = new double[weights.size()];
    for (int i = 0; i < this.weights.length; i++) {
      int w = weights.get(i);
      if (w < MIN_WEIGHT || w > MAX_WEIGHT) {
        throw new IllegalArgumentException(
            "level weights must be in [" + MIN_WEIGHT + ", " + MAX_WEIGHT + "]: " + weights);
      }
      this.weights[i] = w;
    }
    this.clocks = new double[this.weights.length];
  }

  @Override
  public int select(int nonEmptyMask) {
    int mask = nonEmptyMask;
    int best = -1;
    double bestClock = Double.POSITIVE_INFINITY;
    while (mask != 0) {
      int level = Integer.numberOfTrailingZeros(mask);
      mask &= mask - 1;
      if (clocks[level] < bestClock) {
        bestClock = clocks[level];
        best = level;
      }
    }
    return best;
  }

  @Override
  public void charge(int level, double costMillis) {
    floor = Math.max(floor, clocks[level]);
    clocks[level] += costMillis / weights[level];
  }

  @Override
  public void refund(int level, double costMillis) {
    clocks[level] -= costMillis / weights[level];
  }

  @Override
  public void activated(int level) {
    clocks[level] = Math.max(clocks[level], floor);
  }

  @Override
  public boolean usesCost() {
    return true;
  }

  /**
   * Returns a level's virtual clock, for statistics and tests.
   *
   * @param level in [0, levels)
   * @return the clock, in weighted milliseconds
   */
  public double clock(int level) {
    return clocks[level];
  }

  @Override
  public String toString() {
    return "WeightedLevelSelector" + Arrays.toString(weights);
  }
}
