package io.harbinger.experiments.workload;

import java.util.Locale;
import java.util.Objects;

/**
 * One planned job of the production flow: when it arrives and what its handler must do.
 *
 * <p>All times are as run, that is already divided by the workload's time scale.
 *
 * @param seq the sequence number, from 0 in arrival order
 * @param type the job type
 * @param phase the phase of its arrival
 * @param arrivalNanos when to publish it, from the start of the arrival window
 * @param units the kernel's units (KiB, items, pixels, words or chunks), 0 for I/O-only types
 * @param cpuMillis the planned CPU time of the kernel, from the calibration
 * @param sleepMillis the simulated I/O of the successful attempt
 * @param failedAttemptMillis how long the first attempt waits before failing, 0 when it does not
 * @param plannedMillis the planned handler time over all attempts: cpu + sleep + failed attempt
 * @param oracleTier the tertile of {@code plannedMillis} over the workload, 0 (cheapest) to 2
 */
public record Job(
    long seq,
    JobType type,
    Phase phase,
    long arrivalNanos,
    long units,
    double cpuMillis,
    double sleepMillis,
    double failedAttemptMillis,
    double plannedMillis,
    int oracleTier) {

  /** Checks the fields. */
  public Job {
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(phase, "phase");
    if (seq < 0 || arrivalNanos < 0 || units < 0) {
      throw new IllegalArgumentException(
          "seq, arrivalNanos and units must not be negative: "
              + seq
              + ", "
              + arrivalNanos
              + ", "
              + units);
    }
    if (!(cpuMillis >= 0 && sleepMillis >= 0 && failedAttemptMillis >= 0 && plannedMillis >= 0)) {
      throw new IllegalArgumentException(
          "planned durations must be >= 0: cpu "
              + cpuMillis
              + ", sleep "
              + sleepMillis
              + ", failed "
              + failedAttemptMillis
              + ", planned "
              + plannedMillis);
    }
    if (oracleTier < 0 || oracleTier > 2) {
      throw new IllegalArgumentException("oracleTier must be in [0, 2]: " + oracleTier);
    }
  }

  /**
   * Returns the publishing service.
   *
   * @return the type's service
   */
  public Service service() {
    return type.service();
  }

  /**
   * Returns whether the first attempt fails (the 2% of webhooks that time out).
   *
   * @return true when the first attempt fails
   */
  public boolean failsFirstAttempt() {
    return failedAttemptMillis > 0;
  }

  /**
   * Returns the {@code size_hint} header value every arm sends.
   *
   * @return the units for resize, invoice and export, else 0
   */
  public long sizeHint() {
    return type.sizeHinted() ? units : 0;
  }

  /**
   * Returns the message body: a small JSON object derived from the job, deterministic per seed.
   *
   * @return the JSON body
   */
  public String payloadJson() {
    String detail =
        switch (type) {
          case SEND_ORDER_EMAIL, GENERATE_INVOICE, RESERVE_INVENTORY ->
              "\"order_id\":\"o-" + Long.toHexString(seq * 2654435761L & 0xffffffffL) + "\"";
          case RESIZE_IMAGE -> "\"pixels\":" + units;
          case REINDEX_PRODUCT -> "\"words\":" + units;
          case PUSH_NOTIFICATION -> "\"device\":\"d-" + (seq % 997) + "\"";
          case SEND_SMS -> "\"phone\":\"+4915" + String.format(Locale.ROOT, "%07d", seq) + "\"";
          case DELIVER_WEBHOOK -> "\"partner\":\"p-" + (seq % 17) + "\"";
          case EXPORT_REPORT -> "\"chunks\":" + units;
        };
    return "{\"seq\":"
        + seq
        + ",\"job_type\":\""
        + type.wireName()
        + "\",\"phase\":\""
        + phase.wireName()
        + "\","
        + detail
        + "}";
  }
}
