package io.harbinger.rabbit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.anyBoolean;
import static org.mockito.ArgumentMatchers.anyString;
import static org.mockito.ArgumentMatchers.eq;
import static org.mockito.ArgumentMatchers.isNull;
import static org.mockito.Mockito.doThrow;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.CancelCallback;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Consumer;
import com.rabbitmq.client.DefaultConsumer;
import com.rabbitmq.client.DeliverCallback;
import com.rabbitmq.client.Envelope;
import com.rabbitmq.client.GetResponse;
import com.rabbitmq.client.ShutdownListener;
import com.rabbitmq.client.ShutdownSignalException;
import com.rabbitmq.client.impl.LongStringHelper;
import java.io.IOException;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.mockito.ArgumentCaptor;

class ConsumeTest {

  private static final long NOW_MICROS = 1_700_000_000_000_000L;
  private static final Clock CLOCK =
      Clock.fixed(Instant.ofEpochSecond(1_700_000_000L), ZoneOffset.UTC);

  private final Channel delegate = mock(Channel.class);
  private final AtomicLong nanos = new AtomicLong(1_000);
  private final List<DurationReport> reports = new CopyOnWriteArrayList<>();
  private final AdapterStats stats = new AdapterStats();
  private final PrefetchGuard guard = new PrefetchGuard();
  private final PredictiveChannel channel = consumerChannel(false);

  /** A wrapped consumer channel on the scripted delegate, reporting to {@link #reports}. */
  private PredictiveChannel consumerChannel(boolean sizeHints) {
    return new PredictiveChannel(
        delegate,
        ChannelOptions.builder("consumer")
            .reports(reports::add)
            .stats(stats)
            .clock(CLOCK)
            .ticker(nanos::get)
            .sizeHints(sizeHints)
            .build(),
        guard);
  }

  /** A wrapped producer's message as the broker delivers it: the stamp is a long string. */
  private static AMQP.BasicProperties props(
      String user, String jobType, long publishedAt, int level) {
    return withStamp(
        user,
        jobType,
        LongStringHelper.asLongString(StampHeader.encode(publishedAt, level, "predictive")));
  }

  private static AMQP.BasicProperties withStamp(String user, String jobType, Object stamp) {
    Map<String, Object> headers = new HashMap<>();
    headers.put("x-job-type", jobType);
    headers.put(HarbingerHeaders.STAMP, stamp);
    return new AMQP.BasicProperties.Builder().userId(user).headers(headers).build();
  }

  /** A wrapped producer's message with an {@code x-size-hint} header. */
  private static AMQP.BasicProperties sized(Object sizeHint) {
    Map<String, Object> headers =
        new HashMap<>(props("shop", "resize", NOW_MICROS, 0).getHeaders());
    headers.put(ChannelOptions.SIZE_HINT_HEADER, sizeHint);
    return new AMQP.BasicProperties.Builder().userId("shop").headers(headers).build();
  }

  /** A message of a producer of the first version, which wrote three headers. */
  private static AMQP.BasicProperties firstVersionProps(
      String user, String jobType, long publishedAt, int level) {
    Map<String, Object> headers = new HashMap<>();
    headers.put("x-job-type", jobType);
    headers.put(HarbingerHeaders.PUBLISHED_AT, publishedAt);
    headers.put(HarbingerHeaders.LEVEL, level);
    headers.put(HarbingerHeaders.MODE, LongStringHelper.asLongString("predictive"));
    return new AMQP.BasicProperties.Builder().userId(user).headers(headers).build();
  }

  private static Envelope envelope(long tag, boolean redelivered) {
    return new Envelope(tag, redelivered, "ex", "rk");
  }

  private Consumer consumeWith(Consumer mine) throws IOException {
    ArgumentCaptor<Consumer> wrapped = ArgumentCaptor.forClass(Consumer.class);
    channel.basicConsume("q", false, mine);
    verify(delegate)
        .basicConsume(
            eq("q"), eq(false), eq(""), eq(false), eq(false), isNull(), wrapped.capture());
    assertThat(wrapped.getValue()).isNotSameAs(mine);
    return wrapped.getValue();
  }

