package io.harbinger.rabbit;

import com.google.protobuf.InvalidProtocolBufferException;
import io.harbinger.predictor.Keys;
import io.harbinger.predictor.ObserveResult;
import io.harbinger.predictor.Prediction;
import io.harbinger.predictor.Predictor;
import io.harbinger.proto.v1.DurationReport;
import io.harbinger.proto.v1.ReportBatch;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.atomic.LongAdder;

/**
 * Decodes report batches from the reports exchange, checks every report and feeds the valid ones to
 * a predictor: the rules every learner (embedded router, sidecar) applies alike.
 *
 * <p>Rules. A message over {@value #MAX_BATCH_BYTES} bytes, or that is not a {@link ReportBatch},
 * is counted and ignored whole. Within a batch, each report is judged alone: an unset or unknown
 * outcome, a key that cannot be formed or is over {@link Keys#MAX_KEY_BYTES} bytes (the key is
 * built from {@code producer} and {@code job_type} with {@link Keys#of}, exactly as the publisher
 * built it), or an acknowledged duration that is negative or above {@link #MAX_DURATION} is counted
 * and ignored. An acknowledged report is learned with {@link Predictor#observe}, a censored one
 * with {@link Predictor#observeCensored}; nacks and rejects are counted and teach nothing (seed
 * paper section 3.3: only successful executions describe a key's cost).
 *
 * <p>Example: a batch of three reports, an ack of 2 ms for {@code shop/send_email}, a nack, and an
 * ack of -5 ns, gives one observation, {@link Stats#notLearned()} 1 and {@link
 * Stats#rejectedDurations()} 1.
 *
 * <p>Thread-safe when the predictor is; never throws for bad input.
 */
public final class ReportIngestor {

  /** Largest report batch accepted, in bytes (4,096 reports of 256-byte keys fit easily). */
  public static final int MAX_BATCH_BYTES = 1 << 20;

  /** Longest acknowledged duration accepted: one day. */
  public static final Duration MAX_DURATION = Duration.ofDays(1);

  private static final long MAX_DURATION_NANOS = MAX_DURATION.toNanos();

  private final Predictor predictor;
  private final Listener listener;
  private final LongAdder batches = new LongAdder();
  private final LongAdder malformedBatches = new LongAdder();
  private final LongAdder oversizedBatches = new LongAdder();
  private final LongAdder learned = new LongAdder();
  private final LongAdder censored = new LongAdder();
  private final LongAdder notLearned = new LongAdder();
  private final LongAdder untracked = new LongAdder();
  private final LongAdder rejectedOutcomes = new LongAdder();
  private final LongAdder rejectedKeys = new LongAdder();
  private final LongAdder rejectedDurations = new LongAdder();
  private final LongAdder reporterDrops = new LongAdder();

  /**
   * Creates an ingestor feeding a predictor.
   *
   * @param predictor the predictor to learn
   */
  public ReportIngestor(Predictor predictor) {
    this(predictor, (key, report) -> {});
  }

  /**
   * Creates an ingestor feeding a predictor and telling a listener about every report it learned
   * from.
   *
   * @param predictor the predictor to learn
   * @param listener called after each accepted or censored report, on the ingesting thread; must
   *     not block
   */
  public ReportIngestor(Predictor predictor, Listener listener) {
    this.predictor = Objects.requireNonNull(predictor, "predictor");
    this.listener = Objects.requireNonNull(listener, "listener");
  }

  /** Hears about every report that taught the predictor something. */
  @FunctionalInterface
  public interface Listener {
    /**
     * Called after a report was learned.
     *
     * @param key the key it taught
     * @param report the report
     */
    void learned(String key, DurationReport report);
  }

  /**
   * Decodes and ingests one message body from the reports exchange.
   *
   * @param body the message body, possibly garbage
   * @return true when it was a well-formed batch (its reports may still have been rejected)
   */
  public boolean ingest(byte[] body) {
    if (body == null || body.length > MAX_BATCH_BYTES) {
      oversizedBatches.increment();
      return false;
    }
    ReportBatch batch;
    try {
      batch = ReportBatch.parseFrom(body);
    } catch (InvalidProtocolBufferException e) {
      malformedBatches.increment();
      return false;
    }
    ingest(batch);
    return true;
  }

