package io.harbinger.rabbit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.anyBoolean;
import static org.mockito.ArgumentMatchers.anyString;
import static org.mockito.ArgumentMatchers.eq;
import static org.mockito.Mockito.atLeastOnce;
import static org.mockito.Mockito.inOrder;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.never;
import static org.mockito.Mockito.timeout;
import static org.mockito.Mockito.times;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;
import static org.mockito.Mockito.withSettings;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Consumer;
import com.rabbitmq.client.DefaultConsumer;
import com.rabbitmq.client.Envelope;
import com.rabbitmq.client.GetResponse;
import com.rabbitmq.client.Recoverable;
import com.rabbitmq.client.RecoveryListener;
import com.rabbitmq.client.ShutdownListener;
import com.rabbitmq.client.ShutdownSignalException;
import com.rabbitmq.client.impl.recovery.AutorecoveringChannel;
import com.rabbitmq.client.impl.recovery.RecoveryAwareChannelN;
import io.harbinger.predictor.Ticker;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.mockito.ArgumentCaptor;
import org.mockito.InOrder;

/**
 * The pulling lanes consumer against a scripted channel: the lanes it tries and in which order, the
 * subscriptions it makes only while every lane is empty and cancels once busy, and its refusals.
 */
class PullingLanesConsumerTest {

  private static final String QUEUE = "pulling-lanes-test";

  private final Channel delegate = mock(Channel.class);
  private final AdapterStats stats = new AdapterStats();
  private final List<Long> handed = new CopyOnWriteArrayList<>();
  private PredictiveChannel channel;

  @AfterEach
  void close() throws Exception {
    if (channel != null) {
      channel.close();
    }
    DeclaredLanes.SHARED.forget(QUEUE);
  }

  private PredictiveChannel channel(LaneOptions options) {
    return channel(options, Ticker.SYSTEM);
  }

  private PredictiveChannel channel(LaneOptions options, Ticker clock) {
    Lanes.declared(new LaneLayout(QUEUE, 3, Map.of()));
    channel =
        new PredictiveChannel(
            delegate,
            ChannelOptions.builder("consumer").stats(stats).lanes(options).ticker(clock).build(),
            new PrefetchGuard());
    return channel;
  }

  /** Consumes with prefetch 1 and a consumer that records each delivery and never settles. */
  private String consume(LaneOptions options) throws Exception {
    return consume(options, Ticker.SYSTEM);
  }

  private String consume(LaneOptions options, Ticker clock) throws Exception {
    PredictiveChannel ch = channel(options, clock);
    ch.basicQos(1);
    return ch.basicConsume(
        QUEUE,
        false,
        new DefaultConsumer(ch) {
          @Override
          public void handleDelivery(
              String consumerTag, Envelope envelope, AMQP.BasicProperties p, byte[] body) {
            handed.add(envelope.getDeliveryTag());
          }
        });
  }

  private static GetResponse message(long tag) {
    return new GetResponse(new Envelope(tag, false, "", "rk"), null, new byte[0], 0);
  }

  /** A message of producer {@code shop} with a job type. */
  private static GetResponse message(long tag, String jobType) {
    return message(tag, "shop", jobType);
  }

  /** A message of this user-id whose job-type header holds this value (null: no such header). */
  private static GetResponse message(long tag, String userId, Object jobType) {
    Map<String, Object> headers = new HashMap<>();
    headers.put("x-job-type", jobType);
    AMQP.BasicProperties props =
        new AMQP.BasicProperties.Builder().userId(userId).headers(headers).build();
    return new GetResponse(new Envelope(tag, false, "", "rk"), props, new byte[0], 0);
  }

  /**
   * Scripts lane 0 with messages 1, 2 and 3 and every other lane empty; returns the consumer's
   * clock, moved by the test and by 5 ms at each basic.get.
   */
  private AtomicLong scriptedLaneZero() throws Exception {
    return scriptedLaneZero(message(1), message(2), message(3));
  }

  /** Scripts lane 0 with these messages, as {@link #scriptedLaneZero()} does. */
  private AtomicLong scriptedLaneZero(GetResponse... messages) throws Exception {
    AtomicLong now = new AtomicLong();
    List<GetResponse> lane0 = new CopyOnWriteArrayList<>(List.of(messages));
    when(delegate.basicGet(anyString(), eq(false)))
        .thenAnswer(
            call -> {
              now.addAndGet(Duration.ofMillis(5).toNanos());
              return call.getArgument(0).equals(QUEUE + ".lane-0") && !lane0.isEmpty()
                  ? lane0.remove(0)
                  : null;
            });
    return now;
  }