  /** A consumer whose handler takes {@code handlerNanos} and then acknowledges its delivery. */
  private Consumer acking(long handlerNanos) {
    return new DefaultConsumer(channel) {
      @Override
      public void handleDelivery(
          String tag, Envelope envelope, AMQP.BasicProperties properties, byte[] body)
          throws IOException {
        nanos.addAndGet(handlerNanos);
        channel.basicAck(envelope.getDeliveryTag(), false);
      }
    };
  }

  @Test
  void delivery_ackedInHandler_reportsHandlerTimeWaitLevelAndKey() throws Exception {
    Consumer wrapped = consumeWith(acking(2_000_000));

    wrapped.handleDelivery(
        "ct", envelope(5, false), props("shop", "email", NOW_MICROS - 1_500, 0), new byte[10]);

    verify(delegate).basicAck(5, false);
    assertThat(reports).hasSize(1);
    DurationReport r = reports.get(0);
    assertThat(r.producer()).isEqualTo("shop");
    assertThat(r.jobType()).isEqualTo("email");
    assertThat(r.settlement()).isEqualTo(Settlement.ACK);
    assertThat(r.handlerNanos()).isEqualTo(2_000_000);
    assertThat(r.waitMicros()).isEqualTo(1_500);
    assertThat(r.publishedLevel()).isZero();
    assertThat(r.redelivered()).isFalse();
    assertThat(r.publishedAtMicros()).isEqualTo(NOW_MICROS - 1_500);
    assertThat(r.settledAtMicros()).isEqualTo(NOW_MICROS);
    assertThat(r.hasSize()).isFalse();
    assertThat(channel.tracker().unsettledCount()).isZero();
  }

  @Test
  void delivery_sizeHintsOn_reportCarriesTheHeadersSizeElseTheBodyLength() throws Exception {
    PredictiveChannel sized = consumerChannel(true);
    ArgumentCaptor<Consumer> wrapped = ArgumentCaptor.forClass(Consumer.class);
    sized.basicConsume("q", true, new DefaultConsumer(sized));
    verify(delegate)
        .basicConsume(eq("q"), eq(true), eq(""), eq(false), eq(false), isNull(), wrapped.capture());
    AMQP.BasicProperties hinted = sized(LongStringHelper.asLongString("640"));
    AMQP.BasicProperties garbage = sized(-5);

    wrapped.getValue().handleDelivery("ct", envelope(1, false), hinted, new byte[10]);
    wrapped.getValue().handleDelivery("ct", envelope(2, false), garbage, new byte[10]);
    wrapped.getValue().handleDelivery("ct", envelope(3, false), props("shop", "x", 1, 0), null);

    assertThat(reports).extracting(DurationReport::size).containsExactly(640L, 10L, 0L);
    assertThat(stats.invalidSizeHints()).isEqualTo(1);
  }

  @Test
  void delivery_ackedLaterFromAnotherThread_durationRunsToTheAck() throws Exception {
    Consumer wrapped = consumeWith(new DefaultConsumer(channel));
    wrapped.handleDelivery(
        "ct", envelope(1, false), props("shop", "pdf", NOW_MICROS, 2), new byte[0]);
    nanos.addAndGet(7_000_000);
    assertThat(reports).isEmpty();

    Thread worker = new Thread(() -> ack(1, false));
    worker.start();
    worker.join();

    assertThat(reports)
        .singleElement()
        .satisfies(
            r -> {
              assertThat(r.handlerNanos()).isEqualTo(7_000_000);
              assertThat(r.settlement()).isEqualTo(Settlement.ACK);
            });
  }

  private void ack(long tag, boolean multiple) {
    try {
      channel.basicAck(tag, multiple);
    } catch (IOException e) {
      throw new AssertionError(e);
    }
  }

  @Test
  void ackMultiple_settlesEveryDeliveryUpToTheTag_andForwardsOneAck() throws Exception {
    Consumer wrapped = consumeWith(new DefaultConsumer(channel));
    for (long tag = 1; tag <= 4; tag++) {
      wrapped.handleDelivery("ct", envelope(tag, false), props("shop", "a", NOW_MICROS, 1), null);
    }

    channel.basicAck(3, true);

    verify(delegate).basicAck(3, true);
    assertThat(reports).hasSize(3);
    assertThat(channel.tracker().unsettledCount()).isEqualTo(1);
    channel.basicAck(0, true);
    assertThat(reports).hasSize(4);
  }

