package io.harbinger.rabbit;

import com.rabbitmq.client.AMQP;
import io.harbinger.predictor.Keys;
import io.harbinger.scheduler.KeyedCostAverage;

/**
 * When a pulling lanes consumer ({@link PullingLanesConsumer}) takes its next message ahead, while
 * its application runs a job: the running costs that time it.
 *
 * <p>Implementation notes. A {@code basic.get} is a round trip, and on a quorum queue a consensus
 * write, so a worker would idle a round trip (and one more per empty lane tried) between jobs.
 * While the application is full and nothing is held, the consumer takes the next message ahead
 * shortly before the running job is expected to end: at its hand-off plus the running average of
 * its key's jobs (producer and job type, as the reports key them; else of its level's jobs) less
 * one round trip per lane (the consumer's running average of its own {@code basic.get} calls), at
 * once behind a job shorter than that. The worker goes on at once, and the held message waits about
 * as long as those round trips when the job ends as expected, longer only by what the job overruns
 * that average. A level's average mixes its kinds of job, so behind a quick job of a level whose
 * average is long the worker would idle; the key's average times it. A job with neither average
 * yet, or a consumer that has not timed a {@code basic.get} yet, takes nothing ahead, and a free
 * consumer takes what arrives meanwhile.
 *
 * <p>Example: with 3 lanes, {@code basic.get} calls averaging 0.5 ms and a job whose key averages
 * 40 ms, a job handed over at t = 0 plans the take-ahead for t = 38.5 ms.
 *
 * <p>Not thread-safe: used under its consumer's lock ({@link LaneDispatch}).
 */
final class TakeAhead {

  /** EWMA weight of one {@code basic.get} round trip. */
  private static final double GET_WEIGHT = 0.2;

  /** The most keys whose running cost a consumer keeps for timing what it takes ahead. */
  static final int MAX_COST_KEYS = 1024;

  private final KeyedCostAverage keyCosts = new KeyedCostAverage(MAX_COST_KEYS);
  private final String jobTypeHeader;
  private final int lanes;
  private double getNanos = Double.NaN;
  private boolean planned;
  private long atNanos;

  /**
   * Creates the planner of one consumer.
   *
   * @param jobTypeHeader the header whose value is a message's job type
   * @param lanes the number of lanes, one round trip each at most before a message is found
   */
  TakeAhead(String jobTypeHeader, int lanes) {
    this.jobTypeHeader = jobTypeHeader;
    this.lanes = lanes;
  }

  /** The key of a delivery for its running cost: producer ({@code user-id}) and job type. */
  String costKey(AMQP.BasicProperties properties) {
    if (properties == null) {
      return Keys.NO_KEY;
    }
    return Keys.of(
        properties.getUserId(), DeliveryTracker.jobType(properties.getHeaders(), jobTypeHeader));
  }

  /** Books a finished job's duration for its key. */
  void finished(LaneJob job, long tookNanos) {
    if (job.costKey != null && !job.costKey.isEmpty()) {
      keyCosts.add(job.costKey, tookNanos);
    }
  }

  /** Books the round trip of one {@code basic.get}. */
  void timedGet(long tookNanos) {
    getNanos = Double.isNaN(getNanos) ? tookNanos : getNanos + GET_WEIGHT * (tookNanos - getNanos);
  }

  /**
   * Plans the take-ahead behind a job just handed over, or plans none.
   *
   * @param job the job, with its cost key and hand-off time
   * @param wanted whether the application is then full and nothing is held
   * @param levelAverageMillis the running average of the job's level, NaN when it has none
   * @return whether a take-ahead is planned
   */
  boolean plan(LaneJob job, boolean wanted, double levelAverageMillis) {
    double average = keyCosts.averageMillis(job.costKey) * 1e6;
    if (Double.isNaN(average)) {
      average = levelAverageMillis * 1e6;
    }
    planned = wanted && !Double.isNaN(average) && !Double.isNaN(getNanos);
    if (planned) {
      double lead = getNanos * lanes;
      atNanos = job.handedNanos + (long) Math.max(0, average - lead);
    }
    return planned;
  }

  /** Whether a take-ahead is planned. */
  boolean planned() {
    return planned;
  }

  /** When the planned take-ahead is due. */
  long atNanos() {
    return atNanos;
  }

  /** Whether a planned take-ahead is due. */
  boolean due(long nowNanos) {
    return planned && nowNanos - atNanos >= 0;
  }

  /** Forgets the plan: the take-ahead is under way. */
  void started() {
    planned = false;
  }
}
