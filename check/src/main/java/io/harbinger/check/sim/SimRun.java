package io.harbinger.check.sim;

import io.harbinger.predictor.Outcome;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The result of one simulated arm: each evaluation job's start and end, and how its level was
 * chosen.
 *
 * <p>Times are simulated nanoseconds from the first evaluation arrival; job {@code i} is evaluation
 * job {@code i} of the {@link SimInput}. Instances are immutable after construction.
 */
public final class SimRun {

  private final SimInput input;
  private final SimulatedArm arm;
  private final long[] startNanos;
  private final long[] endNanos;
  private final long[] outcomes;
  private final long promotions;
  private final byte[] routedLevels;
  private final boolean[] estimated;

  SimRun(
      SimInput input,
      SimulatedArm arm,
      long[] startNanos,
      long[] endNanos,
      long[] outcomes,
      long promotions,
      byte[] routedLevels,
      boolean[] estimated) {
    this.input = input;
    this.arm = arm;
    this.startNanos = startNanos;
    this.endNanos = endNanos;
    this.outcomes = outcomes;
    this.promotions = promotions;
    this.routedLevels = routedLevels;
    this.estimated = estimated;
  }

  /** Returns the input simulated. */
  public SimInput input() {
    return input;
  }

  /** Returns the arm simulated. */
  public SimulatedArm arm() {
    return arm;
  }

  /** Returns the number of evaluation jobs. */
  public int jobs() {
    return startNanos.length;
  }

  /**
   * Returns when a job started on a worker.
   *
   * @param job in [0, jobs)
   * @return simulated nanoseconds
   */
  public long startNanos(int job) {
    return startNanos[job];
  }

  /**
   * Returns when a job ended.
   *
   * @param job in [0, jobs)
   * @return simulated nanoseconds
   */
  public long endNanos(int job) {
    return endNanos[job];
  }

  /**
   * Returns a job's wait in the queue.
   *
   * @param job in [0, jobs)
   * @return start - arrival, in nanoseconds
   */
  public long waitNanos(int job) {
    return startNanos[job] - input.arrivalNanos(job);
  }

  /**
   * Returns a job's latency.
   *
   * @param job in [0, jobs)
   * @return end - arrival, in nanoseconds
   */
  public long latencyNanos(int job) {
    return endNanos[job] - input.arrivalNanos(job);
  }

  /**
   * Returns the level a job was routed to on arrival, before any aging.
   *
   * @param job in [0, jobs)
   * @return the level, in [0, 3)
   */
  public int routedLevel(int job) {
    return routedLevels[job];
  }

  /**
   * Returns whether the prediction that routed a job carried an estimate (the key's own, a borrowed
   * one or a mean); false when it carried none, and for arms without a predictor.
   *
   * @param job in [0, jobs)
   * @return whether an estimate was used
   */
  public boolean hadEstimate(int job) {
    return estimated[job];
  }

  /** Returns the number of aging promotions during the run. */
  public long promotions() {
    return promotions;
  }

  /**
   * Returns how many evaluation jobs the predictor predicted or fell back for, by outcome; empty
   * for arms without a predictor.
   *
   * @return outcome name to count, in {@link Outcome} order, zero counts left out
   */
  public Map<String, Long> outcomes() {
    Map<String, Long> m = new LinkedHashMap<>();
    for (Outcome o : Outcome.values()) {
      if (outcomes[o.ordinal()] > 0) {
        m.put(o.name().toLowerCase(java.util.Locale.ROOT), outcomes[o.ordinal()]);
      }
    }
    return m;
  }

  /**
   * Returns the share of evaluation jobs that got a prediction.
   *
   * @return in [0, 1], or NaN for arms without a predictor
   */
  public double predictedShare() {
    if (!arm.routing().usesPredictor()) {
      return Double.NaN;
    }
    return (double) outcomes[Outcome.PREDICTED.ordinal()] / startNanos.length;
  }

  @Override
  public String toString() {
    return "SimRun["
        + arm.name()
        + ", "
        + startNanos.length
        + " jobs, outcomes "
        + Arrays.toString(outcomes)
        + "]";
  }
}
