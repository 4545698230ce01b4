package io.harbinger.scheduler;

/**
 * One message as the scheduler sees it: what ingress decided about it and where it waits.
 *
 * <p>The broker and the simulator extend this class with their own payload (it is designed for
 * extension, so that a queued message costs one object). Ingress fields ({@link #key}, {@link
 * #flow}, {@link #sizeHint}, {@link #oracleTier}) are fixed at construction; an {@link
 * IngressPolicy} then calls {@link #place}; the {@link Scheduler} owns the rest. A job may sit in
 * at most one scheduler at a time.
 *
 * <p>Not thread-safe: read and change it under the same lock as its scheduler.
 */
public class QueuedJob {

  private final String key;
  private final String flow;
  private final long sizeHint;
  private final int oracleTier;

  int level = -1;
  int originalLevel = -1;
  double costNanos = Double.NaN;
  int predictedLevel = -1;
  double estimateNanos = Double.NaN;
  long arrivalNanos;
  long enqueueNanos;
  long expiresAtNanos = Long.MAX_VALUE;
  int pulledLevel = -1;
  double chargedMillis;

  QueuedJob prev;
  QueuedJob next;
  JobDeque deque;

  /**
   * Creates a job.
   *
   * @param key the predictor key (producer and job type, see {@code Keys.of}); may be empty
   * @param flow the job type, the unit of per-job-type fair queueing; null is taken as empty
   * @param sizeHint a non-negative size hint, or a negative value for none
   * @param oracleTier the true cost tier known to the oracle arm, or a negative value for none
   */
  public QueuedJob(String key, String flow, long sizeHint, int oracleTier) {
    this.key = key == null ? "" : key;
    this.flow = flow == null ? "" : flow;
    this.sizeHint = sizeHint;
    this.oracleTier = oracleTier;
  }

  /**
   * Sets the level chosen at ingress, with no expected cost.
   *
   * @param routedLevel the level, in [0, levels) of the scheduler it will be submitted to
   */
  public final void place(int routedLevel) {
    place(routedLevel, Double.NaN);
  }

  /**
   * Sets the level chosen at ingress and the expected handler cost charged by weighted selection.
   *
   * @param routedLevel the level, in [0, levels) of the scheduler it will be submitted to
   * @param expectedCostNanos the predicted handler duration, or NaN when there is no prediction
   */
  public final void place(int routedLevel, double expectedCostNanos) {
    if (deque != null) {
      throw new IllegalStateException("a queued job cannot be placed again: " + this);
    }
    this.level = routedLevel;
    this.originalLevel = routedLevel;
    this.costNanos = expectedCostNanos;
  }

  /**
   * Records what a predictor said at ingress, for drift scoring at settlement.
   *
   * @param level the level the predictor chose (whatever the mode)
   * @param estimate the estimate in nanoseconds, or NaN
   */
  public final void recordPrediction(int level, double estimate) {
    this.predictedLevel = level;
    this.estimateNanos = estimate;
  }

  /**
   * Sets the time after which the job has expired (its TTL deadline); aging never promotes an
   * expired job.
   *
   * @param deadlineNanos the ticker reading at which it expires; {@link Long#MAX_VALUE} for never
   */
  public final void expireAt(long deadlineNanos) {
    this.expiresAtNanos = deadlineNanos;
  }

  /** Returns the predictor key; never null. */
  public final String key() {
    return key;
  }

  /** Returns the job type used as the fair-queueing flow; never null. */
  public final String flow() {
    return flow;
  }

  /** Returns the size hint, or a negative value for none. */
  public final long sizeHint() {
    return sizeHint;
  }

  /** Returns the oracle tier, or a negative value for none. */
  public final int oracleTier() {
    return oracleTier;
  }

  /** Returns the level the job waits at now (or was pulled from), -1 before placement. */
  public final int level() {
    return level;
  }

  /** Returns the level chosen at ingress; retries go back to it. */
  public final int originalLevel() {
    return originalLevel;
  }

  /** Returns whether aging has moved the job above its original level. */
  public final boolean isPromoted() {
    return level < originalLevel;
  }

  /** Returns the expected cost set at ingress, or NaN. */
  public final double costNanos() {
    return costNanos;
  }

  /** Returns the level the predictor chose at ingress, or -1 when none was asked. */
  public final int predictedLevel() {
    return predictedLevel;
  }

  /** Returns the predictor's estimate at ingress, or NaN. */
  public final double estimateNanos() {
    return estimateNanos;
  }

  /** Returns the ticker reading when the job first entered the scheduler. */
  public final long arrivalNanos() {
    return arrivalNanos;
  }

  /** Returns the ticker reading when the job was last placed in a queue (aging restarts it). */
  public final long enqueueNanos() {
    return enqueueNanos;
  }

  /** Returns the TTL deadline, {@link Long#MAX_VALUE} for none. */
  public final long expiresAtNanos() {
    return expiresAtNanos;
  }

  /** Returns whether the job has expired at a ticker reading. */
  public final boolean isExpired(long nowNanos) {
    return nowNanos >= expiresAtNanos;
  }

  /** Returns the level of the last pull, or -1 before the first. */
  public final int pulledLevel() {
    return pulledLevel;
  }

  /** Returns the cost charged for the last pull, in milliseconds. */
  public final double chargedMillis() {
    return chargedMillis;
  }

  /** Returns whether the job waits in a queue now. */
  public final boolean isQueued() {
    return deque != null;
  }

  @Override
  public String toString() {
    return "QueuedJob[key="
        + key
        + ", flow="
        + flow
        + ", level="
        + level
        + "/"
        + originalLevel
        + "]";
  }
}
