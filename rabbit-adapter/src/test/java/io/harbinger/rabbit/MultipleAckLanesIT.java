package io.harbinger.rabbit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.DefaultConsumer;
import com.rabbitmq.client.Envelope;
import com.rabbitmq.client.GetResponse;
import io.harbinger.testing.EachBroker;
import io.harbinger.testing.ProgressWait;
import io.harbinger.testing.Quietly;
import io.harbinger.testing.TestBroker;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Multiple acknowledgements and nacks on a channel consuming lanes, pushed and pulled, on both
 * brokers: they settle what the application was handed and nothing a lanes consumer still holds, so
 * nothing is lost and no tag is settled twice.
 */
class MultipleAckLanesIT {

  private static final Duration WAIT = Duration.ofSeconds(30);

  /** What the application was handed and has not settled, by delivery tag; settles it. */
  private static final class Ledger {
    private final NavigableMap<Long, String> unsettled = new TreeMap<>();
    private final Map<String, AtomicInteger> acked = new ConcurrentHashMap<>();
    private Channel channel;

    synchronized void handed(long tag, String id) {
      unsettled.put(tag, id);
    }

    synchronized int size() {
      return unsettled.size();
    }

    /** Acknowledges (or nacks with requeue) every delivery handed so far, with multiple set. */
    synchronized void settleAll(boolean nack) throws IOException {
      if (unsettled.isEmpty()) {
        return;
      }
      long last = unsettled.lastKey();
      if (nack) {
        channel.basicNack(last, true, true);
      } else {
        channel.basicAck(last, true);
        for (String id : unsettled.values()) {
          acked.computeIfAbsent(id, k -> new AtomicInteger()).incrementAndGet();
        }
      }
      unsettled.clear();
    }

    synchronized Set<String> unsettledIds() {
      return new HashSet<>(unsettled.values());
    }
  }

  private static AMQP.BasicProperties job(String id) {
    return new AMQP.BasicProperties.Builder().messageId(id).deliveryMode(2).build();
  }

  private static void deleteLanes(Connection connection, LaneLayout layout) {
    for (int level = 0; level < layout.levels(); level++) {
      Quietly.deleteQueue(connection, layout.laneName(level));
    }
  }

  private static Channel consume(
      Connection connection, TestBroker broker, String queue, LaneOptions lanes, Ledger ledger)
      throws IOException {
    Channel consumer =
        PredictiveChannels.wrap(
            connection.createChannel(),
            ChannelOptions.builder(broker.factory().getUsername()).lanes(lanes).build());
    ledger.channel = consumer;
    consumer.basicQos(3);
    consumer.basicConsume(
        queue,
        false,
        new DefaultConsumer(consumer) {
          @Override
          public void handleDelivery(
              String tag, Envelope envelope, AMQP.BasicProperties props, byte[] body) {
            ledger.handed(envelope.getDeliveryTag(), props.getMessageId());
          }
        });
    return consumer;
  }

  @EachBroker
  void pushedLanes_channelClosedAfterAMultipleAck_everyUnackedMessageIsStillInItsLane(
      TestBroker broker) throws Exception {
    closedAfterAMultipleAck(broker, LaneFetch.PUSH, "quorum");
  }

  @EachBroker
  void pulledLanes_channelClosedAfterAMultipleAck_everyUnackedMessageIsStillInItsLane(
      TestBroker broker) throws Exception {
    closedAfterAMultipleAck(broker, LaneFetch.PULL, "classic");
  }

