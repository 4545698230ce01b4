package io.harbinger.rabbit;

import java.util.List;
import java.util.Objects;

/**
 * A batch of {@link DurationReport}s, the message a {@link ReportPublisher} publishes to the
 * reports exchange and a {@link ReportIngestor} reads ({@code ReportBatch} in {@code
 * api/src/main/proto/harbinger/v1/reports.proto}; {@link ReportWire} is its codec).
 *
 * @param reporterId identifies the reporting process, for diagnostics only
 * @param sequence increases by one per batch from one reporter; gaps mean lost batches
 * @param sentAtMicros when the batch was sent, epoch microseconds
 * @param droppedSinceLast reports the reporter dropped since its previous batch (an unsigned 64-bit
 *     number on the wire, so a value above {@link Long#MAX_VALUE} reads as negative)
 * @param reports the reports, in settlement order
 */
public record ReportBatch(
    String reporterId,
    long sequence,
    long sentAtMicros,
    long droppedSinceLast,
    List<DurationReport> reports) {

  /** Checks the parts and copies the list. */
  public ReportBatch {
    Objects.requireNonNull(reporterId, "reporterId");
    reports = List.copyOf(reports);
  }
}
