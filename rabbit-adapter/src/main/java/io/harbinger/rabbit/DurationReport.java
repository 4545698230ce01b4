package io.harbinger.rabbit;

import java.util.Objects;

/**
 * What a consumer reports about one settled delivery, the unit learners learn from. Reports travel
 * to the reports exchange in {@link ReportBatch}es; {@code DurationReport} in {@code
 * api/src/main/proto/harbinger/v1/reports.proto} is their wire format, which {@link ReportWire}
 * reads and writes without a protobuf library on the application's class path.
 *
 * <p>Example: {@code new DurationReport("shop", "send_email", -1, Settlement.ACK, 2_000_000, 150,
 * 0, false, publishedAt, settledAt)} reports a 2 ms acknowledged {@code send_email} job of producer
 * {@code shop} that waited 150 us at level 0.
 *
 * @param producer the delivered message's producer identity (its validated {@code user-id}); empty
 *     when it carried none
 * @param jobType its job type (the {@code x-job-type} header by default); empty when absent
 * @param size its size hint, at least 0, or -1 when it has none
 * @param settlement how the delivery was settled
 * @param handlerNanos handler time in nanoseconds, from a monotonic clock; 0 when censored
 * @param waitMicros time queued in microseconds, delivery minus publish, or -1 when unknown
 * @param publishedLevel the level stamped at publish, or -1 when unknown
 * @param redelivered whether RabbitMQ marked the delivery redelivered
 * @param publishedAtMicros publish time, epoch microseconds, or 0 when unknown
 * @param settledAtMicros settle time, epoch microseconds, by the consumer's clock
 */
public record DurationReport(
    String producer,
    String jobType,
    long size,
    Settlement settlement,
    long handlerNanos,
    long waitMicros,
    int publishedLevel,
    boolean redelivered,
    long publishedAtMicros,
    long settledAtMicros) {

  /** Checks that the strings and the settlement are given; a negative size means none. */
  public DurationReport {
    Objects.requireNonNull(producer, "producer");
    Objects.requireNonNull(jobType, "jobType");
    Objects.requireNonNull(settlement, "settlement");
    if (size < 0) {
      size = -1;
    }
  }

  /**
   * Returns whether the report carries a size hint.
   *
   * @return true when {@link #size()} is at least 0
   */
  public boolean hasSize() {
    return size >= 0;
  }
}