  @Test
  void nackAndReject_areReportedWithTheirOutcome() throws Exception {
    Consumer wrapped = consumeWith(new DefaultConsumer(channel));
    wrapped.handleDelivery("ct", envelope(1, false), props("shop", "a", NOW_MICROS, 1), null);
    wrapped.handleDelivery("ct", envelope(2, false), props("shop", "a", NOW_MICROS, 1), null);

    channel.basicNack(1, false, false);
    channel.basicReject(2, false);

    verify(delegate).basicNack(1, false, false);
    verify(delegate).basicReject(2, false);
    assertThat(reports)
        .extracting(DurationReport::settlement)
        .containsExactly(Settlement.NACK, Settlement.REJECT);
  }

  @Test
  void redelivery_afterAnUnsettledAttempt_isReportedCensoredOnce() throws Exception {
    Consumer wrapped = consumeWith(acking(1_000));

    wrapped.handleDelivery("ct", envelope(9, true), props("shop", "lost", NOW_MICROS - 7, 1), null);

    assertThat(reports)
        .extracting(DurationReport::settlement)
        .containsExactly(Settlement.CENSORED, Settlement.ACK);
    assertThat(reports.get(0).handlerNanos()).isZero();
    assertThat(reports.get(0).redelivered()).isTrue();
    assertThat(stats.censored()).isEqualTo(1);
  }

  @Test
  void redelivery_afterOurOwnRequeue_isNotCensored() throws Exception {
    Consumer wrapped = consumeWith(new DefaultConsumer(channel));
    AMQP.BasicProperties p = props("shop", "retry", NOW_MICROS - 99, 1);
    wrapped.handleDelivery("ct", envelope(1, false), p, null);
    channel.basicNack(1, false, true);

    wrapped.handleDelivery("ct", envelope(2, true), p, null);
    channel.basicAck(2, false);

    assertThat(reports)
        .extracting(DurationReport::settlement)
        .containsExactly(Settlement.NACK, Settlement.ACK);
    assertThat(reports.get(1).redelivered()).isTrue();
  }

  @Test
  void autoAck_handlerReturns_reportsAck_handlerThrows_reportsNack() throws Exception {
    ArgumentCaptor<Consumer> wrapped = ArgumentCaptor.forClass(Consumer.class);
    Consumer failing =
        new DefaultConsumer(channel) {
          @Override
          public void handleDelivery(
              String tag, Envelope envelope, AMQP.BasicProperties properties, byte[] body) {
            nanos.addAndGet(300);
            if (envelope.getDeliveryTag() == 2) {
              throw new IllegalStateException("boom");
            }
          }
        };
    channel.basicConsume("q", true, failing);
    verify(delegate)
        .basicConsume(eq("q"), eq(true), eq(""), eq(false), eq(false), isNull(), wrapped.capture());

    wrapped
        .getValue()
        .handleDelivery("ct", envelope(1, false), props("s", "a", NOW_MICROS, 1), null);
    assertThatThrownBy(
            () ->
                wrapped
                    .getValue()
                    .handleDelivery("ct", envelope(2, false), props("s", "a", NOW_MICROS, 1), null))
        .hasMessage("boom");

    assertThat(reports)
        .extracting(DurationReport::settlement)
        .containsExactly(Settlement.ACK, Settlement.NACK);
    assertThat(reports).allSatisfy(r -> assertThat(r.handlerNanos()).isEqualTo(300));
  }

