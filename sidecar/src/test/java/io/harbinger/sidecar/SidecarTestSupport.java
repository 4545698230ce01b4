package io.harbinger.sidecar;

import io.harbinger.proto.v1.DurationReport;
import io.harbinger.proto.v1.Outcome;
import io.harbinger.proto.v1.ReportBatch;
import io.harbinger.rabbit.IngestStats;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;

/** Builds configurations and report batches for sidecar tests. */
final class SidecarTestSupport {

  static final long MS = 1_000_000;

  private SidecarTestSupport() {}

  /**
   * A configuration with free ports, no metrics endpoint, fast publication and a snapshot in a
   * folder.
   */
  static SidecarConfig config(Path dir, String... overrides) throws ConfigException {
    Properties p = new Properties();
    p.setProperty("harbinger.grpc.port", "0");
    p.setProperty("harbinger.metrics.port", "-1");
    p.setProperty("harbinger.routes.publish-interval", "10ms");
    p.setProperty("harbinger.routes.sweep-interval", "200ms");
    p.setProperty("harbinger.snapshot.path", dir.resolve("sidecar.snap").toString());
    for (int i = 0; i + 1 < overrides.length; i += 2) {
      p.setProperty("harbinger." + overrides[i], overrides[i + 1]);
    }
    return new ConfigLoader(Map.of(), p).load(Optional.empty());
  }

  /** Counts the messages a sidecar has read from its reports queue, whatever it made of them. */
  static long messagesRead(Sidecar sidecar) {
    IngestStats s = sidecar.reports().stats();
    return s.batches() + s.malformedBatches() + s.oversizedBatches() + s.untrustedBatches();
  }

  /** Counts the reports a sidecar has learned. */
  static long learned(Sidecar sidecar) {
    return sidecar.reports().stats().learned();
  }

  /** An acknowledged report as a consumer hands it to its {@code ReportPublisher}. */
  static io.harbinger.rabbit.DurationReport report(String producer, String jobType, long nanos) {
    return new io.harbinger.rabbit.DurationReport(
        producer, jobType, -1, io.harbinger.rabbit.Settlement.ACK, nanos, 0, 0, false, 0, 0);
  }

  static DurationReport ack(String producer, String jobType, long nanos) {
    return DurationReport.newBuilder()
        .setProducer(producer)
        .setJobType(jobType)
        .setOutcome(Outcome.OUTCOME_ACK)
        .setHandlerNanos(nanos)
        .setPublishedLevel(-1)
        .setWaitMicros(-1)
        .setPublishedAtMicros(System.currentTimeMillis() * 1000)
        .build();
  }

  /** A batch of n acks of each of three job types: 2 ms, 40 ms and 2 s. */
  static byte[] threeTypes(int n) {
    ReportBatch.Builder b = ReportBatch.newBuilder().setReporterId("test").setSequence(1);
    for (int i = 0; i < n; i++) {
      b.addReports(ack("shop", "reserve_inventory", 2 * MS));
      b.addReports(ack("shop", "send_email", 40 * MS));
      b.addReports(ack("shop", "export_report", 2000 * MS));
    }
    return b.build().toByteArray();
  }
}