  @Test
  void strict_lanesWithWork_takesTheFirstNonEmptyLaneInOrder_subscribesToNothing()
      throws Exception {
    when(delegate.basicGet(QUEUE + ".lane-0", false)).thenReturn(null);
    when(delegate.basicGet(QUEUE + ".lane-1", false)).thenReturn(message(7));
    consume(LaneOptions.strict().withFetch(LaneFetch.PULL));
    await().atMost(Duration.ofSeconds(5)).until(() -> handed.size() == 1);
    assertThat(handed).containsExactly(7L);
    InOrder order = inOrder(delegate);
    order.verify(delegate).basicGet(QUEUE + ".lane-0", false);
    order.verify(delegate).basicGet(QUEUE + ".lane-1", false);
    // Busy with tag 7 (prefetch 1, unsettled): nothing else is taken, nothing subscribed.
    Thread.sleep(100);
    verify(delegate, never()).basicGet(QUEUE, false);
    verify(delegate, never())
        .basicConsume(
            anyString(), anyBoolean(), anyString(), anyBoolean(), anyBoolean(), any(), any());
    assertThat(stats.laneHeld()).isZero();
    assertThat(stats.laneGets()).isEqualTo(1);
    assertThat(stats.laneEmptyGets()).isEqualTo(1);
    assertThat(stats.laneTakenAhead()).isZero();
    // Settled: the next pull starts again from the first lane. (A take-ahead may follow it at
    // once, so the count of gets is not exact; their order is.)
    channel.basicAck(7, false);
    await().atMost(Duration.ofSeconds(5)).until(() -> handed.size() == 2);
    order.verify(delegate).basicGet(QUEUE + ".lane-0", false);
    order.verify(delegate).basicGet(QUEUE + ".lane-1", false);
  }

  @Test
  void behindAShortJob_theNextMessageIsTakenAhead_andHandedOnAtOnce() throws Exception {
    AtomicLong now = scriptedLaneZero();
    Ticker clock = now::get;
    consume(LaneOptions.strict().withFetch(LaneFetch.PULL), clock);
    await().atMost(Duration.ofSeconds(5)).until(() -> handed.size() == 1);
    // Level 0 has no finished job yet: nothing is taken ahead of message 1.
    Thread.sleep(100);
    assertThat(stats.laneHeld()).isZero();
    verify(delegate, times(1)).basicGet(QUEUE + ".lane-0", false);
    // Message 1 took 2 ms: level 0 now averages 2 ms, less than three 5 ms round trips (one per
    // lane), so the next is taken at once.
    now.addAndGet(Duration.ofMillis(2).toNanos());
    channel.basicAck(1, false);
    await().atMost(Duration.ofSeconds(5)).until(() -> handed.size() == 2);
    // While message 2 runs, message 3 is taken ahead and held...
    await().atMost(Duration.ofSeconds(5)).until(() -> stats.laneHeld() == 1);
    assertThat(handed).containsExactly(1L, 2L);
    // ...and handed on as soon as message 2 is settled, with no basic.get in between.
    verify(delegate, times(3)).basicGet(QUEUE + ".lane-0", false);
    channel.basicAck(2, false);
    await().atMost(Duration.ofSeconds(5)).until(() -> handed.size() == 3);
    assertThat(handed).containsExactly(1L, 2L, 3L);
    assertThat(stats.laneTakenAhead()).isEqualTo(1);
    assertThat(stats.laneGets()).isEqualTo(3);
  }

  @Test
  void behindALongJob_theNextMessageIsTakenAheadOnlyShortlyBeforeItsExpectedEnd() throws Exception {
    AtomicLong now = scriptedLaneZero();
    Ticker clock = now::get;
    consume(LaneOptions.strict().withFetch(LaneFetch.PULL), clock);
    await().atMost(Duration.ofSeconds(5)).until(() -> handed.size() == 1);
    // Message 1 took 100 ms: level 0 averages 100 ms.
    now.addAndGet(Duration.ofMillis(100).toNanos());
    channel.basicAck(1, false);
    await().atMost(Duration.ofSeconds(5)).until(() -> handed.size() == 2);
    // Message 2 runs; until 100 ms less three 5 ms round trips have passed, nothing is taken.
    now.addAndGet(Duration.ofMillis(80).toNanos());
    Thread.sleep(1200);
    assertThat(stats.laneHeld()).isZero();
    verify(delegate, times(2)).basicGet(QUEUE + ".lane-0", false);
    // 85 ms after its hand-off, message 3 is taken ahead and held...
    now.addAndGet(Duration.ofMillis(6).toNanos());
    await().atMost(Duration.ofSeconds(5)).until(() -> stats.laneHeld() == 1);
    assertThat(handed).containsExactly(1L, 2L);
    // ...and handed on when message 2 is settled, with no basic.get in between.
    channel.basicAck(2, false);
    await().atMost(Duration.ofSeconds(5)).until(() -> handed.size() == 3);
    verify(delegate, times(3)).basicGet(QUEUE + ".lane-0", false);
  }

