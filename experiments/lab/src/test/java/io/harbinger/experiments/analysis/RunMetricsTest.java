package io.harbinger.experiments.analysis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.harbinger.experiments.workload.HandlerMode;
import io.harbinger.experiments.workload.JobType;
import io.harbinger.experiments.workload.MessageRecord;
import io.harbinger.experiments.workload.MessageRecord.Disposition;
import io.harbinger.experiments.workload.Phase;
import io.harbinger.experiments.workload.RunRecord;
import io.harbinger.experiments.workload.WorkloadConfig;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RunMetricsTest {

  private static final long MS = 1_000_000;

  static MessageRecord done(
      long seq, JobType type, Phase phase, long submitMs, long firstStartMs, long endMs) {
    return new MessageRecord(
        seq,
        type.service(),
        type,
        phase,
        5,
        submitMs * MS,
        firstStartMs * MS,
        firstStartMs * MS,
        endMs * MS,
        1,
        Math.max(0, endMs - firstStartMs),
        Disposition.COMPLETED);
  }

  static RunRecord run(String arm, long seed, List<MessageRecord> messages) {
    return new RunRecord(
        arm, seed, HandlerMode.SLEEP, WorkloadConfig.reference(seed), 0, Map.of(), messages);
  }

  @Test
  void of_knownLatencies_meanNearestRankAndClasses() {
    RunRecord r =
        run(
            "fifo",
            11,
            List.of(
                done(0, JobType.RESERVE_INVENTORY, Phase.STEADY, 0, 2, 10),
                done(1, JobType.PUSH_NOTIFICATION, Phase.STEADY, 0, 5, 20),
                done(2, JobType.SEND_SMS, Phase.FLASH_SALE, 100, 110, 130),
                done(3, JobType.EXPORT_REPORT, Phase.FLASH_SALE, 100, 350, 500)));

    RunMetrics m = RunMetrics.of(r);

    assertThat(m.all().meanMillis()).isEqualTo(115.0);
    assertThat(m.all().p50Millis()).isEqualTo(20.0);
    assertThat(m.all().p99Millis()).isEqualTo(400.0);
    assertThat(m.shortClass().count()).isEqualTo(2);
    assertThat(m.shortClass().p50Millis()).isEqualTo(10.0);
    assertThat(m.exportMaxWaitMillis()).isEqualTo(250.0);
    assertThat(m.throughputPerSecond()).isCloseTo(4 / 0.5, within(1e-9));
    assertThat(m.byPhase().get(Phase.FLASH_SALE).meanMillis()).isEqualTo(215.0);
    assertThat(m.byPhase().get(Phase.RAMP)).isEqualTo(LatencySummary.EMPTY);
    assertThat(m.byClass().get(JobType.SEND_SMS).p99Millis()).isEqualTo(30.0);
    assertThat(m.values()).containsEntry(RunMetrics.NOT_COMPLETED, 0.0);
    assertThat(m.values()).containsEntry("phase.flash.mean_ms", 215.0);
  }

  @Test
  void of_lostAndDeadLettered_countedAndExcludedFromLatency() {
    MessageRecord lost =
        new MessageRecord(
            5,
            JobType.SEND_SMS.service(),
            JobType.SEND_SMS,
            Phase.STEADY,
            80,
            0,
            -1,
            -1,
            -1,
            0,
            0,
            Disposition.LOST);
    MessageRecord dead =
        new MessageRecord(
            6,
            JobType.DELIVER_WEBHOOK.service(),
            JobType.DELIVER_WEBHOOK,
            Phase.STEADY,
            40,
            0,
            MS,
            2 * MS,
            -1,
            4,
            1500,
            Disposition.DEAD_LETTERED);
    RunRecord r =
        run("a", 11, List.of(done(0, JobType.SEND_SMS, Phase.STEADY, 0, 0, 100), lost, dead));

    RunMetrics m = RunMetrics.of(r);

    assertThat(m.lost()).isEqualTo(1);
    assertThat(m.deadLettered()).isEqualTo(1);
    assertThat(m.values()).containsEntry(RunMetrics.NOT_COMPLETED, 2.0);
    assertThat(m.all().meanMillis()).isEqualTo(100.0);
  }

  @Test
  void of_nothingCompleted_latencyMetricsNaN() {
    RunMetrics m = RunMetrics.of(run("a", 11, List.of()));

    assertThat(m.all().meanMillis()).isNaN();
    assertThat(m.throughputPerSecond()).isNaN();
    assertThat(m.exportMaxWaitMillis()).isNaN();
  }
}
