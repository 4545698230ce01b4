package io.harbinger.experiments.workload;

import java.util.Locale;
import java.util.Objects;

/**
 * What happened to one message of a run: the row of {@code messages.tsv}.
 *
 * <p>Times are from one monotonic clock per run (nanoseconds, any origin); {@link #ABSENT} marks a
 * time that never came (a lost message has no end). Latency is {@code end - submit}, wait is {@code
 * firstStart - submit}, as the original implementation's production-flow report defines them.
 *
 * @param seq the job's sequence number, at least 0
 * @param service the publishing service
 * @param jobType the job type
 * @param phase the phase of its arrival
 * @param plannedMillis the planned handler time, at least 0
 * @param submitNanos taken just before the publish
 * @param firstStartNanos when the first attempt started, or {@link #ABSENT}
 * @param startNanos when the last attempt started, or {@link #ABSENT}
 * @param endNanos when the successful attempt ended, or {@link #ABSENT}
 * @param attempts how many attempts ran, at least 0
 * @param handlerMillis the last attempt's handler time, at least 0
 * @param outcome completed, dead-lettered or lost
 */
public record MessageRecord(
    long seq,
    Service service,
    JobType jobType,
    Phase phase,
    double plannedMillis,
    long submitNanos,
    long firstStartNanos,
    long startNanos,
    long endNanos,
    int attempts,
    double handlerMillis,
    Disposition outcome) {

  /** The value of a time that never came. */
  public static final long ABSENT = -1;

  /** What finally happened to a message. */
  public enum Disposition {
    /** A successful attempt was acknowledged. */
    COMPLETED,
    /** Retries ran out and the message went to the dead-letter queue. */
    DEAD_LETTERED,
    /** Neither: the run ended without the message completing. */
    LOST;

    /**
     * Returns the name used in {@code messages.tsv}.
     *
     * @return {@code completed}, {@code dead_lettered} or {@code lost}
     */
    public String wireName() {
      return name().toLowerCase(Locale.ROOT);
    }

    /**
     * Parses a wire name.
     *
     * @param wireName the name
     * @return the outcome
     */
    public static Disposition fromWireName(String wireName) {
      for (Disposition o : values()) {
        if (o.wireName().equals(wireName)) {
          return o;
        }
      }
      throw new IllegalArgumentException(
          "outcome must be completed, dead_lettered or lost: " + wireName);
    }
  }

  /** Checks the fields. */
  public MessageRecord {
    Objects.requireNonNull(service, "service");
    Objects.requireNonNull(jobType, "jobType");
    Objects.requireNonNull(phase, "phase");
    Objects.requireNonNull(outcome, "outcome");
    if (jobType.service() != service) {
      throw new IllegalArgumentException(
          "job type "
              + jobType.wireName()
              + " belongs to "
              + jobType.service().wireName()
              + ", not "
              + service.wireName());
    }
    if (seq < 0 || attempts < 0 || !(plannedMillis >= 0) || !(handlerMillis >= 0)) {
      throw new IllegalArgumentException(
          "seq, attempts, plannedMillis and handlerMillis must be >= 0: "
              + seq
              + ", "
              + attempts
              + ", "
              + plannedMillis
              + ", "
              + handlerMillis);
    }
    if (outcome == Disposition.COMPLETED) {
      if (firstStartNanos == ABSENT || startNanos == ABSENT || endNanos == ABSENT) {
        throw new IllegalArgumentException(
            "a completed message needs its start and end times: seq " + seq);
      }
      if (firstStartNanos < submitNanos || startNanos < firstStartNanos || endNanos < startNanos) {
        throw new IllegalArgumentException(
            "times must follow submit <= first start <= start <= end: seq "
                + seq
                + ": "
                + submitNanos
                + ", "
                + firstStartNanos
                + ", "
                + startNanos
                + ", "
                + endNanos);
      }
    }
  }

  /**
   * Creates the record of a completed message.
   *
   * @param job the planned job
   * @param submitNanos the submit time
   * @param firstStartNanos the first attempt's start
   * @param startNanos the successful attempt's start
   * @param endNanos the successful attempt's end
   * @param attempts the attempts run
   * @param handlerMillis the successful attempt's handler time
   * @return the record
   */
  public static MessageRecord completed(
      Job job,
      long submitNanos,
      long firstStartNanos,
      long startNanos,
      long endNanos,
      int attempts,
      double handlerMillis) {
    return new MessageRecord(
        job.seq(),
        job.service(),
        job.type(),
        job.phase(),
        job.plannedMillis(),
        submitNanos,
        firstStartNanos,
        startNanos,
        endNanos,
        attempts,
        handlerMillis,
        Disposition.COMPLETED);
  }

  /**
   * Creates the record of a message that did not complete.
   *
   * @param job the planned job
   * @param outcome {@link Disposition#DEAD_LETTERED} or {@link Disposition#LOST}
   * @param submitNanos the submit time
   * @param firstStartNanos the first attempt's start, or {@link #ABSENT}
   * @param startNanos the last attempt's start, or {@link #ABSENT}
   * @param attempts the attempts run
   * @param handlerMillis the last attempt's handler time, 0 when none ran
   * @return the record
   */
  public static MessageRecord notCompleted(
      Job job,
      Disposition outcome,
      long submitNanos,
      long firstStartNanos,
      long startNanos,
      int attempts,
      double handlerMillis) {
    if (outcome == Disposition.COMPLETED) {
      throw new IllegalArgumentException(
          "use completed(...) for a completed message: seq " + job.seq());
    }
    return new MessageRecord(
        job.seq(),
        job.service(),
        job.type(),
        job.phase(),
        job.plannedMillis(),
        submitNanos,
        firstStartNanos,
        startNanos,
        ABSENT,
        attempts,
        handlerMillis,
        outcome);
  }

  /**
   * Returns whether the message completed.
   *
   * @return true for {@link Disposition#COMPLETED}
   */
  public boolean completed() {
    return outcome == Disposition.COMPLETED;
  }

  /**
   * Returns the latency, submit to end of the successful attempt.
   *
   * @return milliseconds, NaN when not completed
   */
  public double latencyMillis() {
    return completed() ? (endNanos - submitNanos) / 1e6 : Double.NaN;
  }

  /**
   * Returns the wait, submit to start of the first attempt.
   *
   * @return milliseconds, NaN when never started
   */
  public double waitMillis() {
    return firstStartNanos == ABSENT ? Double.NaN : (firstStartNanos - submitNanos) / 1e6;
  }

  /**
   * Returns the slowdown: latency over the handler time (at least 1 ms).
   *
   * @return the slowdown, NaN when not completed
   */
  public double slowdown() {
    return latencyMillis() / Math.max(handlerMillis, 1.0);
  }
}
