package io.harbinger.experiments.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.harbinger.experiments.workload.HandlerMode;
import io.harbinger.experiments.workload.Job;
import io.harbinger.experiments.workload.KernelCalibration;
import io.harbinger.experiments.workload.MessageRecord;
import io.harbinger.experiments.workload.Workload;
import io.harbinger.experiments.workload.WorkloadConfig;
import io.harbinger.predictor.Ticker;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class TrackerTest {

  private static final Workload WORKLOAD =
      Workload.generate(new WorkloadConfig(11, 60, 1.0, 10), KernelCalibration.REFERENCE);

  private final AtomicLong now = new AtomicLong(1_000);
  private final Ticker ticker = () -> now.addAndGet(1_000);

  private Tracker tracker() {
    return new Tracker(WORKLOAD.jobs(), HandlerMode.SLEEP.create(nanos -> {}, ticker), ticker);
  }

  private static byte[] body(Job job) {
    return job.payloadJson().getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void seqOf_jobBody_readsItsSequenceNumber() {
    Job job = WORKLOAD.jobs().get(42);

    assertThat(Tracker.seqOf(body(job))).isEqualTo(42);
  }

  @Test
  void seqOf_garbage_isMinusOne() {
    for (String garbage :
        List.of(
            "",
            "hello",
            "{\"seq\":",
            "{\"seq\":,",
            "{\"seq\":-3,",
            "{\"seq\":12",
            "{\"seq\":99999999999,",
            "{\"id\":1,\"seq\":2,",
            "{\"seq\":1x,")) {
      assertThat(Tracker.seqOf(garbage.getBytes(StandardCharsets.UTF_8)))
          .as("body '%s'", garbage)
          .isEqualTo(-1);
    }
    assertThat(Tracker.seqOf(null)).isEqualTo(-1);
  }

  @Test
  void deliver_unknownBody_acksWithoutRecording() throws InterruptedException {
    Tracker tracker = tracker();

    boolean ack = tracker.deliver("not a job".getBytes(StandardCharsets.UTF_8));

    assertThat(ack).isTrue();
    assertThat(tracker.unknownBodies()).isEqualTo(1);
    assertThat(tracker.completed()).isZero();
  }

  @Test
  void deliver_failingWebhook_failsFirstAttemptAndCompletesOnRetry() throws InterruptedException {
    Tracker tracker = tracker();
    Job failing = WORKLOAD.jobs().stream().filter(Job::failsFirstAttempt).findFirst().orElseThrow();
    tracker.submitted(failing);

    boolean first = tracker.deliver(body(failing));
    boolean second = tracker.deliver(body(failing));

    assertThat(first).isFalse();
    assertThat(second).isTrue();
    MessageRecord record = tracker.records(Set.of()).get((int) failing.seq());
    assertThat(record.outcome()).isEqualTo(MessageRecord.Disposition.COMPLETED);
    assertThat(record.attempts()).isEqualTo(2);
    assertThat(record.firstStartNanos()).isLessThan(record.startNanos());
  }

  @Test
  void deliver_afterCompletion_countsDuplicateWithoutRerunning() throws InterruptedException {
    Tracker tracker = tracker();
    Job job = WORKLOAD.jobs().get(0);
    tracker.submitted(job);
    tracker.deliver(body(job));

    boolean again = tracker.deliver(body(job));

    assertThat(again).isTrue();
    assertThat(tracker.duplicates()).isEqualTo(1);
    assertThat(tracker.records(Set.of()).get(0).attempts()).isEqualTo(1);
  }

  @Test
  void records_undelivered_areLostOrDeadLettered() throws InterruptedException {
    Tracker tracker = tracker();
    for (Job job : WORKLOAD.jobs()) {
      tracker.submitted(job);
    }
    tracker.deliver(body(WORKLOAD.jobs().get(0)));

    List<MessageRecord> records = tracker.records(Set.of(1));

    assertThat(records).hasSize(WORKLOAD.jobs().size());
    assertThat(records.get(0).outcome()).isEqualTo(MessageRecord.Disposition.COMPLETED);
    assertThat(records.get(1).outcome()).isEqualTo(MessageRecord.Disposition.DEAD_LETTERED);
    assertThat(records.get(2).outcome()).isEqualTo(MessageRecord.Disposition.LOST);
  }

  @Test
  void constructor_jobsOutOfOrder_isRejected() {
    List<Job> reversed = List.of(WORKLOAD.jobs().get(1), WORKLOAD.jobs().get(0));

    assertThatThrownBy(
            () -> new Tracker(reversed, HandlerMode.SLEEP.create(n -> {}, ticker), ticker))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("numbered 0..n-1");
  }
}
