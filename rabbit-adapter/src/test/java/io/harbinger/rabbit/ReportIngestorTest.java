package io.harbinger.rabbit;

import static org.assertj.core.api.Assertions.assertThat;

import io.harbinger.predictor.HistogramPredictor;
import io.harbinger.predictor.Keys;
import io.harbinger.predictor.Mode;
import io.harbinger.predictor.ObserveResult;
import io.harbinger.predictor.PredictorConfig;
import io.harbinger.predictor.PredictorTuning;
import io.harbinger.proto.v1.DurationReport;
import io.harbinger.proto.v1.Outcome;
import io.harbinger.proto.v1.ReportBatch;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class ReportIngestorTest {

  private final AtomicLong nanos = new AtomicLong();
  private final HistogramPredictor predictor =
      new HistogramPredictor(PredictorConfig.defaults(), nanos::get, Mode.PREDICTIVE);
  private final ReportIngestor ingestor = new ReportIngestor(predictor);

  private static DurationReport.Builder ack(String producer, String jobType, long nanos) {
    return DurationReport.newBuilder()
        .setProducer(producer)
        .setJobType(jobType)
        .setOutcome(Outcome.OUTCOME_ACK)
        .setHandlerNanos(nanos);
  }

  /** The report as a learner reads it from the wire, written by the protobuf runtime. */
  private static io.harbinger.rabbit.DurationReport wire(DurationReport.Builder report) {
    return TestReports.batch(ReportBatch.newBuilder().addReports(report).build().toByteArray())
        .reports()
        .get(0);
  }

  private static long observations(HistogramPredictor p, String key) {
    return p.keyStats(key).map(s -> (long) s.observations()).orElse(0L);
  }

  @Test
  void ingest_validBatch_learnsAcksAndCountsTheRest() {
    ReportBatch batch =
        ReportBatch.newBuilder()
            .addReports(ack("shop", "email", 2_000_000))
            .addReports(ack("shop", "email", 3_000_000).setOutcome(Outcome.OUTCOME_NACK))
            .addReports(ack("shop", "email", 0).setOutcome(Outcome.OUTCOME_REJECT))
            .addReports(ack("shop", "email", 0).setOutcome(Outcome.OUTCOME_CENSORED))
            .setDroppedSinceLast(4)
            .build();

    assertThat(ingestor.ingest(batch.toByteArray())).isTrue();

    IngestStats s = ingestor.stats();
    assertThat(s.batches()).isEqualTo(1);
    assertThat(s.learned()).isEqualTo(1);
    assertThat(s.notLearned()).isEqualTo(2);
    assertThat(s.censored()).isEqualTo(1);
    assertThat(s.reporterDrops()).isEqualTo(4);
    assertThat(predictor.keyStats(Keys.of("shop", "email"))).isPresent();
  }

  @Test
  void ingest_garbageBytes_isCountedAsMalformedAndIgnored() {
    assertThat(ingestor.ingest(new byte[] {(byte) 0xFF, (byte) 0xFF, 0x01, 0x02})).isFalse();
    assertThat(ingestor.ingest("hello, not protobuf".getBytes())).isFalse();

    assertThat(ingestor.stats().malformedBatches()).isEqualTo(2);
    assertThat(ingestor.stats().batches()).isZero();
    assertThat(predictor.stats().accepted()).isZero();
  }

  @Test
  void ingest_oversizedOrMissingBody_isCountedAndIgnored() {
    assertThat(ingestor.ingest(new byte[ReportIngestor.MAX_BATCH_BYTES + 1])).isFalse();
    assertThat(ingestor.ingest((byte[]) null)).isFalse();

    assertThat(ingestor.stats().oversizedBatches()).isEqualTo(2);
  }

  @Test
  void ingest_absurdDurations_areRejected() {
    assertThat(ingestor.ingest(wire(ack("shop", "a", -5)))).isNull();
    assertThat(ingestor.ingest(wire(ack("shop", "a", Long.MAX_VALUE)))).isNull();
    assertThat(ingestor.ingest(wire(ack("shop", "a", ReportIngestor.MAX_DURATION.toNanos() + 1))))
        .isNull();

    assertThat(ingestor.stats().rejectedDurations()).isEqualTo(3);
    assertThat(observations(predictor, Keys.of("shop", "a"))).isZero();
  }

  @Test
  void ingest_badKeys_areRejected() {
    ingestor.ingest(wire(ack("", "a", 1_000)));
    ingestor.ingest(wire(ack("x".repeat(300), "a", 1_000)));
    ingestor.ingest(wire(ack("bad\u0001producer", "a", 1_000)));
    ingestor.ingest(wire(ack("", "a", 0).setOutcome(Outcome.OUTCOME_CENSORED)));

    assertThat(ingestor.stats().rejectedKeys()).isEqualTo(4);
    assertThat(predictor.stats().accepted()).isZero();
  }

  @Test
  void ingest_oversizedJobType_learnsTheProducerKeyLikeThePublisher() {
    ObserveResult r = ingestor.ingest(wire(ack("shop", "j".repeat(500), 1_000)));

    assertThat(r).isEqualTo(ObserveResult.ACCEPTED);
    assertThat(predictor.keyStats("shop")).isPresent();
  }

  @Test
  void ingest_unsetOrUnknownOutcome_isRejected() {
    ingestor.ingest(wire(ack("shop", "a", 1_000).setOutcome(Outcome.OUTCOME_UNSPECIFIED)));
    ingestor.ingest(wire(ack("shop", "a", 1_000).setOutcomeValue(77)));

    assertThat(ingestor.stats().rejectedOutcomes()).isEqualTo(2);
    assertThat(predictor.stats().accepted()).isZero();
  }

  // Reporters.

  private static byte[] batchOf(DurationReport.Builder... reports) {
    ReportBatch.Builder b = ReportBatch.newBuilder();
    for (DurationReport.Builder r : reports) {
      b.addReports(r);
    }
    return b.build().toByteArray();
  }

  private ReportIngestor judging(String reporters, int maxKeysPerReporter) {
    return ReportIngestor.builder(predictor)
        .reporters(TrustedReporters.parse(reporters))
        .maxKeysPerReporter(maxKeysPerReporter)
        .reporterKeyIdle(java.time.Duration.ofSeconds(60))
        .ticker(nanos::get)
        .build();
  }

  @Test
  void ingest_fromAnUntrustedReporterOrWithoutUserId_isCountedAndIgnoredWhole() {
    ReportIngestor judge = judging("worker", 100);

    assertThat(judge.ingest("bob", batchOf(ack("alice", "send_email", 30_000_000_000L)))).isFalse();
    assertThat(judge.ingest(null, batchOf(ack("alice", "send_email", 30_000_000_000L)))).isFalse();
    assertThat(judge.ingest("worker", batchOf(ack("alice", "send_email", 1_400_000)))).isTrue();

    assertThat(judge.stats().untrustedBatches()).isEqualTo(2);
    assertThat(judge.stats().learned()).isEqualTo(1);
    assertThat(observations(predictor, Keys.of("alice", "send_email"))).isEqualTo(1);
  }

  @Test
  void ingest_reportAboutAProducerTheReporterMayNotReportFor_isCountedAsForged() {
    ReportIngestor judge = judging("billing-worker=billing|shop", 100);

    judge.ingest(
        "billing-worker",
        batchOf(ack("billing", "invoice", 1_000), ack("alice", "send_email", 1_000)));

    assertThat(judge.stats().forgedReports()).isEqualTo(1);
    assertThat(judge.stats().learned()).isEqualTo(1);
  }

  @Test
  void ingest_floodOfNewKeysFromOneReporter_doesNotLockOutAnotherReportersKeys() {
    HistogramPredictor small =
        new HistogramPredictor(
            PredictorConfig.builder().maxKeys(64).build(),
            PredictorTuning.builder().shards(1).build(),
            nanos::get,
            Mode.PREDICTIVE);
    ReportIngestor judge =
        ReportIngestor.builder(small)
            .reporters(TrustedReporters.of("flooder", "alice"))
            .maxKeysPerReporter(32)
            .ticker(nanos::get)
            .build();
    for (int i = 0; i < 1_000; i++) {
      judge.ingest("flooder", batchOf(ack("flooder", "forged-" + i, 1_000)));
    }

    judge.ingest("alice", batchOf(ack("alice", "send_email", 1_000)));

    assertThat(small.keyStats(Keys.of("alice", "send_email"))).isPresent();
    assertThat(small.stats().keys()).isEqualTo(33);
    assertThat(judge.stats().reporterKeyLimit()).isEqualTo(1_000 - 32);
  }

  @Test
  void ingest_reporterKeySlot_isFreedAfterItsKeyWentQuiet() {
    ReportIngestor judge = judging("worker", 1);
    judge.ingest("worker", batchOf(ack("shop", "a", 1_000)));
    judge.ingest("worker", batchOf(ack("shop", "b", 1_000)));
    assertThat(judge.stats().reporterKeyLimit()).isEqualTo(1);

    nanos.addAndGet(java.time.Duration.ofSeconds(61).toNanos());
    judge.ingest("worker", batchOf(ack("shop", "b", 1_000)));

    assertThat(observations(predictor, Keys.of("shop", "b"))).isEqualTo(1);
  }

  @Test
  void ingest_absurdDroppedCounts_areRefused() {
    ingestor.ingest(
        ReportBatch.newBuilder().setDroppedSinceLast(Long.MAX_VALUE).build().toByteArray());
    ingestor.ingest(
        ReportBatch.newBuilder().setDroppedSinceLast(-1).build().toByteArray()); // 2^64 - 1
    ingestor.ingest(
        ReportBatch.newBuilder()
            .setDroppedSinceLast(ReportIngestor.MAX_DECLARED_DROPS)
            .build()
            .toByteArray());
    ingestor.ingest(ReportBatch.newBuilder().setDroppedSinceLast(7).build().toByteArray());

    assertThat(ingestor.stats().rejectedDropCounts()).isEqualTo(2);
    assertThat(ingestor.stats().reporterDrops()).isEqualTo(ReportIngestor.MAX_DECLARED_DROPS + 7);
  }

  @Test
  void ingest_trustedReporterDeclaringMoreDropsThanOneBatchMay_isRefused_andItsReportsLearned() {
    ReportIngestor judge = judging("worker", 100);
    // Four batches that declare about 4.2e9 drops each: 1.69e10 in all, were it added.
    for (int i = 0; i < 4; i++) {
      byte[] inflated =
          ReportBatch.newBuilder()
              .setDroppedSinceLast(4_227_858_432L)
              .addReports(ack("shop", "email", 2_000_000))
              .build()
              .toByteArray();
      assertThat(judge.ingest("worker", inflated)).isTrue();
    }
    judge.ingest(
        "worker",
        ReportBatch.newBuilder()
            .setDroppedSinceLast(ReportIngestor.MAX_DECLARED_DROPS + 1)
            .build()
            .toByteArray());

    assertThat(judge.stats().rejectedDropCounts()).isEqualTo(5);
    assertThat(judge.stats().reporterDrops()).isZero();
    assertThat(judge.stats().learned()).isEqualTo(4);
  }
}
