package io.harbinger.experiments.workload;

/**
 * Runs one attempt of a planned job, as a worker's message handler would.
 *
 * <p>Implementations are thread-safe: four workers call one handler concurrently. An attempt blocks
 * for the job's planned time (CPU work, sleeps or both).
 */
public interface Handler {

  /**
   * Runs one attempt.
   *
   * @param job the job
   * @param attempt the attempt number, from 1
   * @return whether the attempt succeeded and how long it took
   * @throws InterruptedException when the worker is interrupted during a sleep
   */
  AttemptResult handle(Job job, int attempt) throws InterruptedException;

  /**
   * The outcome of one attempt.
   *
   * @param succeeded true to acknowledge, false to reject for a retry
   * @param handlerNanos how long the attempt took, measured by the handler's ticker, at least 0
   */
  record AttemptResult(boolean succeeded, long handlerNanos) {
    /** Checks the duration. */
    public AttemptResult {
      if (handlerNanos < 0) {
        throw new IllegalArgumentException("handlerNanos must be >= 0: " + handlerNanos);
      }
    }
  }
}
