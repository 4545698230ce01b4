package io.harbinger.experiments.levels;

import io.harbinger.experiments.workload.Job;
import io.harbinger.experiments.workload.Workload;
import io.harbinger.predictor.NearestRank;
import io.harbinger.predictor.PredictorConfig;
import java.util.Arrays;

/**
 * Level boundaries at the quantiles of a run's planned costs: the oracle's levels, and the
 * boundaries the naive learner places its medians against.
 *
 * <p>Example: with 3 levels the cuts are the nearest-rank 33.3rd and 66.7th percentiles of every
 * job's planned duration, the tertiles of {@link Workload}'s oracle tier; with 5 levels they are
 * the quintiles. A cost at or below cut j (and above cut j-1) is level j, so a job exactly at a cut
 * falls in the lower level, as the oracle tier does.
 *
 * <p>Immutable and thread-safe.
 */
public final class PlannedCostLevels {

  private final double[] cutsMillis;

  private PlannedCostLevels(double[] cutsMillis) {
    this.cutsMillis = cutsMillis;
  }

  /**
   * Computes the cuts of a workload.
   *
   * @param workload the run's jobs, at least one
   * @param levels the number of levels, in [2, 10]
   * @return the cuts
   */
  public static PlannedCostLevels of(Workload workload, int levels) {
    PredictorConfig.checkLevels(levels);
    double[] planned = workload.jobs().stream().mapToDouble(Job::plannedMillis).toArray();
    if (planned.length == 0) {
      throw new IllegalArgumentException("workload must have at least one job: 0");
    }
    Arrays.sort(planned);
    double[] cuts = new double[levels - 1];
    for (int j = 1; j < levels; j++) {
      cuts[j - 1] = NearestRank.of(planned, 100.0 * j / levels);
    }
    return new PlannedCostLevels(cuts);
  }

  /**
   * Returns the number of levels.
   *
   * @return the cut count plus one
   */
  public int levels() {
    return cutsMillis.length + 1;
  }

  /**
   * Returns the level of a duration: the number of cuts strictly below it.
   *
   * @param millis a duration; NaN gives the top level
   * @return in [0, levels)
   */
  public int levelOf(double millis) {
    int level = 0;
    while (level < cutsMillis.length && !(millis <= cutsMillis[level])) {
      level++;
    }
    return level;
  }

  /**
   * Returns the cuts.
   *
   * @return milliseconds, non-decreasing
   */
  public double[] cutsMillis() {
    return cutsMillis.clone();
  }

  @Override
  public String toString() {
    return "PlannedCostLevels" + Arrays.toString(cutsMillis);
  }
}
