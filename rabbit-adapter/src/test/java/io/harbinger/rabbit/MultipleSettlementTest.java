package io.harbinger.rabbit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.anyBoolean;
import static org.mockito.ArgumentMatchers.anyLong;
import static org.mockito.ArgumentMatchers.eq;
import static org.mockito.Mockito.inOrder;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.never;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Consumer;
import com.rabbitmq.client.DefaultConsumer;
import com.rabbitmq.client.Envelope;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.mockito.ArgumentCaptor;
import org.mockito.InOrder;

/**
 * A multiple acknowledgement or nack on a channel with a pushed lanes consumer, against a scripted
 * channel: it settles what the application was handed and none of what the consumer holds.
 */
class MultipleSettlementTest {

  private static final String QUEUE = "multiple-settlement-test";
  private static final Duration WAIT = Duration.ofSeconds(5);

  private final Channel delegate = mock(Channel.class);
  private final AdapterStats stats = new AdapterStats();
  private final List<Long> handed = new CopyOnWriteArrayList<>();
  private final List<Long> plainHanded = new CopyOnWriteArrayList<>();
  private final List<DurationReport> reports = new CopyOnWriteArrayList<>();
  private PredictiveChannel channel;

  @AfterEach
  void close() throws Exception {
    if (channel != null) {
      channel.close();
    }
    DeclaredLanes.SHARED.forget(QUEUE);
  }

  @Test
  void plan_multipleBelowTheLowestTagLeftAlone_singlesAbove() {
    TreeSet<Long> handedTags = new TreeSet<>(List.of(1L, 3L, 4L, 7L, 9L));
    assertThat(MultipleSettlement.plan(handedTags, 5))
        .isEqualTo(new MultipleSettlement(4, List.of(7L, 9L)));
    assertThat(MultipleSettlement.plan(handedTags, 1))
        .isEqualTo(new MultipleSettlement(0, List.of(1L, 3L, 4L, 7L, 9L)));
    assertThat(MultipleSettlement.plan(handedTags, 0))
        .isEqualTo(new MultipleSettlement(0, List.of(1L, 3L, 4L, 7L, 9L)));
    assertThat(MultipleSettlement.plan(new TreeSet<>(), 2).isEmpty()).isTrue();
  }