  @Test
  void deliverCallback_isTimedLikeAConsumer() throws Exception {
    ArgumentCaptor<Consumer> wrapped = ArgumentCaptor.forClass(Consumer.class);
    DeliverCallback mine =
        (tag, d) -> {
          nanos.addAndGet(40);
          channel.basicAck(d.getEnvelope().getDeliveryTag(), false);
        };
    List<String> cancelled = new ArrayList<>();
    CancelCallback cancel = cancelled::add;
    channel.basicConsume("q", false, "tag", mine, cancel);
    verify(delegate)
        .basicConsume(
            eq("q"), eq(false), eq("tag"), eq(false), eq(false), isNull(), wrapped.capture());

    wrapped
        .getValue()
        .handleDelivery("tag", envelope(3, false), props("s", "cb", NOW_MICROS, 0), new byte[1]);
    wrapped.getValue().handleCancel("tag");

    assertThat(cancelled).containsExactly("tag");

    assertThat(reports)
        .singleElement()
        .satisfies(
            r -> {
              assertThat(r.jobType()).isEqualTo("cb");
              assertThat(r.handlerNanos()).isEqualTo(40);
            });
  }

  @Test
  void ack_unknownTag_isForwardedAndCounted() throws Exception {
    channel.basicAck(42, false);

    verify(delegate).basicAck(42, false);
    assertThat(reports).isEmpty();
    assertThat(stats.unmatchedSettles()).isEqualTo(1);
  }

  @Test
  void ack_delegateThrows_propagatesAndReportsNothing() throws Exception {
    Consumer wrapped = consumeWith(new DefaultConsumer(channel));
    wrapped.handleDelivery("ct", envelope(1, false), props("s", "a", NOW_MICROS, 1), null);
    doThrow(new IOException("channel closed")).when(delegate).basicAck(1, false);

    assertThatThrownBy(() -> channel.basicAck(1, false)).hasMessage("channel closed");
    assertThat(reports).isEmpty();
    assertThat(channel.tracker().unsettledCount()).isEqualTo(1);
  }

  @Test
  void shutdown_forgetsUnsettledDeliveries() throws Exception {
    ArgumentCaptor<ShutdownListener> listener = ArgumentCaptor.forClass(ShutdownListener.class);
    verify(delegate).addShutdownListener(listener.capture());
    Consumer wrapped = consumeWith(new DefaultConsumer(channel));
    wrapped.handleDelivery("ct", envelope(1, false), props("s", "a", NOW_MICROS, 1), null);

    listener.getValue().shutdownCompleted(mock(ShutdownSignalException.class));
    channel.basicAck(1, false);

    assertThat(reports).isEmpty();
    assertThat(stats.unmatchedSettles()).isEqualTo(1);
  }

  @Test
  void sinkThrows_ackStillGoesThroughAndFailureIsCounted() throws Exception {
    PredictiveChannel throwing =
        new PredictiveChannel(
            delegate,
            ChannelOptions.builder("c")
                .reports(
                    r -> {
                      throw new IllegalStateException("full");
                    })
                .stats(stats)
                .build(),
            guard);
    ArgumentCaptor<Consumer> wrapped = ArgumentCaptor.forClass(Consumer.class);
    throwing.basicConsume("q2", new DefaultConsumer(throwing));
    verify(delegate)
        .basicConsume(
            eq("q2"), eq(false), eq(""), eq(false), eq(false), isNull(), wrapped.capture());
    wrapped.getValue().handleDelivery("ct", envelope(1, false), null, null);

    throwing.basicAck(1, false);

    verify(delegate).basicAck(1, false);
    assertThat(stats.sinkFailures()).isEqualTo(1);
  }

  @Test
  void garbageHeaders_giveUnknownWaitAndLevel_notFailures() throws Exception {
    Consumer wrapped = consumeWith(acking(5));
    Map<String, Object> headers = new HashMap<>();
    headers.put("x-job-type", new byte[] {1, 2});
    headers.put(HarbingerHeaders.PUBLISHED_AT, "yesterday");
    headers.put(HarbingerHeaders.LEVEL, 9_999);
    AMQP.BasicProperties p = new AMQP.BasicProperties.Builder().headers(headers).build();

    wrapped.handleDelivery("ct", envelope(1, false), p, new byte[0]);

    verify(delegate).basicAck(1, false);
    assertThat(stats.unreadableStamps()).isEqualTo(1);
    assertThat(reports)
        .singleElement()
        .satisfies(
            r -> {
              assertThat(r.producer()).isEmpty();
              assertThat(r.jobType()).isEmpty();
              assertThat(r.waitMicros()).isEqualTo(-1);
              assertThat(r.publishedLevel()).isEqualTo(-1);
              assertThat(r.publishedAtMicros()).isZero();
            });
  }