  @Test
  void behindAQuickJobInALevelWhoseAverageIsLong_theNextIsTakenAheadAtOnce_byItsKeysAverage()
      throws Exception {
    AtomicLong now =
        scriptedLaneZero(
            message(1, "slow"), message(2, "quick"), message(3, "quick"), message(4, "slow"));
    Ticker clock = now::get;
    consume(LaneOptions.strict().withFetch(LaneFetch.PULL), clock);
    await().atMost(Duration.ofSeconds(5)).until(() -> handed.size() == 1);
    // Message 1 took 100 ms: level 0 and the key shop/slow average 100 ms.
    now.addAndGet(Duration.ofMillis(100).toNanos());
    channel.basicAck(1, false);
    await().atMost(Duration.ofSeconds(5)).until(() -> handed.size() == 2);
    // Message 2's key has no finished job: the level's 100 ms times it, so nothing is taken yet.
    Thread.sleep(200);
    assertThat(stats.laneHeld()).isZero();
    // Message 2 took 2 ms: the level now averages about 95 ms, shop/quick 2 ms.
    now.addAndGet(Duration.ofMillis(2).toNanos());
    channel.basicAck(2, false);
    await().atMost(Duration.ofSeconds(5)).until(() -> handed.size() == 3);
    // Behind message 3, of the quick key, message 4 is taken ahead at once (2 ms is under three 5
    // ms round trips), though the clock has not moved towards the level's average.
    await().atMost(Duration.ofSeconds(5)).until(() -> stats.laneHeld() == 1);
    assertThat(handed).containsExactly(1L, 2L, 3L);
    assertThat(stats.laneTakenAhead()).isEqualTo(1);
  }

  @Test
  void garbageJobTypesAndUserIds_areHandedOnAndSettled_timedByTheLevelsAverage() throws Exception {
    GetResponse[] garbage = {
      message(1, "shop", "ok"),
      message(2, "shop", new byte[] {(byte) 0xff, 0, 1}),
      message(3, "shop", 42),
      message(4, "shop", "line\nbreak\u0000"),
      message(5, "shop", "x".repeat(100_000)),
      message(6, "shop", null),
      message(7, "bad\u0007user", "ok"),
      message(8, null, "ok"),
      message(9, "", List.of("a", "b")),
    };
    AtomicLong now = scriptedLaneZero(garbage);
    consume(LaneOptions.strict().withFetch(LaneFetch.PULL), now::get);
    for (int tag = 1; tag <= garbage.length; tag++) {
      int expected = tag;
      await().atMost(Duration.ofSeconds(5)).until(() -> handed.size() == expected);
      now.addAndGet(Duration.ofMillis(1).toNanos());
      channel.basicAck(tag, false);
      verify(delegate, timeout(5000)).basicAck(tag, false);
    }
    assertThat(handed).containsExactly(1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L);
    // Every one was timed: by its key where one could be made of it, else by its level's average,
    // which the well-formed first message had set: the later ones were taken ahead.
    assertThat(stats.laneTakenAhead()).isPositive();
    assertThat(stats.laneHandoffs()).isEqualTo(garbage.length);
  }