  /**
   * Wraps the channel and consumes the lanes pushed, strict, with prefetch 1; returns the lanes.
   */
  private Consumer[] consumeLanes(boolean autoAck, CountDownLatch release) throws Exception {
    Lanes.declared(new LaneLayout(QUEUE, 3, Map.of()));
    when(delegate.isOpen()).thenReturn(true);
    channel =
        new PredictiveChannel(
            delegate,
            ChannelOptions.builder("consumer")
                .stats(stats)
                .reports(reports::add)
                .lanes(
                    LaneOptions.strict().withAnticipation(Duration.ZERO).withFetch(LaneFetch.PUSH))
                .build(),
            new PrefetchGuard());
    channel.basicQos(1);
    String tag =
        channel.basicConsume(
            QUEUE,
            autoAck,
            new DefaultConsumer(channel) {
              @Override
              public void handleDelivery(
                  String consumerTag, Envelope envelope, AMQP.BasicProperties p, byte[] body)
                  throws java.io.IOException {
                handed.add(envelope.getDeliveryTag());
                if (release != null) {
                  try {
                    release.await();
                  } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                  }
                }
              }
            });
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
    return lanes;
  }

  /** Consumes a plain queue on the same channel, manual acknowledgement; returns its consumer. */
  private Consumer consumePlain() throws Exception {
    channel.basicConsume(
        "plain",
        false,
        new DefaultConsumer(channel) {
          @Override
          public void handleDelivery(
              String consumerTag, Envelope envelope, AMQP.BasicProperties p, byte[] body) {
            plainHanded.add(envelope.getDeliveryTag());
          }
        });
    ArgumentCaptor<Consumer> c = ArgumentCaptor.forClass(Consumer.class);
    verify(delegate)
        .basicConsume(eq("plain"), eq(false), eq(""), eq(false), eq(false), any(), c.capture());
    return c.getValue();
  }

  private static void deliver(Consumer consumer, long tag) throws Exception {
    consumer.handleDelivery("c", new Envelope(tag, false, "", "rk"), null, new byte[0]);
  }

  @Test
  void multipleAck_whileTheConsumerHoldsALowerTag_settlesOnlyWhatWasHanded() throws Exception {
    Consumer[] lanes = consumeLanes(false, null);
    deliver(lanes[2], 1);
    await().atMost(WAIT).until(() -> handed.size() == 1);
    // Prefetch 1: the long job 2 and the short job 3 are held until tag 1 is settled.
    deliver(lanes[2], 2);
    deliver(lanes[0], 3);
    channel.basicAck(1, false);
    await().atMost(WAIT).until(() -> handed.size() == 2);
    assertThat(handed).containsExactly(1L, 3L);

    // Tag 2 is held: a multiple acknowledgement of 3 must not reach it.
    channel.basicAck(3, true);
    verify(delegate).basicAck(3, false);
    verify(delegate, never()).basicAck(anyLong(), eq(true));

    // Settling 3 released the hand-over of 2; with nothing held up to it, it goes as it came.
    await().atMost(WAIT).until(() -> handed.size() == 3);
    channel.basicAck(2, true);
    verify(delegate).basicAck(2, true);
    assertThat(reports)
        .extracting(DurationReport::settlement)
        .containsExactly(Settlement.ACK, Settlement.ACK, Settlement.ACK);
    assertThat(stats.unmatchedSettles()).isZero();
  }

  @Test
  void multipleAckAndNack_onAChannelWithAPlainConsumer_settleItsDeliveriesToo() throws Exception {
    Consumer[] lanes = consumeLanes(false, null);
    Consumer plain = consumePlain();
    deliver(lanes[2], 1);
    await().atMost(WAIT).until(() -> handed.size() == 1);
    deliver(lanes[2], 2);
    deliver(plain, 3);
    assertThat(plainHanded).containsExactly(3L);

    // Handed: 1 (lanes) and 3 (plain); held: 2.
    channel.basicAck(3, true);
    InOrder order = inOrder(delegate);
    order.verify(delegate).basicAck(1, true);
    order.verify(delegate).basicAck(3, false);
    verify(delegate, never()).basicAck(eq(2L), anyBoolean());
    verify(delegate, never()).basicAck(3, true);

    // 2 is handed now and unsettled (no room): 5 is held.
    await().atMost(WAIT).until(() -> handed.size() == 2);
    deliver(lanes[0], 5);
    deliver(plain, 6);
    channel.basicNack(6, true, true);
    order.verify(delegate).basicNack(2, true, true);
    order.verify(delegate).basicNack(6, false, true);
    verify(delegate, never()).basicNack(eq(5L), anyBoolean(), anyBoolean());

    await().atMost(WAIT).until(() -> handed.size() == 3);
    assertThat(handed).containsExactly(1L, 2L, 5L);
    assertThat(reports)
        .extracting(DurationReport::settlement)
        .containsExactlyInAnyOrder(
            Settlement.ACK, Settlement.ACK, Settlement.NACK, Settlement.NACK);
    assertThat(stats.unmatchedSettles()).isZero();
  }

  @Test
  void multipleAck_ofAPlainConsumer_besideAnAutoAckLanesConsumer_leavesItsHeldDeliveries()
      throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    try {
      Consumer[] lanes = consumeLanes(true, release);
      Consumer plain = consumePlain();
      deliver(lanes[1], 1);
      await().atMost(WAIT).until(() -> handed.size() == 1);
      verify(delegate).basicAck(1, false);
      // The lanes application is busy with 1: 2 is held.
      deliver(lanes[1], 2);
      deliver(plain, 3);
      channel.basicAck(3, true);
      verify(delegate).basicAck(3, false);
      verify(delegate, never()).basicAck(anyLong(), eq(true));
    } finally {
      release.countDown();
    }
    await().atMost(WAIT).until(() -> handed.size() == 2);
    verify(delegate).basicAck(2, false);
  }

  @Test
  void multipleAck_onAChannelWithoutLanesConsumers_goesAsItCame() throws Exception {
    channel =
        new PredictiveChannel(
            delegate, ChannelOptions.builder("consumer").stats(stats).build(), new PrefetchGuard());
    Consumer plain = consumePlain();
    deliver(plain, 1);
    deliver(plain, 2);
    channel.basicAck(2, true);
    channel.basicNack(7, true, false);
    verify(delegate).basicAck(2, true);
    verify(delegate).basicNack(7, true, false);
  }
}
