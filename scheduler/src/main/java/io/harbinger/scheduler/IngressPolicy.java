package io.harbinger.scheduler;

import io.harbinger.predictor.Predictor;
import java.util.Map;

/**
 * Chooses a message's level at ingress and learns from its settlements.
 *
 * <p>The implementations are built here: {@link #fixed} (FIFO, or the single queue of fair
 * queueing), {@link #staticMap}, {@link #predictive}, {@link #shadow} and {@link #oracle}.
 * Implementations are thread-safe when their predictor is; the broker routes outside its lock.
 */
public interface IngressPolicy {

  /**
   * Returns the arm's name, e.g. {@code "predictive"}.
   *
   * @return the name
   */
  String name();

  /**
   * Places a new job: calls {@link QueuedJob#place} with a level in [0, levels), and may record a
   * prediction.
   *
   * @param job a job that is not queued
   */
  void route(QueuedJob job);

  /**
   * Learns from a first-time acknowledgement within lease and TTL (seed paper sections 3.2 and
   * 3.4).
   *
   * @param job the acknowledged job
   * @param durationNanos the handler's duration
   */
  default void observe(QueuedJob job, double durationNanos) {}

  /**
   * Learns that a delivery of a job overran its lease and yielded no duration.
   *
   * @param job the job
   */
  default void observeCensored(QueuedJob job) {}

  /**
   * Returns a policy that places every job at one level, with no cost: FIFO at level 0.
   *
   * @param name the arm's name
   * @param level the level, in [0, levels) of the scheduler it feeds
   * @return the policy
   */
  static IngressPolicy fixed(String name, int level) {
    return new FixedIngress(name, level);
  }

  /**
   * Returns a fixed map from job type ({@link QueuedJob#flow}) to level; unmapped types take the
   * default level, the middle one.
   *
   * @param name the arm's name
   * @param levels the number of levels, in [2, 10]
   * @param levelsByJobType the level of each job type, each in [0, levels)
   * @return the policy
   * @throws IllegalArgumentException naming a level out of range
   */
  static IngressPolicy staticMap(String name, int levels, Map<String, Integer> levelsByJobType) {
    return new StaticIngress(name, levels, levelsByJobType);
  }

  /**
   * Returns routing by the predictor (seed paper section 3.4): the prediction's level, and a
   * trusted estimate as the job's expected cost.
   *
   * @param name the arm's name
   * @param predictor the predictor; it learns only what {@link #observe} and {@link
   *     #observeCensored} report
   * @return the policy
   */
  static PredictiveIngress predictive(String name, Predictor predictor) {
    return new PredictiveIngress(name, predictor, false);
  }

  /**
   * Returns shadow routing: the predictor predicts and learns, but every job takes the default
   * level with no cost.
   *
   * @param name the arm's name
   * @param predictor the predictor
   * @return the policy
   */
  static PredictiveIngress shadow(String name, Predictor predictor) {
    return new PredictiveIngress(name, predictor, true);
  }

  /**
   * Returns the oracle: the true cost tier the job carries ({@link QueuedJob#oracleTier}); a
   * missing or out-of-range tier takes the default level, as in the original implementation.
   *
   * @param name the arm's name
   * @param levels the number of levels
   * @return the policy
   */
  static IngressPolicy oracle(String name, int levels) {
    return new OracleIngress(name, levels);
  }
}
