package io.harbinger.rabbit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.anyBoolean;
import static org.mockito.ArgumentMatchers.anyMap;
import static org.mockito.ArgumentMatchers.eq;
import static org.mockito.ArgumentMatchers.isNull;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.verify;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Consumer;
import com.rabbitmq.client.DefaultConsumer;
import com.rabbitmq.client.Envelope;
import io.harbinger.predictor.ManualTicker;
import io.harbinger.predictor.Ticker;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.mockito.ArgumentCaptor;

/**
 * The lanes consumer against a scripted channel: which held delivery the application gets next, the
 * anticipation of a lane's next delivery, and one consumer tag for all lanes.
 */
class LanesConsumerTest {

  private static final String QUEUE = "lanes-consumer-test";

  private final Channel delegate = mock(Channel.class);
  private final AdapterStats stats = new AdapterStats();
  private final List<Long> handed = new CopyOnWriteArrayList<>();
  private final List<String> events = new CopyOnWriteArrayList<>();
  private PredictiveChannel channel;

  @AfterEach
  void close() throws Exception {
    if (channel != null) {
      channel.close();
    }
    DeclaredLanes.SHARED.forget(QUEUE);
  }

  /** Consumes the lanes with a consumer that records each delivery and never acknowledges. */
  private Consumer[] consume(LaneOptions options) throws Exception {
    return consume(options, Ticker.SYSTEM);
  }

  /**
   * Consumes the lanes as above, with the consumer's clock given, pushed (these classic lanes would
   * be pulled by default).
   */
  private Consumer[] consume(LaneOptions options, Ticker clock) throws Exception {
    Lanes.declared(new LaneLayout(QUEUE, 3, Map.of()));
    channel =
        new PredictiveChannel(
            delegate,
            ChannelOptions.builder("consumer")
                .stats(stats)
                .lanes(options.withFetch(LaneFetch.PUSH))
                .ticker(clock)
                .build(),
            new PrefetchGuard());
    channel.basicQos(1);
    String tag =
        channel.basicConsume(
            QUEUE,
            false,
            new DefaultConsumer(channel) {
              @Override
              public void handleDelivery(
                  String consumerTag, Envelope envelope, AMQP.BasicProperties p, byte[] body) {
                handed.add(envelope.getDeliveryTag());
                events.add("delivery " + consumerTag);
              }

              @Override
              public void handleConsumeOk(String consumerTag) {
                events.add("consume-ok " + consumerTag);
              }

              @Override
              public void handleCancelOk(String consumerTag) {
                events.add("cancel-ok " + consumerTag);
              }
            });
    assertThat(tag).startsWith("harbinger-lanes-");
    Consumer[] lanes = new Consumer[3];
    for (int level = 0; level < 3; level++) {
      ArgumentCaptor<Consumer> c = ArgumentCaptor.forClass(Consumer.class);
      verify(delegate)
          .basicConsume(
              eq(level == 2 ? QUEUE : QUEUE + ".lane-" + level),
              eq(false),
              eq(tag + ".lane-" + level),
              anyBoolean(),
              anyBoolean(),
              any(),
              c.capture());
      lanes[level] = c.getValue();
    }
    // Each lane prefetches one more than the application's prefetch of 1.
    verify(delegate).basicQos(2, false);
    return lanes;
  }

  private static void deliver(Consumer lane, long tag) throws Exception {
    lane.handleDelivery("lane", new Envelope(tag, false, "", "rk"), null, new byte[0]);
  }

  @Test
  void strict_whileTheApplicationIsBusy_theLowestLevelHeldIsHandedNext() throws Exception {
    Consumer[] lanes = consume(LaneOptions.strict().withAnticipation(Duration.ZERO));
    deliver(lanes[0], 1);
    await().atMost(Duration.ofSeconds(5)).until(() -> handed.size() == 1);
    // Prefetch 1: nothing more is handed until the application settles tag 1.
    deliver(lanes[2], 2);
    deliver(lanes[0], 3);
    Thread.sleep(50);
    assertThat(handed).containsExactly(1L);
    assertThat(stats.laneHeld()).isEqualTo(2);
    channel.basicAck(1, false);
    await().atMost(Duration.ofSeconds(5)).until(() -> handed.size() == 2);
    assertThat(handed).containsExactly(1L, 3L);
    channel.basicAck(3, false);
    await().atMost(Duration.ofSeconds(5)).until(() -> handed.size() == 3);
    assertThat(handed).containsExactly(1L, 3L, 2L);
    verify(delegate).basicAck(3, false);
    assertThat(stats.laneHandoffs()).isEqualTo(3);
    assertThat(stats.laneHeld()).isZero();
  }

