package io.harbinger.experiments.levels;

import io.harbinger.experiments.workload.JobType;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;

/**
 * The naive learner of the comparison: per job type, the median of its last 101 successful
 * durations, with no trust gates, placed against fixed boundaries.
 *
 * <p>Example: after durations of 5, 7 and 90 ms for {@code reserve_inventory}, its estimate is the
 * median, 7 ms; against cuts of [8 ms, 40 ms] that is level 0. A type with no duration yet takes
 * the middle level, {@code levels / 2}.
 *
 * <p>Implementation notes: the arm the independent harness compared the adapter with. It has none
 * of the predictor's protections (seed paper section 3.5): no minimum count, no spread or censored
 * check, no decay but the window, and boundaries that are given (the quantiles of the run's planned
 * costs, which only an oracle knows) rather than learned.
 *
 * <p>Thread-safe: each type's window is guarded by its own lock.
 */
public final class NaiveMedian {

  /** The window of durations per type. */
  public static final int WINDOW = 101;

  private final PlannedCostLevels boundaries;
  private final Map<JobType, Window> windows = new EnumMap<>(JobType.class);

  /**
   * Creates a learner with no durations.
   *
   * @param boundaries where estimates are placed
   */
  public NaiveMedian(PlannedCostLevels boundaries) {
    this.boundaries = Objects.requireNonNull(boundaries, "boundaries");
    for (JobType t : JobType.values()) {
      windows.put(t, new Window());
    }
  }

  /**
   * Learns one successful duration.
   *
   * @param type the job type
   * @param millis the handler's duration, non-negative and finite
   */
  public void learn(JobType type, double millis) {
    if (!(millis >= 0 && Double.isFinite(millis))) {
      throw new IllegalArgumentException("millis must be finite and >= 0: " + millis);
    }
    windows.get(type).add(millis);
  }

  /**
   * Returns the current estimate of a type.
   *
   * @param type the job type
   * @return the median of its window in milliseconds, or NaN before its first duration
   */
  public double estimateMillis(JobType type) {
    return windows.get(type).median();
  }

  /**
   * Returns the level of a type's next message.
   *
   * @param type the job type
   * @return the estimate's level, or the middle level before the type's first duration
   */
  public int level(JobType type) {
    double estimate = estimateMillis(type);
    return Double.isNaN(estimate) ? boundaries.levels() / 2 : boundaries.levelOf(estimate);
  }

  /**
   * Returns the number of levels.
   *
   * @return the boundaries' levels
   */
  public int levels() {
    return boundaries.levels();
  }

  private static final class Window {
    private final double[] values = new double[WINDOW];
    private int size;
    private int next;
    private double median = Double.NaN;

    synchronized void add(double millis) {
      values[next] = millis;
      next = (next + 1) % WINDOW;
      size = Math.min(size + 1, WINDOW);
      double[] sorted = Arrays.copyOf(values, size);
      Arrays.sort(sorted);
      median = size % 2 == 1 ? sorted[size / 2] : (sorted[size / 2 - 1] + sorted[size / 2]) / 2;
    }

    synchronized double median() {
      return median;
    }
  }
}
