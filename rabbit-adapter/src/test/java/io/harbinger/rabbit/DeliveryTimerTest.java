package io.harbinger.rabbit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.ArgumentMatchers.eq;
import static org.mockito.ArgumentMatchers.isNull;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.verify;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Consumer;
import com.rabbitmq.client.DeliverCallback;
import com.rabbitmq.client.Envelope;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.mockito.ArgumentCaptor;

class DeliveryTimerTest {

  private static final Clock CLOCK =
      Clock.fixed(Instant.ofEpochSecond(1_700_000_000L), ZoneOffset.UTC);
  private static final long NOW_MICROS = 1_700_000_000_000_000L;

  private final AtomicLong nanos = new AtomicLong(1_000);
  private final List<DurationReport> reports = new CopyOnWriteArrayList<>();
  private final ChannelOptions options =
      ChannelOptions.builder("consumer")
          .reports(reports::add)
          .clock(CLOCK)
          .ticker(nanos::get)
          .build();
  private final DeliveryTimer timer = DeliveryTimer.create(options);
  private final Channel channel = mock(Channel.class);

  /** Headers of a message published a millisecond ago at level 1; unique per message. */
  private static Map<String, Object> headers(String jobType) {
    long publishedAt = NOW_MICROS - 1_000 - (UUID.randomUUID().getLeastSignificantBits() & 0xfff);
    return Map.of(
        "x-job-type",
        jobType,
        HarbingerHeaders.STAMP,
        Stamp.headerValue(publishedAt, 1, "predictive"));
  }

  @Test
  void autoAck_listenerReturns_oneAckReportWithItsDuration() {
    DeliveryTimer.TimedDelivery d =
        timer.begin(1, false, "shop", null, null, headers("mail"), new byte[3], true);
    nanos.addAndGet(5_000_000);
    timer.handlerDone(d, true);

    assertThat(reports).hasSize(1);
    DurationReport r = reports.get(0);
    assertThat(r.producer()).isEqualTo("shop");
    assertThat(r.jobType()).isEqualTo("mail");
    assertThat(r.settlement()).isEqualTo(Settlement.ACK);
    assertThat(r.handlerNanos()).isEqualTo(5_000_000);
    assertThat(r.publishedLevel()).isEqualTo(1);
  }

  @Test
  void autoAck_listenerThrows_nackTeachesNoDuration() {
    DeliveryTimer.TimedDelivery d =
        timer.begin(1, false, "shop", null, null, headers("mail"), new byte[3], true);
    timer.handlerDone(d, false);

    assertThat(reports)
        .singleElement()
        .satisfies(r -> assertThat(r.settlement()).isEqualTo(Settlement.NACK));
  }

  @Test
  void manual_listenerAcksOnTheRecordingChannel_reportFollowsTheAck() throws Exception {
    DeliveryTimer.TimedDelivery d =
        timer.begin(7, false, "shop", null, null, headers("mail"), new byte[3], false);
    Channel recording = timer.recordingSettlements(channel);
    nanos.addAndGet(2_000_000);
    timer.handlerDone(d, true);
    assertThat(reports).isEmpty();
    assertThat(timer.unsettled()).isEqualTo(1);

    nanos.addAndGet(3_000_000);
    recording.basicAck(7, false);

    verify(channel).basicAck(7, false);
    assertThat(reports)
        .singleElement()
        .satisfies(
            r -> {
              assertThat(r.settlement()).isEqualTo(Settlement.ACK);
              assertThat(r.handlerNanos()).isEqualTo(5_000_000);
            });
    assertThat(timer.unsettled()).isZero();
  }

  @Test
  void manual_multipleAck_settlesEveryDeliveryUpToTheTag() throws Exception {
    for (long tag = 1; tag <= 3; tag++) {
      timer.handlerDone(
          timer.begin(tag, false, "shop", null, null, headers("mail"), new byte[0], false), true);
    }
    timer.recordingSettlements(channel).basicAck(2, true);

    assertThat(reports).hasSize(2);
    assertThat(timer.unsettled()).isEqualTo(1);
  }

  @Test
  void redelivery_notRequeuedHere_isCensoredOnce_requeuedHere_isNot() {
    Map<String, Object> lost = headers("mail");
    timer.handlerDone(timer.begin(1, true, "shop", null, null, lost, new byte[0], true), true);
    assertThat(reports)
        .extracting(DurationReport::settlement)
        .containsExactly(Settlement.CENSORED, Settlement.ACK);

    reports.clear();
    Map<String, Object> requeued = headers("mail");
    DeliveryTimer.TimedDelivery first =
        timer.begin(2, false, "shop", null, null, requeued, new byte[0], false);
    timer.handlerDone(first, false);
    timer.nacked(2, false, true);
    timer.handlerDone(timer.begin(3, true, "shop", null, null, requeued, new byte[0], true), true);
    assertThat(reports)
        .extracting(DurationReport::settlement)
        .containsExactly(Settlement.NACK, Settlement.ACK);
  }

  @Test
  void forgetUnsettled_dropsStaleTags_andALaterAckIsCountedUnmatched() {
    timer.begin(1, false, "shop", null, null, headers("mail"), new byte[0], false);
    timer.forgetUnsettled();
    timer.acked(1, false);

    assertThat(timer.unsettled()).isZero();
    assertThat(reports).isEmpty();
    assertThat(options.stats().unmatchedSettles()).isEqualTo(1);
  }

  /** The timer and a wrapped consumer are one definition: the same delivery, the same report. */
  @Test
  void report_isWhatAWrappedConsumerSends() throws Exception {
    Map<String, Object> h = headers("mail");
    DeliveryTimer.TimedDelivery d =
        timer.begin(4, false, "shop", null, null, h, new byte[9], false);
    nanos.addAndGet(1_000_000);
    timer.handlerDone(d, true);
    timer.rejected(4, false);

    List<DurationReport> wrappedReports = new CopyOnWriteArrayList<>();
    AtomicLong wrappedNanos = new AtomicLong(1_000);
    Channel delegate = mock(Channel.class);
    Channel wrapped =
        PredictiveChannels.wrap(
            delegate,
            ChannelOptions.builder("consumer")
                .reports(wrappedReports::add)
                .clock(CLOCK)
                .ticker(wrappedNanos::get)
                .build());
    wrapped.basicConsume("q", false, (DeliverCallback) (tag, delivery) -> {}, tag -> {});
    ArgumentCaptor<Consumer> consumer = ArgumentCaptor.forClass(Consumer.class);
    verify(delegate)
        .basicConsume(
            eq("q"), eq(false), eq(""), eq(false), eq(false), isNull(), consumer.capture());
    AMQP.BasicProperties props =
        new AMQP.BasicProperties.Builder().userId("shop").headers(h).build();
    consumer.getValue().handleDelivery("tag", new Envelope(4, false, "", "q"), props, new byte[9]);
    wrapped.basicReject(4, false);

    assertThat(reports).hasSize(1);
    assertThat(wrappedReports).hasSize(1);
    assertThat(reports.get(0))
        .usingRecursiveComparison()
        .ignoringFields("handlerNanos", "settledAtMicros")
        .isEqualTo(wrappedReports.get(0));
    assertThat(reports.get(0).settlement()).isEqualTo(Settlement.REJECT);
  }
}