  /**
   * Four long jobs, then four short ones under strict selection with prefetch 3: a pushed consumer
   * holds the fourth long job (the lowest tag) while it hands the short ones, which the application
   * acknowledges with one multiple ack. The channel is closed with the rest unacknowledged: every
   * message not acknowledged is in its lane again, and every one acknowledged is gone.
   */
  private static void closedAfterAMultipleAck(TestBroker broker, LaneFetch fetch, String type)
      throws Exception {
    String queue = TestBroker.unique("lanes-multi-ack-" + fetch.name().toLowerCase());
    Connection connection = broker.newConnection("harbinger-it-" + queue);
    LaneLayout layout = null;
    try (Channel raw = connection.createChannel()) {
      layout = Lanes.declare(raw, queue, 3, Map.of(QueueType.ARGUMENT, type));
      List<String> all = new ArrayList<>();
      for (int i = 1; i <= 4; i++) {
        raw.basicPublish("", layout.laneName(2), job("long-" + i), new byte[0]);
        all.add("long-" + i);
      }
      Ledger ledger = new Ledger();
      Channel consumer =
          consume(
              connection,
              broker,
              queue,
              LaneOptions.strict().withAnticipation(Duration.ZERO).withFetch(fetch),
              ledger);
      await().atMost(WAIT).until(() -> ledger.size() == 3);
      for (int i = 1; i <= 4; i++) {
        raw.basicPublish("", layout.laneName(0), job("short-" + i), new byte[0]);
        all.add("short-" + i);
      }
      if (fetch == LaneFetch.PUSH) {
        // Let the short jobs reach the consumer before the application has room again.
        String shortLane = layout.laneName(0);
        await().atMost(WAIT).until(() -> raw.queueDeclarePassive(shortLane).getMessageCount() == 0);
      }
      ledger.settleAll(false);
      await().atMost(WAIT).until(() -> ledger.size() == 3);
      ledger.settleAll(false);
      await().atMost(WAIT).until(() -> ledger.size() == 2);
      Set<String> handedNotAcked = ledger.unsettledIds();
      assertThat(consumer.isOpen()).isTrue();
      consumer.close();

      Map<String, Boolean> left = new TreeMap<>();
      for (int level = 0; level < 3; level++) {
        for (GetResponse r = raw.basicGet(layout.laneName(level), true);
            r != null;
            r = raw.basicGet(layout.laneName(level), true)) {
          left.put(r.getProps().getMessageId(), r.getEnvelope().isRedeliver());
        }
      }
      Set<String> expected = new HashSet<>(all);
      expected.removeAll(ledger.acked.keySet());
      assertThat(ledger.acked).hasSize(6).allSatisfy((id, n) -> assertThat(n.get()).isOne());
      assertThat(left.keySet()).containsExactlyInAnyOrderElementsOf(expected);
      for (String id : handedNotAcked) {
        assertThat(left.get(id)).as("redelivered " + id).isTrue();
      }
    } finally {
      if (layout != null) {
        deleteLanes(connection, layout);
      }
      connection.close();
    }
  }

  @EachBroker
  void pushedLanes_longRunOfMultipleAcksAndNacks_everyMessageAckedOnce(TestBroker broker)
      throws Exception {
    longRun(broker, LaneFetch.PUSH, "quorum");
  }

  @EachBroker
  void pulledLanes_longRunOfMultipleAcksAndNacks_everyMessageAckedOnce(TestBroker broker)
      throws Exception {
    longRun(broker, LaneFetch.PULL, "classic");
  }

  /**
   * 300 messages over 3 lanes, weighted selection, prefetch 3; the handler and a timer thread
   * settle everything handed so far with one multiple ack, every fifth time a multiple nack with
   * requeue instead (the first 40 times). Every message is acknowledged exactly once, the channel
   * stays open, and the lanes end empty.
   */
  private static void longRun(TestBroker broker, LaneFetch fetch, String type) throws Exception {
    String queue = TestBroker.unique("lanes-multi-run-" + fetch.name().toLowerCase());
    Connection connection = broker.newConnection("harbinger-it-" + queue);
    ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
    LaneLayout layout = null;
    try (Channel raw = connection.createChannel()) {
      layout = Lanes.declare(raw, queue, 3, Map.of(QueueType.ARGUMENT, type));
      int messages = 300;
      for (int i = 0; i < messages; i++) {
        raw.basicPublish("", layout.laneName(i % 3), job("m-" + i), new byte[0]);
      }
      Ledger ledger = new Ledger();
      AtomicInteger rounds = new AtomicInteger();
      Channel consumer =
          PredictiveChannels.wrap(
              connection.createChannel(),
              ChannelOptions.builder(broker.factory().getUsername())
                  .lanes(LaneOptions.defaults().withFetch(fetch))
                  .build());
      ledger.channel = consumer;
      consumer.basicQos(3);
      consumer.basicConsume(
          queue,
          false,
          new DefaultConsumer(consumer) {
            @Override
            public void handleDelivery(
                String tag, Envelope envelope, AMQP.BasicProperties props, byte[] body)
                throws IOException {
              ledger.handed(envelope.getDeliveryTag(), props.getMessageId());
              if (ledger.size() >= 2) {
                int round = rounds.incrementAndGet();
                ledger.settleAll(round % 5 == 0 && round <= 200);
              }
            }
          });
      timer.scheduleWithFixedDelay(
          () -> {
            try {
              ledger.settleAll(false);
            } catch (IOException | RuntimeException e) {
              // The channel closed: the assertions below say so.
            }
          },
          20,
          20,
          TimeUnit.MILLISECONDS);
      ProgressWait.on("messages acknowledged", () -> ledger.acked.size()).untilAtLeast(messages);
      timer.shutdownNow();
      assertThat(consumer.isOpen()).as("the consumer's channel is open").isTrue();
      assertThat(ledger.acked).hasSize(messages).allSatisfy((id, n) -> assertThat(n.get()).isOne());
      for (int level = 0; level < 3; level++) {
        assertThat(raw.queueDeclarePassive(layout.laneName(level)).getMessageCount()).isZero();
      }
      consumer.close();
    } finally {
      timer.shutdownNow();
      if (layout != null) {
        deleteLanes(connection, layout);
      }
      connection.close();
    }
  }
}
