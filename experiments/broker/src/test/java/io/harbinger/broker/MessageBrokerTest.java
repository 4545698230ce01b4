package io.harbinger.broker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.google.protobuf.ByteString;
import io.harbinger.predictor.HistogramPredictor;
import io.harbinger.predictor.KeyStats;
import io.harbinger.predictor.Keys;
import io.harbinger.predictor.ManualTicker;
import io.harbinger.predictor.Mode;
import io.harbinger.predictor.PredictorConfig;
import io.harbinger.scheduler.SchedulerConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;

class MessageBrokerTest {

  private final ManualTicker clock = new ManualTicker();
  private final HistogramPredictor predictor =
      new HistogramPredictor(PredictorConfig.defaults(), clock, Mode.PREDICTIVE);
  private final MessageBroker broker =
      new MessageBroker(
          BrokerConfig.defaults().withPolicy(Policy.PREDICTIVE, SchedulerConfig.defaults()),
          predictor,
          clock);
  private final String producer = broker.registerProducer();
  private final String consumer = broker.registerConsumer();

  private String submit(String jobType) {
    return broker.submit(
        producer,
        ByteString.copyFromUtf8("body"),
        Map.of("x-job-type", jobType),
        OptionalLong.empty());
  }

  private Delivered pull() throws InterruptedException {
    return broker.pull(consumer, 1, () -> false);
  }

  private static void assertRefused(ThrowingCallable call, BrokerException.Kind kind, String text) {
    assertThatThrownBy(call)
        .isInstanceOfSatisfying(BrokerException.class, e -> assertThat(e.kind()).isEqualTo(kind))
        .hasMessageContaining(text);
  }

  private long observations(String jobType) {
    return predictor.keyStats(Keys.of(producer, jobType)).map(KeyStats::observations).orElse(0L);
  }

  @Test
  void ack_withinLease_completesAndLearns() throws Exception {
    String id = submit("email");
    Delivered d = pull();
    assertThat(d.messageId()).isEqualTo(id);
    assertThat(d.deliveryCount()).isEqualTo(1);
    assertThat(d.leaseMillis()).isEqualTo(30_000);
    assertThat(d.headers()).containsEntry(MessageBroker.PRODUCER_HEADER, producer);

    broker.ack(consumer, id, d.attemptToken(), 5_000_000);

    BrokerStats stats = broker.stats();
    assertThat(stats.completed()).isEqualTo(1);
    assertThat(stats.learned()).isEqualTo(1);
    assertThat(observations("email")).isEqualTo(1);
    assertThat(pull()).isNull();
  }

  @Test
  void ack_replayed_answersOkWithoutRepeatingItsEffect() throws Exception {
    String id = submit("email");
    Delivered d = pull();
    broker.ack(consumer, id, d.attemptToken(), 5_000_000);
    broker.ack(consumer, id, d.attemptToken(), 5_000_000);

    assertThat(broker.stats().completed()).isEqualTo(1);
    assertThat(broker.stats().replays()).isEqualTo(1);
    assertThat(observations("email")).isEqualTo(1);
    assertRefused(
        () -> broker.nack(consumer, id, d.attemptToken(), 0, "late"),
        BrokerException.Kind.FAILED_PRECONDITION,
        "Attempt already settled or expired");
    String other = broker.registerConsumer();
    assertRefused(
        () -> broker.ack(other, id, d.attemptToken(), 0),
        BrokerException.Kind.PERMISSION_DENIED,
        "another consumer");
  }