  @Test
  void afterARecovery_aStaleTagIsNotSent_andNothingIsTakenUntilItIsSettled() throws Exception {
    Channel recovering = mock(Channel.class, withSettings().extraInterfaces(Recoverable.class));
    List<GetResponse> lane0 = new CopyOnWriteArrayList<>(List.of(message(7), message(1)));
    when(recovering.basicGet(anyString(), eq(false)))
        .thenAnswer(
            call ->
                call.getArgument(0).equals(QUEUE + ".lane-0") && !lane0.isEmpty()
                    ? lane0.remove(0)
                    : null);
    when(recovering.isOpen()).thenReturn(true);
    Lanes.declared(new LaneLayout(QUEUE, 3, Map.of()));
    channel =
        new PredictiveChannel(
            recovering,
            ChannelOptions.builder("consumer")
                .stats(stats)
                .lanes(LaneOptions.strict().withFetch(LaneFetch.PULL))
                .build(),
            new PrefetchGuard());
    channel.basicQos(1);
    channel.basicConsume(
        QUEUE,
        false,
        new DefaultConsumer(channel) {
          @Override
          public void handleDelivery(
              String consumerTag, Envelope envelope, AMQP.BasicProperties p, byte[] body) {
            handed.add(envelope.getDeliveryTag());
          }
        });
    await().atMost(Duration.ofSeconds(5)).until(() -> handed.size() == 1);
    ArgumentCaptor<ShutdownListener> shutdown = ArgumentCaptor.forClass(ShutdownListener.class);
    verify(recovering, atLeastOnce()).addShutdownListener(shutdown.capture());
    ArgumentCaptor<RecoveryListener> recovery = ArgumentCaptor.forClass(RecoveryListener.class);
    verify((Recoverable) recovering).addRecoveryListener(recovery.capture());
    // The connection drops while message 7 runs, and the channel recovers: the new channel's
    // first basic.get would be tag 1 again, so nothing is taken while 7 is unsettled.
    ShutdownSignalException dropped = new ShutdownSignalException(true, false, null, recovering);
    shutdown.getAllValues().forEach(listener -> listener.shutdownCompleted(dropped));
    recovery.getValue().handleRecovery((Recoverable) recovering);
    Thread.sleep(300);
    verify(recovering, times(1)).basicGet(QUEUE + ".lane-0", false);
    // The application's late acknowledgement of 7 is not sent; then the consumer takes again.
    channel.basicAck(7, false);
    verify(recovering, never()).basicAck(7, false);
    await().atMost(Duration.ofSeconds(5)).until(() -> handed.size() == 2);
    assertThat(handed).containsExactly(7L, 1L);
    channel.basicAck(1, false);
    verify(recovering).basicAck(1, false);
  }

  @Test
  void tagOffset_isTheRecoveringChannelsOffset_elseZero() {
    AutorecoveringChannel recovering = mock(AutorecoveringChannel.class);
    RecoveryAwareChannelN aware = mock(RecoveryAwareChannelN.class);
    when(recovering.getDelegate()).thenReturn(aware);
    when(aware.getActiveDeliveryTagOffset()).thenReturn(40L);
    assertThat(PulledTags.tagOffset(recovering)).isEqualTo(40);
    assertThat(PulledTags.tagOffset(delegate)).isZero();
  }

  @Test
  void everyLaneEmpty_subscribesToEach_handsOverWhatComes_thenCancelsEverySubscription()
      throws Exception {
    String tag = consume(LaneOptions.defaults().withFetch(LaneFetch.PULL));
    ArgumentCaptor<String> tags = ArgumentCaptor.forClass(String.class);
    ArgumentCaptor<Consumer> callbacks = ArgumentCaptor.forClass(Consumer.class);
    verify(delegate, timeout(5000).times(3))
        .basicConsume(
            anyString(),
            eq(false),
            tags.capture(),
            anyBoolean(),
            eq(false),
            any(),
            callbacks.capture());
    verify(delegate, atLeastOnce()).basicGet(QUEUE, false);
    assertThat(tags.getAllValues())
        .containsExactly(tag + ".lane-0.1", tag + ".lane-1.2", tag + ".lane-2.3");
    verify(delegate).basicQos(1, false);
    // A delivery on the lowest lane's subscription is handed over at once...
    callbacks
        .getAllValues()
        .get(2)
        .handleDelivery(
            tags.getAllValues().get(2), new Envelope(9, false, "", "rk"), null, new byte[0]);
    await().atMost(Duration.ofSeconds(5)).until(() -> handed.size() == 1);
    assertThat(handed).containsExactly(9L);
    // ...and the busy consumer cancels every subscription.
    for (String t : tags.getAllValues()) {
      verify(delegate, timeout(5000)).basicCancel(t);
    }
    assertThat(stats.laneHandoffs()).isEqualTo(1);
  }

  @Test
  void exclusive_isRefusedNamingPush_withoutPrefetch_theLanesArePushed() throws Exception {
    PredictiveChannel ch = channel(LaneOptions.defaults().withFetch(LaneFetch.PULL));
    ch.basicQos(1);
    assertThatThrownBy(
            () -> ch.basicConsume(QUEUE, false, "", false, true, null, new DefaultConsumer(ch)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("exclusive consumer needs LaneFetch.PUSH");
    verify(delegate, never()).basicGet(anyString(), anyBoolean());

    // No consumer prefetch with manual acknowledgement: nothing tells when the application is busy,
    // so the lanes are consumed as with push (one consumer per lane, fixed tags).
    PredictiveChannel unlimited = channel(LaneOptions.defaults().withFetch(LaneFetch.PULL));
    String tag = unlimited.basicConsume(QUEUE, false, new DefaultConsumer(unlimited));
    verify(delegate)
        .basicConsume(
            eq(QUEUE + ".lane-0"),
            eq(false),
            eq(tag + ".lane-0"),
            anyBoolean(),
            anyBoolean(),
            any(),
            any());
  }
}
