package io.harbinger.predictor;

import java.util.Arrays;

/**
 * Immutable level boundaries: L-1 strictly increasing durations that divide expected durations into
 * L levels.
 *
 * <p>Boundary j is the j/L quantile of the pooled histogram (seed paper equation 2). A duration's
 * level is the number of boundaries at or below it (bisect-right), so with boundaries [5 ms, 40 ms]
 * an estimate of 3 ms is level 0, exactly 5 ms is level 1 and 900 ms is level 2.
 *
 * @see HistogramPredictor#boundaries()
 */
public final class Boundaries {

  private final long sequence;
  private final double[] nanos;

  private Boundaries(long sequence, double[] nanos) {
    this.sequence = sequence;
    this.nanos = nanos;
  }

  /**
   * Creates boundaries after checking them.
   *
   * @param sequence publication number, starting at 1 and increasing by one per change; at least 1
   * @param nanos the boundaries in nanoseconds: at least one, finite, the first positive, strictly
   *     increasing
   * @return the boundaries
   * @throws IllegalArgumentException if any rule is broken
   */
  public static Boundaries of(long sequence, double... nanos) {
    if (sequence < 1) {
      throw new IllegalArgumentException("sequence must be at least 1: " + sequence);
    }
    if (!isValid(nanos)) {
      throw new IllegalArgumentException(
          "boundaries must be finite, positive and strictly increasing: " + Arrays.toString(nanos));
    }
    return new Boundaries(sequence, nanos.clone());
  }

  static boolean isValid(double[] nanos) {
    if (nanos.length < 1 || nanos.length > PredictorConfig.MAX_LEVELS - 1) {
      return false;
    }
    double previous = 0;
    for (double b : nanos) {
      if (!(b > previous) || Double.isInfinite(b)) {
        return false;
      }
      previous = b;
    }
    return true;
  }

  /**
   * Returns the publication number of these boundaries.
   *
   * @return at least 1
   */
  public long sequence() {
    return sequence;
  }

  /**
   * Returns the number of levels these boundaries divide.
   *
   * @return the boundary count plus one
   */
  public int levels() {
    return nanos.length + 1;
  }

  /**
   * Returns one boundary.
   *
   * @param index in [0, levels - 1)
   * @return nanoseconds
   */
  public double nanos(int index) {
    return nanos[index];
  }

  /**
   * Returns a copy of the boundaries.
   *
   * @return nanoseconds, increasing
   */
  public double[] toArray() {
    return nanos.clone();
  }

  /**
   * Returns the level of a duration: the number of boundaries at or below it.
   *
   * @param durationNanos the duration; NaN maps to the top level
   * @return in [0, levels)
   */
  public int levelOf(double durationNanos) {
    int level = 0;
    while (level < nanos.length && !(durationNanos < nanos[level])) {
      level++;
    }
    return level;
  }

  /**
   * Returns the level of an estimate, keeping a held level while the estimate stays near its
   * interval.
   *
   * <p>A key holding level h keeps it while the estimate lies in [b(h-1)·(1-m), b(h)·(1+m)), the
   * held level's own interval widened by the margin m of each neighbouring boundary (as in the
   * original implementation).
   *
   * @param durationNanos the estimate
   * @param held the level the key held, or -1 for none
   * @param margin the hysteresis margin, in [0, 1)
   * @return in [0, levels)
   */
  public int levelOf(double durationNanos, int held, double margin) {
    int level = levelOf(durationNanos);
    if (held < 0 || held >= levels() || level == held) {
      return level;
    }
    double low = held == 0 ? 0 : nanos[held - 1] * (1 - margin);
    double high = held == nanos.length ? Double.POSITIVE_INFINITY : nanos[held] * (1 + margin);
    return durationNanos >= low && durationNanos < high ? held : level;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Boundaries other
        && other.sequence == sequence
        && Arrays.equals(other.nanos, nanos);
  }

  @Override
  public int hashCode() {
    return Long.hashCode(sequence) * 31 + Arrays.hashCode(nanos);
  }

  @Override
  public String toString() {
    return "Boundaries{sequence=" + sequence + ", nanos=" + Arrays.toString(nanos) + "}";
  }
}