  @Test
  void nack_retriesAtTailOfOriginalLevelThenDeadLettersOnThirdFailure() throws Exception {
    String first = submit("a");
    String second = submit("a");
    Delivered d1 = pull();
    assertThat(d1.messageId()).isEqualTo(first);
    broker.nack(consumer, first, d1.attemptToken(), 1_000_000, "boom");
    // retried at the tail: the other message comes first
    assertThat(pull().messageId()).isEqualTo(second);
    Delivered d2 = pull();
    assertThat(d2.messageId()).isEqualTo(first);
    assertThat(d2.deliveryCount()).isEqualTo(2);
    assertThat(d2.attemptToken()).isNotEqualTo(d1.attemptToken());
    broker.nack(consumer, first, d2.attemptToken(), 1_000_000, "boom");
    Delivered d3 = pull();
    broker.nack(consumer, first, d3.attemptToken(), 1_000_000, "final boom");

    DlqPage dlq = broker.inspectDlq(0, 0);
    assertThat(dlq.totalSize()).isEqualTo(1);
    DeadLetter letter = dlq.entries().get(0);
    assertThat(letter.messageId()).isEqualTo(first);
    assertThat(letter.reason()).isEqualTo(DeadLetter.Reason.MAX_RETRIES_EXCEEDED);
    assertThat(letter.details()).isEqualTo("Exceeded max_retries=3; last reason: final boom");
    assertThat(letter.failures()).isEqualTo(3);
    assertThat(observations("a")).isZero();
  }

  @Test
  void leaseExpiry_retriesRecordsCensoredAndRefusesTheLateAck() throws Exception {
    String id = submit("slow");
    Delivered d1 = pull();
    clock.advance(Duration.ofSeconds(30));
    broker.maintain();

    assertThat(broker.stats().leaseExpiries()).isEqualTo(1);
    assertThat(predictor.keyStats(Keys.of(producer, "slow")).orElseThrow().censoredShare())
        .isGreaterThan(0);
    assertRefused(
        () -> broker.ack(consumer, id, d1.attemptToken(), 1_000),
        BrokerException.Kind.FAILED_PRECONDITION,
        "already settled or expired");

    Delivered d2 = pull();
    assertThat(d2.messageId()).isEqualTo(id);
    assertThat(d2.deliveryCount()).isEqualTo(2);
    broker.ack(consumer, id, d2.attemptToken(), 1_000_000);
    assertThat(broker.stats().completed()).isEqualTo(1);
  }

  @Test
  void ack_afterLeaseDeadlineBeforeSweep_isRefusedAndExpiresThere() throws Exception {
    String id = submit("slow");
    Delivered d = pull();
    clock.advance(Duration.ofSeconds(31));
    assertRefused(
        () -> broker.ack(consumer, id, d.attemptToken(), 1_000),
        BrokerException.Kind.FAILED_PRECONDITION,
        "Delivery lease expired");
    assertThat(broker.stats().leaseExpiries()).isEqualTo(1);
    assertThat(broker.stats().learned()).isZero();
    assertThat(pull().messageId()).isEqualTo(id);
  }

  @Test
  void staleToken_afterRedelivery_isRefused() throws Exception {
    String id = submit("x");
    Delivered d1 = pull();
    broker.nack(consumer, id, d1.attemptToken(), 0, "retry");
    Delivered d2 = pull();
    String forged = d1.attemptToken() + "0";
    assertRefused(
        () -> broker.ack(consumer, id, forged, 0),
        BrokerException.Kind.FAILED_PRECONDITION,
        "stale attempt token");
    broker.ack(consumer, id, d2.attemptToken(), 0);
  }

  @Test
  void unknownToken_isNotFound() {
    assertRefused(
        () -> broker.ack(consumer, "m-nothing", "abc-123", 0),
        BrokerException.Kind.NOT_FOUND,
        "no delivery");
  }

  @Test
  void ttl_expiresWhileQueued_deadLettersWithReason() throws Exception {
    String id = broker.submit(producer, ByteString.EMPTY, Map.of(), OptionalLong.of(1_000));
    String kept = broker.submit(producer, ByteString.EMPTY, Map.of(), OptionalLong.of(0));
    clock.advance(Duration.ofMillis(1_000));
    broker.maintain();

    DlqPage dlq = broker.inspectDlq(10, 0);
    assertThat(dlq.entries()).extracting(DeadLetter::messageId).containsExactly(id);
    assertThat(dlq.entries().get(0).reason()).isEqualTo(DeadLetter.Reason.TTL_EXPIRED);
    assertThat(pull().messageId()).isEqualTo(kept);
  }