  @Test
  void anticipation_waitsForTheNextDeliveryOfAShortLaneWhoseCreditWasUsedUp() throws Exception {
    // The consumer's clock stands still until the test moves it, so a stalled test thread between
    // the two settlements below cannot let the first expectation lapse before the second.
    ManualTicker clock = new ManualTicker();
    Consumer[] lanes =
        consume(LaneOptions.strict().withAnticipation(Duration.ofMillis(500)), clock);
    // The short lane fills its prefetch of 2 (one handed, one held): RabbitMQ holds back the rest.
    deliver(lanes[0], 1);
    deliver(lanes[0], 3);
    await().atMost(Duration.ofSeconds(5)).until(() -> handed.size() == 1);
    deliver(lanes[2], 2);
    // Settling tag 1 frees the used-up credit: the short lane's next delivery is expected.
    channel.basicAck(1, false);
    await().atMost(Duration.ofSeconds(5)).until(() -> handed.size() == 2);
    channel.basicAck(3, false);
    Thread.sleep(100);
    assertThat(handed).containsExactly(1L, 3L);
    deliver(lanes[0], 4);
    await().atMost(Duration.ofSeconds(5)).until(() -> handed.size() == 3);
    assertThat(handed).containsExactly(1L, 3L, 4L);
    // Two settlements of used-up credit let RabbitMQ send two more; one came. After the
    // anticipation the lane is taken for empty and the long job follows.
    channel.basicAck(4, false);
    Thread.sleep(100);
    assertThat(handed).containsExactly(1L, 3L, 4L);
    clock.advance(Duration.ofMillis(501));
    await().atMost(Duration.ofSeconds(5)).until(() -> handed.size() == 4);
    assertThat(handed).containsExactly(1L, 3L, 4L, 2L);
  }

  @Test
  void anticipation_aSettlementOnALaneWithCreditLeft_doesNotIdleTheWorker() throws Exception {
    Consumer[] lanes = consume(LaneOptions.strict().withAnticipation(Duration.ofSeconds(1)));
    deliver(lanes[0], 1);
    await().atMost(Duration.ofSeconds(5)).until(() -> handed.size() == 1);
    deliver(lanes[2], 2);
    // The short lane held one delivery of its 2 credits: RabbitMQ had nothing more to send it.
    long settled = System.nanoTime();
    channel.basicAck(1, false);
    await().atMost(Duration.ofSeconds(5)).until(() -> handed.size() == 2);
    assertThat(handed).containsExactly(1L, 2L);
    assertThat(Duration.ofNanos(System.nanoTime() - settled)).isLessThan(Duration.ofMillis(800));
  }

  @Test
  void anticipation_aCreditBlockedLaneThatSendsNothing_isGivenUpAfterTheAnticipation()
      throws Exception {
    Consumer[] lanes = consume(LaneOptions.strict().withAnticipation(Duration.ofMillis(300)));
    deliver(lanes[0], 1);
    deliver(lanes[0], 3);
    await().atMost(Duration.ofSeconds(5)).until(() -> handed.size() == 1);
    deliver(lanes[2], 2);
    channel.basicAck(1, false);
    await().atMost(Duration.ofSeconds(5)).until(() -> handed.size() == 2);
    long settled = System.nanoTime();
    channel.basicAck(3, false);
    // Tag 1's settlement left the lane expected; nothing comes, so the long job follows after it.
    await().atMost(Duration.ofSeconds(5)).until(() -> handed.size() == 3);
    assertThat(handed).containsExactly(1L, 3L, 2L);
    assertThat(Duration.ofNanos(System.nanoTime() - settled)).isLessThan(Duration.ofMillis(2000));
  }

  @Test
  void noAnticipation_handsOverTheLongJobAtOnce() throws Exception {
    Consumer[] lanes = consume(LaneOptions.strict().withAnticipation(Duration.ZERO));
    deliver(lanes[0], 1);
    await().atMost(Duration.ofSeconds(5)).until(() -> handed.size() == 1);
    deliver(lanes[2], 2);
    channel.basicAck(1, false);
    await().atMost(Duration.ofSeconds(5)).until(() -> handed.size() == 2);
    assertThat(handed).containsExactly(1L, 2L);
  }

  @Test
  void oneConsumerTag_consumeOkOnceAllLanesConfirmed_cancelCancelsEveryLane() throws Exception {
    Consumer[] lanes = consume(LaneOptions.defaults());
    assertThat(events).isEmpty();
    lanes[0].handleConsumeOk("x.lane-0");
    lanes[1].handleConsumeOk("x.lane-1");
    assertThat(events).isEmpty();
    lanes[2].handleConsumeOk("x.lane-2");
    assertThat(events).hasSize(1).allMatch(e -> e.startsWith("consume-ok harbinger-lanes-"));
    String appTag = events.get(0).substring("consume-ok ".length());
    channel.basicCancel(appTag);
    for (int level = 0; level < 3; level++) {
      verify(delegate).basicCancel(appTag + ".lane-" + level);
    }
    lanes[0].handleCancelOk(appTag + ".lane-0");
    lanes[1].handleCancelOk(appTag + ".lane-1");
    assertThat(events).hasSize(1);
    lanes[2].handleCancelOk(appTag + ".lane-2");
    assertThat(events).containsExactly("consume-ok " + appTag, "cancel-ok " + appTag);
    deliver(lanes[0], 9);
    Thread.sleep(50);
    assertThat(handed).isEmpty();
  }

  @Test
  void unknownQueue_consumesAsBefore() throws Exception {
    channel =
        new PredictiveChannel(
            delegate, ChannelOptions.builder("consumer").build(), new PrefetchGuard());
    channel.basicConsume("plain", false, new DefaultConsumer(channel));
    verify(delegate)
        .basicConsume(
            eq("plain"), eq(false), eq(""), eq(false), eq(false), isNull(), any(Consumer.class));
    verify(delegate, org.mockito.Mockito.never())
        .basicConsume(
            eq("plain.lane-0"), anyBoolean(), any(), anyBoolean(), anyBoolean(), anyMap(), any());
  }
}
