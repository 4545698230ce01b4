package io.harbinger.rabbit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.DefaultConsumer;
import com.rabbitmq.client.Envelope;
import io.harbinger.scheduler.Selection;
import io.harbinger.testing.EachBroker;
import io.harbinger.testing.ProgressWait;
import io.harbinger.testing.Quietly;
import io.harbinger.testing.TestBroker;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Lanes consumed by pulling ({@link LaneFetch#PULL}) on both brokers: a busy consumer holds
 * nothing, so a free consumer runs the short job a busy one would have held; the order within one
 * consumer; nothing lost on cancel and on a connection the broker closes; bad input.
 */
class PullingLanesIT {

  private static final LaneOptions PULL = LaneOptions.defaults().withFetch(LaneFetch.PULL);

  private static AMQP.BasicProperties job(String type, String id) {
    return new AMQP.BasicProperties.Builder()
        .messageId(id)
        .deliveryMode(2)
        .headers(Map.of("x-job-type", type))
        .build();
  }

  private static void deleteLanes(Connection connection, String queue) {
    for (int level = 0; level < 2; level++) {
      Quietly.deleteQueue(connection, queue + ".lane-" + level);
    }
    Quietly.deleteQueue(connection, queue);
  }

  @EachBroker
  void classicLanes_busyConsumerHoldsNothing_freeConsumerRunsTheShortJob(TestBroker broker)
      throws Exception {
    aFreeConsumerRunsTheShortJob(broker, "classic");
  }

  @EachBroker
  void quorumLanes_busyConsumerHoldsNothing_freeConsumerRunsTheShortJob(TestBroker broker)
      throws Exception {
    aFreeConsumerRunsTheShortJob(broker, "quorum");
  }

  /**
   * Two pulling consumers with prefetch 1. Consumer A runs a long job and stays busy; once it has
   * cancelled its subscriptions (each lane then counts one consumer, B), a short job is published:
   * B, which is free, runs it while A is still busy. A lane consumer that held its next delivery
   * could have been handed it while busy.
   */
  private static void aFreeConsumerRunsTheShortJob(TestBroker broker, String type)
      throws Exception {
    ConnectionFactory factory = broker.factory();
    String user = factory.getUsername();
    String queue = TestBroker.unique("lanes-pull-" + type);
    ExecutorService threads = Executors.newFixedThreadPool(4);
    Connection connection = factory.newConnection(threads, "harbinger-it-" + queue);
    CountDownLatch release = new CountDownLatch(1);
    try {
      LaneLayout layout;
      try (Channel ch = connection.createChannel()) {
        layout = Lanes.declare(ch, queue, 3, Map.of(QueueType.ARGUMENT, type));
      }
      Map<String, String> ranOn = new ConcurrentHashMap<>();
      CountDownLatch longStarted = new CountDownLatch(1);
      CountDownLatch shortDone = new CountDownLatch(1);
      AdapterStats statsA = new AdapterStats();
      for (String name : List.of("A", "B")) {
        Channel consumer =
            PredictiveChannels.wrap(
                connection.createChannel(),
                ChannelOptions.builder(user)
                    .lanes(PULL)
                    .stats(name.equals("A") ? statsA : new AdapterStats())
                    .build());
        consumer.basicQos(1);
        consumer.basicConsume(
            queue,
            false,
            (tag, d) -> {
              String id = d.getProperties().getMessageId();
              ranOn.put(id, name);
              if (id.equals("long")) {
                longStarted.countDown();
                try {
                  release.await(30, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                }
              } else {
                shortDone.countDown();
              }
              consumer.basicAck(d.getEnvelope().getDeliveryTag(), false);
            },
            tag -> {});
        if (name.equals("A")) {
          // A alone is there when the long job comes.
          Channel producer =
              PredictiveChannels.wrap(
                  connection.createChannel(),
                  ChannelOptions.builder(user).router(LanesIT.router()).build());
          producer.confirmSelect();
          producer.basicPublish("", queue, job("long", "long"), new byte[0]);
          producer.waitForConfirmsOrDie(10_000);
          assertThat(longStarted.await(10, TimeUnit.SECONDS)).isTrue();
          producer.close();
        }
      }
      assertThat(ranOn).containsEntry("long", "A");
      try (Channel check = connection.createChannel()) {
        // B waits on every lane; A, busy, has cancelled its subscriptions. A quorum queue still
        // counts a cancelled consumer while its delivery (A's long job) is unsettled, so the lowest
        // lane may count A too.
        await()
            .atMost(Duration.ofSeconds(10))
            .untilAsserted(
                () -> {
                  for (int level = 0; level < 2; level++) {
                    String lane = layout.laneName(level);
                    assertThat(check.queueDeclarePassive(lane).getConsumerCount())
                        .as("consumers of %s", lane)
                        .isEqualTo(1);
                  }
                  assertThat(check.queueDeclarePassive(queue).getConsumerCount()).isBetween(1, 2);
                });
      }
      Channel producer =
          PredictiveChannels.wrap(
              connection.createChannel(),
              ChannelOptions.builder(user).router(LanesIT.router()).build());
      producer.confirmSelect();
      producer.basicPublish("", queue, job("short", "short"), new byte[0]);
      producer.waitForConfirmsOrDie(10_000);
      assertThat(shortDone.await(10, TimeUnit.SECONDS))
          .as("the short job ran while A was busy")
          .isTrue();
      assertThat(ranOn).containsEntry("short", "B");
      // While it waited, A was handed the long job it was subscribed for; busy, it holds nothing.
      assertThat(statsA.laneHeld()).as("deliveries A holds").isZero();
      assertThat(statsA.laneHandoffs()).isEqualTo(1);
    } finally {
      release.countDown();
      deleteLanes(connection, queue);
      Quietly.close(connection);
      Quietly.shutdown(threads);
    }
  }

  @EachBroker
  void quorumLanes_strictPull_everyShortJobBeforeAnyLong_nothingLost(TestBroker broker)
      throws Exception {
    order(broker, "quorum", PULL.withSelection(Selection.STRICT));
  }

  @EachBroker
  void classicLanes_weightedPull_shortJobsOvertakeLong_nothingLost(TestBroker broker)
      throws Exception {
    order(broker, "classic", PULL);
  }

  /**
   * 10 long jobs, 10 short ones and 2 unwrapped publishes, all before one pulling consumer starts.
   * Strict pulls take every short job first, since the consumer holds nothing it did not choose;
   * weights give the lowest lane its twelfth of the worker time.
   */
  private static void order(TestBroker broker, String type, LaneOptions options) throws Exception {
    ConnectionFactory factory = broker.factory();
    String user = factory.getUsername();
    String queue = TestBroker.unique("lanes-pull-order-" + type);
    ExecutorService threads = Executors.newFixedThreadPool(2);
    Connection connection = factory.newConnection(threads, "harbinger-it-" + queue);
    try {
      try (Channel ch = connection.createChannel()) {
        Lanes.declare(ch, queue, 3, Map.of(QueueType.ARGUMENT, type));
      }
      Channel producer =
          PredictiveChannels.wrap(
              connection.createChannel(),
              ChannelOptions.builder(user).router(LanesIT.router()).build());
      producer.confirmSelect();
      for (int i = 0; i < 10; i++) {
        producer.basicPublish("", queue, job("long", "long-" + i), new byte[0]);
      }
      for (int i = 0; i < 10; i++) {
        producer.basicPublish("", queue, job("short", "short-" + i), new byte[0]);
      }
      producer.waitForConfirmsOrDie(10_000);
      try (Channel raw = connection.createChannel()) {
        raw.confirmSelect();
        for (int i = 0; i < 2; i++) {
          raw.basicPublish("", queue, job("short", "raw-" + i), new byte[0]);
        }
        raw.waitForConfirmsOrDie(10_000);
      }
      List<DurationReport> reports = new CopyOnWriteArrayList<>();
      ChannelOptions consumerOptions =
          ChannelOptions.builder(user).lanes(options).reports(reports::add).build();
      Channel consumer = PredictiveChannels.wrap(connection.createChannel(), consumerOptions);
      consumer.basicQos(1);
      List<String> order = new CopyOnWriteArrayList<>();
      Set<String> tags = ConcurrentHashMap.newKeySet();
      String tag =
          consumer.basicConsume(
              queue,
              false,
              (consumerTag, d) -> {
                tags.add(consumerTag);
                String id = d.getProperties().getMessageId();
                try {
                  Thread.sleep(id.startsWith("long") ? 40 : 1);
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                }
                consumer.basicAck(d.getEnvelope().getDeliveryTag(), false);
                order.add(id);
              },
              consumerTag -> {});
      ProgressWait.on("deliveries handled", order::size).untilAtLeast(22);
      consumer.basicCancel(tag);
      System.out.printf("%s lanes, pull, %s: delivered %s%n", type, options.selection(), order);
      assertThat(tags).containsExactly(tag);
      assertThat(order).hasSize(22).doesNotHaveDuplicates();
      int longsBeforeLastShort = 0;
      int longs = 0;
      for (String id : order) {
        if (id.startsWith("long")) {
          longs++;
        } else if (id.startsWith("short")) {
          longsBeforeLastShort = longs;
        }
      }
      // Each lane keeps its order: a consumer never takes a lane's messages out of turn.
      for (String kind : List.of("short", "long")) {
        assertThat(order)
            .filteredOn(id -> id.startsWith(kind))
            .containsExactly(
                java.util.stream.IntStream.range(0, 10)
                    .mapToObj(i -> kind + "-" + i)
                    .toArray(String[]::new));
      }
      int allowed = options.selection() == Selection.STRICT ? 0 : 5;
      assertThat(longsBeforeLastShort)
          .as("long jobs run before the last short one in %s", order)
          .isLessThanOrEqualTo(allowed);
      ProgressWait.on("reports", reports::size).untilAtLeast(22);
      assertThat(reports).hasSize(22);
      assertThat(reports)
          .filteredOn(r -> r.jobType().equals("long"))
          .allSatisfy(r -> assertThat(r.publishedLevel()).isEqualTo(2));
      assertThat(consumerOptions.stats().laneHandoffs()).isEqualTo(22);
    } finally {
      deleteLanes(connection, queue);
      Quietly.close(connection);
      Quietly.shutdown(threads);
    }
  }

  @EachBroker
  void quorumLanes_cancelWhileBusy_hearsCancelOk_nothingLost(TestBroker broker) throws Exception {
    ConnectionFactory factory = broker.factory();
    String user = factory.getUsername();
    String queue = TestBroker.unique("lanes-pull-cancel");
    Connection connection = factory.newConnection("harbinger-it-" + queue);
    try {
      LaneLayout layout;
      try (Channel ch = connection.createChannel()) {
        layout = Lanes.declare(ch, queue, 3, Map.of(QueueType.ARGUMENT, "quorum"));
      }
      Channel producer =
          PredictiveChannels.wrap(
              connection.createChannel(),
              ChannelOptions.builder(user).router(LanesIT.router()).build());
      producer.confirmSelect();
      for (int i = 0; i < 6; i++) {
        String type = i % 3 == 0 ? "long" : i % 3 == 1 ? "short" : "other";
        producer.basicPublish("", queue, job(type, type + "-" + i), new byte[0]);
      }
      producer.waitForConfirmsOrDie(10_000);
      Channel consumer =
          PredictiveChannels.wrap(
              connection.createChannel(), ChannelOptions.builder(user).lanes(PULL).build());
      consumer.basicQos(1);
      CountDownLatch started = new CountDownLatch(1);
      CountDownLatch release = new CountDownLatch(1);
      CountDownLatch cancelOk = new CountDownLatch(1);
      AtomicInteger handled = new AtomicInteger();
      String tag =
          consumer.basicConsume(
              queue,
              false,
              new DefaultConsumer(consumer) {
                @Override
                public void handleDelivery(
                    String consumerTag, Envelope envelope, AMQP.BasicProperties p, byte[] body)
                    throws java.io.IOException {
                  handled.incrementAndGet();
                  started.countDown();
                  try {
                    release.await(10, TimeUnit.SECONDS);
                  } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                  }
                  consumer.basicAck(envelope.getDeliveryTag(), false);
                }

                @Override
                public void handleCancelOk(String consumerTag) {
                  cancelOk.countDown();
                }
              });
      assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
      consumer.basicCancel(tag);
      assertThat(cancelOk.await(10, TimeUnit.SECONDS)).isTrue();
      release.countDown();
      assertThat(handled.get()).isEqualTo(1);
      // The one job ran and was acknowledged; the other five are still in their lanes.
      try (Channel check = connection.createChannel()) {
        await()
            .atMost(Duration.ofSeconds(10))
            .untilAsserted(
                () -> {
                  int ready = 0;
                  for (String lane : layout.laneNames()) {
                    AMQP.Queue.DeclareOk ok = check.queueDeclarePassive(lane);
                    ready += ok.getMessageCount();
                    assertThat(ok.getConsumerCount()).as("consumers of %s", lane).isZero();
                  }
                  assertThat(ready).isEqualTo(5);
                });
      }
      assertThat(consumer.isOpen()).isTrue();
    } finally {
      deleteLanes(connection, queue);
      Quietly.close(connection);
    }
  }

  @EachBroker
  void classicLanes_brokerClosesConsumerConnection_recoveryResumes_nothingLost(TestBroker broker)
      throws Exception {
    ConnectionFactory factory = broker.factory();
    String user = factory.getUsername();
    String queue = TestBroker.unique("lanes-pull-recovery");
    String consumerName = "harbinger-it-consumer-" + queue;
    ExecutorService threads = Executors.newFixedThreadPool(2);
    Connection admin = factory.newConnection("harbinger-it-" + queue);
    Connection consumerConnection = factory.newConnection(threads, consumerName);
    int messages = 30;
    try {
      try (Channel ch = admin.createChannel()) {
        Lanes.declare(ch, queue, 3);
      }
      Channel consumer =
          PredictiveChannels.wrap(
              consumerConnection.createChannel(), ChannelOptions.builder(user).lanes(PULL).build());
      consumer.basicQos(1);
      Set<String> acked = ConcurrentHashMap.newKeySet();
      CountDownLatch closed = new CountDownLatch(1);
      consumer.basicConsume(
          queue,
          false,
          (tag, d) -> {
            String id = d.getProperties().getMessageId();
            try {
              if (id.equals("short-4") && !d.getEnvelope().isRedeliver()) {
                closed.await(20, TimeUnit.SECONDS);
              }
              Thread.sleep(20);
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
            consumer.basicAck(d.getEnvelope().getDeliveryTag(), false);
            acked.add(id);
          },
          tag -> {});
      Channel producer =
          PredictiveChannels.wrap(
              admin.createChannel(), ChannelOptions.builder(user).router(LanesIT.router()).build());
      producer.confirmSelect();
      for (int i = 0; i < messages; i++) {
        String type = i % 3 == 0 ? "long" : i % 3 == 1 ? "short" : "other";
        producer.basicPublish("", queue, job(type, type + "-" + i), new byte[0]);
      }
      producer.waitForConfirmsOrDie(10_000);
      ProgressWait.on("messages acked", acked::size).untilAtLeast(3);
      broker.closeConnectionFromBroker(consumerName);
      closed.countDown();
      ProgressWait.on("messages acked", acked::size).untilAtLeast(messages);
      assertThat(acked).hasSize(messages);
      try (Channel check = admin.createChannel()) {
        for (String lane : Lanes.layoutOf(queue).laneNames()) {
          assertThat(check.queueDeclarePassive(lane).getMessageCount()).isZero();
        }
      }
    } finally {
      deleteLanes(admin, queue);
      Quietly.close(consumerConnection);
      Quietly.close(admin);
      Quietly.shutdown(threads);
    }
  }

  @EachBroker
  void pull_exclusiveConsumer_refusedNamingTheFix(TestBroker broker) throws Exception {
    ConnectionFactory factory = broker.factory();
    String queue = TestBroker.unique("lanes-pull-bad");
    Connection connection = factory.newConnection("harbinger-it-" + queue);
    try {
      try (Channel ch = connection.createChannel()) {
        Lanes.declare(ch, queue, 3);
      }
      Channel consumer =
          PredictiveChannels.wrap(
              connection.createChannel(),
              ChannelOptions.builder(factory.getUsername()).lanes(PULL).build());
      consumer.basicQos(1);
      assertThatThrownBy(
              () ->
                  consumer.basicConsume(
                      queue, false, "", false, true, null, new DefaultConsumer(consumer)))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("exclusive")
          .hasMessageContaining("LaneFetch.PUSH");
      assertThat(consumer.isOpen()).isTrue();
    } finally {
      deleteLanes(connection, queue);
      Quietly.close(connection);
    }
  }
}