  @Test
  void ack_afterTtlButWithinLease_deadLettersAndLearnsNothing() throws Exception {
    String id =
        broker.submit(producer, ByteString.EMPTY, Map.of("x-job-type", "t"), OptionalLong.of(500));
    Delivered d = pull();
    clock.advance(Duration.ofMillis(600));
    broker.ack(consumer, id, d.attemptToken(), 1_000_000);

    assertThat(broker.stats().completed()).isZero();
    assertThat(broker.inspectDlq(10, 0).entries().get(0).reason())
        .isEqualTo(DeadLetter.Reason.TTL_EXPIRED);
    assertThat(observations("t")).isZero();
  }

  @Test
  void ack_durationLongerThanLease_isNotLearned() throws Exception {
    String id = submit("odd");
    Delivered d = pull();
    broker.ack(consumer, id, d.attemptToken(), Duration.ofSeconds(31).toNanos());
    assertThat(broker.stats().completed()).isEqualTo(1);
    assertThat(observations("odd")).isZero();
  }

  @Test
  void pull_cancelledCaller_putsMessageBackAtFront() throws Exception {
    String first = submit("x");
    submit("x");
    assertThat(broker.pull(consumer, 1, () -> true)).isNull();
    assertThat(pull().messageId()).isEqualTo(first);
    assertThat(broker.stats().deliveries()).isEqualTo(1);
  }

  @Test
  void pull_nothingQueued_timesOutWithNull() throws Exception {
    assertThat(broker.pull(consumer, 20, () -> false)).isNull();
  }

  @Test
  void badInput_isRefusedWithTheRule() {
    ByteString body = ByteString.EMPTY;
    assertRefused(
        () -> broker.submit("p-unknown", body, Map.of(), OptionalLong.empty()),
        BrokerException.Kind.PERMISSION_DENIED,
        "producer is not registered: p-unknown");
    assertRefused(
        () -> broker.submit(producer, body, Map.of(), OptionalLong.of(-5)),
        BrokerException.Kind.INVALID_ARGUMENT,
        "ttl_ms must not be negative: -5");
    assertRefused(
        () ->
            broker.submit(
                producer, body, Map.of("x-job-type", "j".repeat(129)), OptionalLong.empty()),
        BrokerException.Kind.INVALID_ARGUMENT,
        "x-job-type must be at most 128 UTF-8 bytes: 129");
    assertRefused(
        () -> broker.submit(producer, body, Map.of("h", "v".repeat(4097)), OptionalLong.empty()),
        BrokerException.Kind.INVALID_ARGUMENT,
        "header h must be at most 4096 UTF-8 bytes: 4097");
    assertRefused(
        () -> broker.submit(producer, body, Map.of("x-size-hint", "-3"), OptionalLong.empty()),
        BrokerException.Kind.INVALID_ARGUMENT,
        "x-size-hint must be a non-negative integer: -3");
    assertRefused(
        () ->
            broker.submit(
                producer,
                ByteString.copyFrom(new byte[(1 << 20) + 1]),
                Map.of(),
                OptionalLong.empty()),
        BrokerException.Kind.INVALID_ARGUMENT,
        "payload must be at most 1048576 bytes: 1048577");
    assertRefused(
        () -> broker.pull("c-unknown", 1, () -> false),
        BrokerException.Kind.PERMISSION_DENIED,
        "consumer is not registered");
    assertRefused(
        () -> broker.pull(consumer, -1, () -> false),
        BrokerException.Kind.INVALID_ARGUMENT,
        "timeout_ms must not be negative: -1");
    assertRefused(
        () -> broker.ack(consumer, "m", "bad token!", 0),
        BrokerException.Kind.INVALID_ARGUMENT,
        "attempt_token must be letters, digits or '-'");
    assertRefused(
        () -> broker.ack(consumer, "m", "", 0),
        BrokerException.Kind.INVALID_ARGUMENT,
        "attempt_token must be 1 to 128 characters: 0");
  }