  /**
   * Ingests a decoded batch.
   *
   * @param batch the batch
   */
  public void ingest(ReportBatch batch) {
    batches.increment();
    if (batch.getDroppedSinceLast() > 0) {
      reporterDrops.add(batch.getDroppedSinceLast());
    }
    for (DurationReport report : batch.getReportsList()) {
      ingest(report);
    }
  }

  /**
   * Judges and, when valid, learns one report.
   *
   * @param report the report
   * @return what the predictor answered, or null when the report taught nothing
   */
  public ObserveResult ingest(DurationReport report) {
    String key = Keys.of(report.getProducer(), report.getJobType());
    long size = report.hasSize() && report.getSize() >= 0 ? report.getSize() : -1;
    switch (report.getOutcome()) {
      case OUTCOME_ACK -> {
        if (!Keys.isValid(key)) {
          rejectedKeys.increment();
          return null;
        }
        long nanos = report.getHandlerNanos();
        if (nanos < 0 || nanos > MAX_DURATION_NANOS) {
          rejectedDurations.increment();
          return null;
        }
        if (report.getPublishedLevel() >= 0 && report.getPublishedLevel() < predictor.levels()) {
          // Drift signals: score the level stamped at publish against this duration, when the key
          // is trusted
          // now (the report does not say whether it was trusted then), with the key's current
          // estimate.
          Prediction now = predictor.peek(key);
          if (now.isPredicted()) {
            predictor.score(report.getPublishedLevel(), now.estimateNanos(), nanos);
          }
        }
        return notify(key, report, count(predictor.observe(key, size, nanos), learned));
      }
      case OUTCOME_CENSORED -> {
        if (!Keys.isValid(key)) {
          rejectedKeys.increment();
          return null;
        }
        return notify(key, report, count(predictor.observeCensored(key, size), censored));
      }
      case OUTCOME_NACK, OUTCOME_REJECT -> {
        notLearned.increment();
        return null;
      }
      default -> {
        rejectedOutcomes.increment();
        return null;
      }
    }
  }

  private ObserveResult notify(String key, DurationReport report, ObserveResult result) {
    if (result == ObserveResult.ACCEPTED) {
      listener.learned(key, report);
    }
    return result;
  }

  private ObserveResult count(ObserveResult result, LongAdder onSuccess) {
    switch (result) {
      case ACCEPTED -> onSuccess.increment();
      case UNTRACKED -> untracked.increment();
      case REJECTED_KEY -> rejectedKeys.increment();
      case REJECTED_DURATION -> rejectedDurations.increment();
    }
    return result;
  }

  /**
   * Returns a snapshot of the counters.
   *
   * @return the counters now
   */
  public Stats stats() {
    return new Stats(
        batches.sum(),
        malformedBatches.sum(),
        oversizedBatches.sum(),
        learned.sum(),
        censored.sum(),
        notLearned.sum(),
        untracked.sum(),
        rejectedOutcomes.sum(),
        rejectedKeys.sum(),
        rejectedDurations.sum(),
        reporterDrops.sum());
  }

  /**
   * The ingestor's counters.
   *
   * @param batches well-formed batches ingested
   * @param malformedBatches messages that were not a report batch
   * @param oversizedBatches messages over {@link #MAX_BATCH_BYTES} bytes, or without a body
   * @param learned acknowledged durations the predictor accepted
   * @param censored censored observations the predictor accepted
   * @param notLearned nacks and rejects
   * @param untracked valid reports for keys the predictor had no room for
   * @param rejectedOutcomes reports with an unset or unknown outcome
   * @param rejectedKeys reports whose key is empty, malformed or too long
   * @param rejectedDurations acknowledged reports with a negative or absurd duration
   * @param reporterDrops reports the reporters said they dropped
   */
  public record Stats(
      long batches,
      long malformedBatches,
      long oversizedBatches,
      long learned,
      long censored,
      long notLearned,
      long untracked,
      long rejectedOutcomes,
      long rejectedKeys,
      long rejectedDurations,
      long reporterDrops) {}
}