  @Test
  void firstVersionHeaders_areStillRead_forWaitLevelAndPublishTime() throws Exception {
    Consumer wrapped = consumeWith(acking(1_000));

    wrapped.handleDelivery(
        "ct", envelope(3, false), firstVersionProps("shop", "old", NOW_MICROS - 800, 2), null);

    verify(delegate).basicAck(3, false);
    assertThat(reports)
        .singleElement()
        .satisfies(
            r -> {
              assertThat(r.waitMicros()).isEqualTo(800);
              assertThat(r.publishedLevel()).isEqualTo(2);
              assertThat(r.publishedAtMicros()).isEqualTo(NOW_MICROS - 800);
            });
    assertThat(stats.unreadableStamps()).isZero();
  }

  @Test
  void compactStamp_asAPlainString_isReadLikeTheBrokersLongString() throws Exception {
    Consumer wrapped = consumeWith(acking(1_000));

    wrapped.handleDelivery(
        "ct",
        envelope(4, false),
        withStamp("shop", "s", "v1;t=" + (NOW_MICROS - 5) + ";m=s;l=1"),
        null);

    assertThat(reports.get(0).waitMicros()).isEqualTo(5);
    assertThat(reports.get(0).publishedLevel()).isEqualTo(1);
    assertThat(stats.unreadableStamps()).isZero();
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "",
        "v1",
        "v1;",
        "garbage",
        "v1;l=0;m=p",
        "v1;l=0;m=p;t=",
        "v1;l=0;m=p;t=12x4",
        "v1;l=-1;m=p;t=1700000000000000",
        "v1;l=0;m=predictive;t=1700000000000000",
        "v1;l=0;m=q;t=1700000000000000",
        "v1;l=0;l=1;m=p;t=1700000000000000",
        "v1;l=0;m=p;t=1700000000000000;",
        "v1;l=0;m=p;t=99999999999999999999999",
        "v2;l=0;m=p;t=1700000000000000",
        "v10;l=0;m=p;t=1700000000000000",
        "v1;l=0;m=p;t=1700000000000000;z=1",
        "v1;l=0;m=p;t=1700000000000000;tenant=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
      })
  void unreadableStamp_isProcessedAckedReportedAtUnknownLevelAndCounted(String stamp)
      throws Exception {
    Consumer wrapped = consumeWith(acking(3_000));

    wrapped.handleDelivery(
        "ct",
        envelope(8, false),
        withStamp("shop", "x", LongStringHelper.asLongString(stamp)),
        null);

    verify(delegate).basicAck(8, false);
    assertThat(reports)
        .singleElement()
        .satisfies(
            r -> {
              assertThat(r.settlement()).isEqualTo(Settlement.ACK);
              assertThat(r.handlerNanos()).isEqualTo(3_000);
              assertThat(r.jobType()).isEqualTo("x");
              assertThat(r.publishedLevel()).isEqualTo(-1);
              assertThat(r.waitMicros()).isEqualTo(-1);
              assertThat(r.publishedAtMicros()).isZero();
            });
    assertThat(stats.unreadableStamps()).isEqualTo(1);
  }

  @Test
  void stampOfTheWrongType_isProcessedAndCounted() throws Exception {
    Consumer wrapped = consumeWith(acking(0));

    wrapped.handleDelivery("ct", envelope(1, false), withStamp("shop", "x", 42), null);
    wrapped.handleDelivery("ct", envelope(2, false), withStamp("shop", "x", new byte[] {1}), null);

    verify(delegate).basicAck(1, false);
    verify(delegate).basicAck(2, false);
    assertThat(reports).hasSize(2).allSatisfy(r -> assertThat(r.publishedLevel()).isEqualTo(-1));
    assertThat(stats.unreadableStamps()).isEqualTo(2);
  }

  @Test
  void levelOutsideTheConsumersLevels_isUnknown_butThePublishTimeStands() throws Exception {
    Consumer wrapped = consumeWith(acking(0));

    wrapped.handleDelivery(
        "ct",
        envelope(1, false),
        withStamp("shop", "x", "v1;l=3;m=p;t=" + (NOW_MICROS - 40)),
        null);
    wrapped.handleDelivery(
        "ct", envelope(2, false), firstVersionProps("shop", "x", NOW_MICROS - 50, 7), null);

    verify(delegate).basicAck(1, false);
    verify(delegate).basicAck(2, false);
    assertThat(reports).extracting(DurationReport::publishedLevel).containsExactly(-1, -1);
    assertThat(reports).extracting(DurationReport::waitMicros).containsExactly(40L, 50L);
    assertThat(stats.unreadableStamps()).isEqualTo(2);
  }

  @Test
  void unstampedMessage_isNotCountedAsUnreadable() throws Exception {
    Consumer wrapped = consumeWith(acking(0));

    wrapped.handleDelivery("ct", envelope(1, false), null, null);

    assertThat(reports.get(0).publishedLevel()).isEqualTo(-1);
    assertThat(stats.unreadableStamps()).isZero();
  }

  @Test
  void basicGet_manualAck_isReportedFromGetToAck() throws Exception {
    when(delegate.basicGet("q", false))
        .thenReturn(
            new GetResponse(envelope(6, false), props("s", "g", NOW_MICROS, 1), new byte[0], 0));

    channel.basicGet("q", false);
    nanos.addAndGet(900);
    channel.basicAck(6, false);

    assertThat(reports).singleElement().satisfies(r -> assertThat(r.handlerNanos()).isEqualTo(900));
  }

  @Test
  void otherConsumerCallbacks_areForwardedUnchanged() throws Exception {
    Consumer mine = mock(Consumer.class);
    Consumer wrapped = consumeWith(mine);
    ShutdownSignalException sig = mock(ShutdownSignalException.class);

    wrapped.handleConsumeOk("a");
    wrapped.handleCancelOk("b");
    wrapped.handleCancel("c");
    wrapped.handleShutdownSignal("d", sig);
    wrapped.handleRecoverOk("e");

    verify(mine).handleConsumeOk("a");
    verify(mine).handleCancelOk("b");
    verify(mine).handleCancel("c");
    verify(mine).handleShutdownSignal("d", sig);
    verify(mine).handleRecoverOk("e");
  }

  @Test
  void prefetch_aboveTwoOrUnlimited_warnsOncePerQueue() throws Exception {
    channel.basicQos(10);
    channel.basicConsume("big", false, new DefaultConsumer(channel));
    channel.basicConsume("big", false, new DefaultConsumer(channel));
    assertThat(stats.prefetchWarnings()).isEqualTo(1);

    channel.basicQos(1);
    channel.basicConsume("small", false, new DefaultConsumer(channel));
    assertThat(stats.prefetchWarnings()).isEqualTo(1);

    channel.basicConsume("auto", true, new DefaultConsumer(channel));
    assertThat(stats.prefetchWarnings()).isEqualTo(2);

    when(delegate.queueDeclare(eq("plain"), anyBoolean(), anyBoolean(), anyBoolean(), any()))
        .thenReturn(new AMQP.Queue.DeclareOk.Builder().queue("plain").build());
    channel.queueDeclare("plain", true, false, false, Map.of());
    channel.basicQos(0);
    channel.basicConsume("plain", false, new DefaultConsumer(channel));
    assertThat(stats.prefetchWarnings()).isEqualTo(2);

    channel.basicConsume("unlimited", false, new DefaultConsumer(channel));
    assertThat(stats.prefetchWarnings()).isEqualTo(3);
    verify(delegate, org.mockito.Mockito.atLeastOnce())
        .basicConsume(
            anyString(),
            anyBoolean(),
            anyString(),
            anyBoolean(),
            anyBoolean(),
            any(),
            any(Consumer.class));
  }

  @Test
  void prefetch_globalLimitOfOne_isEnough() throws Exception {
    channel.basicQos(0, 1, true);
    channel.basicConsume("glob", false, new DefaultConsumer(channel));

    assertThat(stats.prefetchWarnings()).isZero();
  }
}