  @Test
  void inspectDlq_pagesOldestFirstWithLimitsApplied() throws Exception {
    for (int i = 0; i < 3; i++) {
      broker.submit(producer, ByteString.EMPTY, Map.of(), OptionalLong.of(1));
    }
    clock.advance(Duration.ofMillis(2));
    broker.maintain();
    assertThat(broker.inspectDlq(2, 0).entries()).hasSize(2);
    assertThat(broker.inspectDlq(2, 2).entries()).hasSize(1);
    assertThat(broker.inspectDlq(5, -4).entries()).hasSize(3);
    assertThat(broker.inspectDlq(5, 10).totalSize()).isEqualTo(3);
  }

  @Test
  void aging_throughBroker_promotesOverdueWork() throws Exception {
    broker.submit(producer, ByteString.EMPTY, Map.of(), OptionalLong.empty());
    clock.advance(Duration.ofSeconds(5));
    assertThat(broker.age()).isEqualTo(1);
    assertThat(broker.stats().promoted()).isEqualTo(1);
  }

  private static final class RecordingWaiter implements PullWaiter {
    final List<Delivered> delivered = new ArrayList<>();
    int timeouts;
    boolean cancelled;

    @Override
    public void deliver(Delivered delivery) {
      delivered.add(delivery);
    }

    @Override
    public void timedOut() {
      timeouts++;
    }

    @Override
    public boolean isCancelled() {
      return cancelled;
    }
  }

  @Test
  void pullAsync_parkedWaiter_getsTheNextSubmittedMessage() {
    RecordingWaiter waiter = new RecordingWaiter();
    broker.pullAsync(consumer, 5_000, waiter);
    assertThat(waiter.delivered).isEmpty();

    String id = submit("x");

    assertThat(waiter.delivered).extracting(Delivered::messageId).containsExactly(id);
    assertThat(broker.stats().inFlight()).isEqualTo(1);
  }

  @Test
  void pullAsync_messageWaiting_isDeliveredAtOnce() {
    String id = submit("x");
    RecordingWaiter waiter = new RecordingWaiter();
    broker.pullAsync(consumer, 5_000, waiter);
    assertThat(waiter.delivered).extracting(Delivered::messageId).containsExactly(id);
  }

  @Test
  void pullAsync_timeoutPassed_isToldByMaintenance() {
    RecordingWaiter waiter = new RecordingWaiter();
    broker.pullAsync(consumer, 1, waiter);
    await()
        .atMost(Duration.ofSeconds(5))
        .until(
            () -> {
              broker.maintain();
              return waiter.timeouts == 1;
            });
    submit("x");
    assertThat(waiter.delivered).isEmpty();
  }

  @Test
  void pullAsync_cancelledWaiter_getsNothingAndMessageStaysQueued() {
    RecordingWaiter gone = new RecordingWaiter();
    RecordingWaiter withdrawn = new RecordingWaiter();
    broker.pullAsync(consumer, 5_000, gone);
    broker.pullAsync(consumer, 5_000, withdrawn);
    gone.cancelled = true;
    assertThat(broker.cancel(withdrawn)).isTrue();

    submit("x");

    assertThat(gone.delivered).isEmpty();
    assertThat(withdrawn.delivered).isEmpty();
    assertThat(broker.stats().queued()).isEqualTo(1);
  }

  @Test
  void pullAsync_nackedMessage_goesToParkedWaiter() throws Exception {
    String id = submit("x");
    Delivered first = pull();
    RecordingWaiter waiter = new RecordingWaiter();
    broker.pullAsync(consumer, 5_000, waiter);
    broker.nack(consumer, id, first.attemptToken(), 0, "again");
    assertThat(waiter.delivered).extracting(Delivered::deliveryCount).containsExactly(2);
  }
}
