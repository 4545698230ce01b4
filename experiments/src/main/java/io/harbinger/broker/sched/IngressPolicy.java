package io.harbinger.broker.sched;

/**
 * Chooses a message's level at ingress and learns from its settlements.
 *
 * <p>Implementations are thread-safe when their predictor is; the broker routes outside its lock.
 * Create them with {@link Policy#newIngress}.
 */
public interface IngressPolicy {

  /**
   * Returns the arm's name, e.g. {@code "predictive"}.
   *
   * @return the name
   */
  String name();

  /**
   * Places a new job: calls {@link Job#place} with a level in [0, levels), and may record a
   * prediction.
   *
   * @param job a job that is not queued
   */
  void route(Job job);

  /**
   * Learns from a first-time acknowledgement within lease and TTL (reference section 1.13).
   *
   * @param job the acknowledged job
   * @param durationNanos the handler's duration
   */
  default void observe(Job job, double durationNanos) {}

  /**
   * Learns that a delivery of a job overran its lease and yielded no duration.
   *
   * @param job the job
   */
  default void observeCensored(Job job) {}
}
