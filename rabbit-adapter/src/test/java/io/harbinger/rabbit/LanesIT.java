package io.harbinger.rabbit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.Recoverable;
import io.harbinger.predictor.Mode;
import io.harbinger.predictor.Outcome;
import io.harbinger.predictor.Prediction;
import io.harbinger.predictor.Router;
import io.harbinger.scheduler.Selection;
import io.harbinger.testing.EachBroker;
import io.harbinger.testing.ProgressWait;
import io.harbinger.testing.Quietly;
import io.harbinger.testing.TestBroker;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
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
 * Lanes on both brokers, classic and quorum: the order RabbitMQ actually delivers in through a
 * wrapped lanes consumer, nothing lost, requeues to their own lane, unwrapped publishes, recovery
 * and bad input.
 */
class LanesIT {

  private static final String QUORUM = "quorum";
  private static final String CLASSIC = "classic";

  /** A 3-level router: "short" at level 0, "long" at level 2, anything else at the middle. */
  static Router router() {
    return new Router() {
      @Override
      public Prediction route(String key) {
        int level = key.endsWith("short") ? 0 : key.endsWith("long") ? 2 : 1;
        return new Prediction(level, level, Outcome.PREDICTED, Double.NaN, Mode.PREDICTIVE);
      }

      @Override
      public int levels() {
        return 3;
      }
    };
  }

  private static Map<String, Object> typed(String type) {
    return Map.of(QueueType.ARGUMENT, type);
  }

  private static AMQP.BasicProperties job(String type, String id) {
    return new AMQP.BasicProperties.Builder()
        .messageId(id)
        .deliveryMode(2)
        .headers(Map.of("x-job-type", type))
        .build();
  }

  @EachBroker
  void classicLanes_weighted_shortJobsOvertakeLong_nothingLost(TestBroker broker) throws Exception {
    overtakes(broker, CLASSIC, LaneOptions.defaults().withFetch(LaneFetch.PUSH));
  }

  @EachBroker
  void quorumLanes_weighted_shortJobsOvertakeLong_nothingLost(TestBroker broker) throws Exception {
    overtakes(broker, QUORUM, LaneOptions.defaults().withFetch(LaneFetch.PUSH));
  }

  /** The lanes a user gets without choosing: pulled on classic queues, pushed on quorum queues. */
  @EachBroker
  void defaults_pullClassicLanes_andPushQuorumLanes(TestBroker broker) throws Exception {
    assertThat(LaneOptions.defaults().fetch()).isEqualTo(LaneFetch.BY_QUEUE_TYPE);
    overtakes(broker, CLASSIC, LaneOptions.defaults());
    overtakes(broker, QUORUM, LaneOptions.defaults());
  }

  @EachBroker
  void quorumLanes_strict_shortJobsOvertakeLong_nothingLost(TestBroker broker) throws Exception {
    overtakes(broker, QUORUM, LaneOptions.strict());
  }

  /**
   * 10 long jobs (40 ms) published first, then 10 short ones (1 ms) and 2 raw publishes without the
   * wrapper, all before the consumer starts. FIFO would run every long job before the first short
   * one; through the lanes, every short job runs before all but the few long jobs already held.
   */
  private static void overtakes(TestBroker broker, String type, LaneOptions laneOptions)
      throws Exception {
    ConnectionFactory factory = broker.factory();
    String user = factory.getUsername();
    String queue = TestBroker.unique("lanes-" + type);
    ExecutorService threads = Executors.newFixedThreadPool(2);
    Connection connection = factory.newConnection(threads, "harbinger-it-" + queue);
    try {
      LaneLayout layout;
      try (Channel ch = connection.createChannel()) {
        layout = Lanes.declare(ch, queue, 3, typed(type));
      }
      assertThat(layout.laneNames()).containsExactly(queue + ".lane-0", queue + ".lane-1", queue);
      Channel producer =
          PredictiveChannels.wrap(
              connection.createChannel(), ChannelOptions.builder(user).router(router()).build());
      producer.confirmSelect();
      for (int i = 0; i < 10; i++) {
        producer.basicPublish("", queue, job("long", "long-" + i), new byte[0]);
      }
      for (int i = 0; i < 10; i++) {
        producer.basicPublish("", queue, job("short", "short-" + i), new byte[0]);
      }
      try (Channel raw = connection.createChannel()) {
        raw.confirmSelect();
        for (int i = 0; i < 2; i++) {
          raw.basicPublish("", queue, job("short", "raw-" + i), new byte[0]);
        }
        raw.waitForConfirmsOrDie(10_000);
      }
      producer.waitForConfirmsOrDie(10_000);
      try (Channel check = connection.createChannel()) {
        assertThat(check.queueDeclarePassive(layout.laneName(0)).getMessageCount()).isEqualTo(10);
        assertThat(check.queueDeclarePassive(layout.laneName(1)).getMessageCount()).isZero();
        // The lowest lane is the logical queue: the long jobs and the unwrapped publishes.
        assertThat(check.queueDeclarePassive(queue).getMessageCount()).isEqualTo(12);
      }

      List<DurationReport> reports = new CopyOnWriteArrayList<>();
      ChannelOptions consumerOptions =
          ChannelOptions.builder(user).lanes(laneOptions).reports(reports::add).build();
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
      System.out.printf("%s lanes, %s: delivered %s%n", type, laneOptions.selection(), order);

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
      // FIFO runs all 10 long jobs first. Strict lanes run at most the first held long job before
      // a short one; weights give the lowest lane its twelfth of the worker time, charged at the
      // level's average duration, which starts from the first few (cold, slower) handler runs.
      int allowed = laneOptions.selection() == Selection.STRICT ? 1 : 5;
      assertThat(longsBeforeLastShort)
          .as("long jobs run before the last short one in %s", order)
          .isLessThanOrEqualTo(allowed);
      assertThat(order).filteredOn(id -> id.startsWith("raw")).hasSize(2);
      // Duration reports flow as for any wrapped consumer: one per acknowledged delivery.
      ProgressWait.on("reports", reports::size).untilAtLeast(22);
      assertThat(reports).hasSize(22);
      assertThat(reports)
          .filteredOn(r -> r.jobType().equals("long"))
          .hasSize(10)
          .allSatisfy(r -> assertThat(r.handlerNanos()).isGreaterThanOrEqualTo(40_000_000L))
          .allSatisfy(r -> assertThat(r.publishedLevel()).isEqualTo(2));
      assertThat(reports)
          .filteredOn(r -> r.jobType().equals("short") && r.publishedLevel() == 0)
          .hasSize(10);
      AdapterStats stats = consumerOptions.stats();
      assertThat(stats.laneHandoffs()).isEqualTo(22);
      if (laneOptions.fetch().on(layout.type(), false) == LaneFetch.PUSH) {
        // Held: at most the lane prefetch (2) per lane at once.
        assertThat(stats.laneHeldMax()).isBetween(1L, 6L);
        assertThat(stats.laneHeldMeanMillis()).isGreaterThanOrEqualTo(0.0);
        assertThat(stats.laneGets()).isZero();
      } else {
        assertThat(stats.laneGets()).as("basic.get calls of a pulling consumer").isPositive();
      }
    } finally {
      for (int level = 0; level < 2; level++) {
        Quietly.deleteQueue(connection, queue + ".lane-" + level);
      }
      Quietly.deleteQueue(connection, queue);
      Quietly.close(connection);
      Quietly.shutdown(threads);
    }
  }

  @EachBroker
  void quorumLanes_requeue_returnsToItsOwnLane_heldDeliveriesToTheirs(TestBroker broker)
      throws Exception {
    ConnectionFactory factory = broker.factory();
    String user = factory.getUsername();
    String queue = TestBroker.unique("lanes-requeue");
    Connection connection = factory.newConnection("harbinger-it-" + queue);
    try {
      LaneLayout layout;
      try (Channel ch = connection.createChannel()) {
        layout = Lanes.declare(ch, queue, 3, typed(QUORUM));
      }
      Channel producer =
          PredictiveChannels.wrap(
              connection.createChannel(), ChannelOptions.builder(user).router(router()).build());
      producer.confirmSelect();
      producer.basicPublish("", queue, job("short", "s"), new byte[0]);
      producer.basicPublish("", queue, job("other", "m"), new byte[0]);
      producer.basicPublish("", queue, job("long", "l"), new byte[0]);
      producer.waitForConfirmsOrDie(10_000);

      Channel consumer =
          PredictiveChannels.wrap(
              connection.createChannel(),
              ChannelOptions.builder(user).lanes(LaneOptions.strict()).build());
      consumer.basicQos(1);
      CountDownLatch nacked = new CountDownLatch(1);
      List<String> seen = new CopyOnWriteArrayList<>();
      consumer.basicConsume(
          queue,
          false,
          (tag, d) -> {
            seen.add(d.getProperties().getMessageId());
            if (seen.size() == 1) {
              consumer.basicNack(d.getEnvelope().getDeliveryTag(), false, true);
              nacked.countDown();
            }
          },
          tag -> {});
      assertThat(nacked.await(10, TimeUnit.SECONDS)).isTrue();
      // Strict: the short job (level 0) is the first handed over.
      assertThat(seen.get(0)).isEqualTo("s");
      consumer.close();
      try (Channel check = connection.createChannel()) {
        await()
            .atMost(Duration.ofSeconds(10))
            .untilAsserted(
                () -> {
                  assertThat(check.queueDeclarePassive(layout.laneName(0)).getMessageCount())
                      .isEqualTo(1);
                  assertThat(check.queueDeclarePassive(layout.laneName(1)).getMessageCount())
                      .isEqualTo(1);
                  assertThat(check.queueDeclarePassive(queue).getMessageCount()).isEqualTo(1);
                });
      }
    } finally {
      for (int level = 0; level < 2; level++) {
        Quietly.deleteQueue(connection, queue + ".lane-" + level);
      }
      Quietly.deleteQueue(connection, queue);
      Quietly.close(connection);
    }
  }

  @EachBroker
  void classicLanes_brokerClosesConsumerConnection_recoveryResumes_nothingLost(TestBroker broker)
      throws Exception {
    ConnectionFactory factory = broker.factory();
    String user = factory.getUsername();
    String queue = TestBroker.unique("lanes-recovery");
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
              consumerConnection.createChannel(), ChannelOptions.builder(user).build());
      assertThat(consumer).isInstanceOf(Recoverable.class);
      consumer.basicQos(1);
      Set<String> acked = ConcurrentHashMap.newKeySet();
      AtomicInteger redelivered = new AtomicInteger();
      CountDownLatch closed = new CountDownLatch(1);
      consumer.basicConsume(
          queue,
          false,
          (tag, d) -> {
            String id = d.getProperties().getMessageId();
            if (d.getEnvelope().isRedeliver()) {
              redelivered.incrementAndGet();
            }
            try {
              if (id.equals("short-4") && !d.getEnvelope().isRedeliver()) {
                closed.await(20, TimeUnit.SECONDS);
              }
              Thread.sleep(40);
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
            consumer.basicAck(d.getEnvelope().getDeliveryTag(), false);
            acked.add(id);
          },
          tag -> {});
      Channel producer =
          PredictiveChannels.wrap(
              admin.createChannel(), ChannelOptions.builder(user).router(router()).build());
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
      assertThat(redelivered.get()).isPositive();
      try (Channel check = admin.createChannel()) {
        for (String lane : Lanes.layoutOf(queue).laneNames()) {
          assertThat(check.queueDeclarePassive(lane).getMessageCount()).isZero();
        }
      }
    } finally {
      for (int level = 0; level < 2; level++) {
        Quietly.deleteQueue(admin, queue + ".lane-" + level);
      }
      Quietly.deleteQueue(admin, queue);
      Quietly.close(consumerConnection);
      Quietly.close(admin);
      Quietly.shutdown(threads);
    }
  }

  @EachBroker
  void lanes_mandatoryPublishToMissingLane_returnedWithCallersProperties_ttlDeadLettersPerLane(
      TestBroker broker) throws Exception {
    ConnectionFactory factory = broker.factory();
    String user = factory.getUsername();
    String queue = TestBroker.unique("lanes-returns");
    String dead = TestBroker.unique("lanes-dead");
    Connection connection = factory.newConnection("harbinger-it-" + queue);
    try {
      LaneLayout layout;
      try (Channel ch = connection.createChannel()) {
        ch.queueDeclare(dead, true, false, false, typed(QUORUM));
        Map<String, Object> args = new HashMap<>(typed(QUORUM));
        args.put("x-message-ttl", 200);
        args.put("x-dead-letter-exchange", "");
        args.put("x-dead-letter-routing-key", dead);
        layout = Lanes.declare(ch, queue, 3, args);
        ch.queueDelete(layout.laneName(1));
      }
      Channel producer =
          PredictiveChannels.wrap(
              connection.createChannel(), ChannelOptions.builder(user).router(router()).build());
      producer.confirmSelect();
      List<com.rabbitmq.client.Return> returned = new CopyOnWriteArrayList<>();
      producer.addReturnListener(returned::add);
      AMQP.BasicProperties middle = job("other", "to-missing-lane");
      producer.basicPublish("", queue, true, middle, new byte[] {1});
      producer.basicPublish("", queue, true, job("short", "expires"), new byte[] {2});
      producer.waitForConfirmsOrDie(10_000);
      await().atMost(Duration.ofSeconds(10)).until(() -> returned.size() == 1);
      com.rabbitmq.client.Return r = returned.get(0);
      assertThat(r.getReplyText()).isEqualTo("NO_ROUTE");
      assertThat(r.getRoutingKey()).isEqualTo(layout.laneName(1));
      assertThat(r.getProperties().getMessageId()).isEqualTo("to-missing-lane");
      assertThat(r.getProperties().getHeaders()).isEqualTo(middle.getHeaders());
      // The short job expires in its lane after 200 ms and is dead-lettered as that lane says.
      try (Channel check = connection.createChannel()) {
        await()
            .atMost(Duration.ofSeconds(10))
            .untilAsserted(
                () -> assertThat(check.queueDeclarePassive(dead).getMessageCount()).isEqualTo(1));
        com.rabbitmq.client.GetResponse got = check.basicGet(dead, true);
        assertThat(got.getProps().getMessageId()).isEqualTo("expires");
        assertThat(got.getProps().getHeaders().get("x-first-death-queue").toString())
            .isEqualTo(layout.laneName(0));
      }
    } finally {
      for (int level = 0; level < 2; level++) {
        Quietly.deleteQueue(connection, queue + ".lane-" + level);
      }
      Quietly.deleteQueue(connection, queue);
      Quietly.deleteQueue(connection, dead);
      Quietly.close(connection);
    }
  }

  @EachBroker
  void lanes_badInput_clearErrors(TestBroker broker) throws Exception {
    ConnectionFactory factory = broker.factory();
    String user = factory.getUsername();
    String queue = TestBroker.unique("lanes-bad");
    Connection connection = factory.newConnection("harbinger-it-" + queue);
    List<String> created = new ArrayList<>();
    try {
      // Conflicting arguments: the lanes exist with a TTL of 60 s.
      try (Channel ch = connection.createChannel()) {
        Map<String, Object> args = new HashMap<>(typed(QUORUM));
        args.put("x-message-ttl", 60_000);
        created.addAll(Lanes.declare(ch, queue, 3, args).laneNames());
      }
      Channel ch = connection.createChannel();
      Map<String, Object> other = new HashMap<>(typed(QUORUM));
      other.put("x-message-ttl", 30_000);
      assertThatThrownBy(() -> Lanes.declare(ch, queue, 3, other))
          .isInstanceOf(Lanes.LanesException.class)
          .hasMessageContaining("lane '" + queue + ".lane-0'")
          .hasMessageContaining("argument 'x-message-ttl'");

      // A lane missing: 5 lanes recorded, 3 declared.
      String missing = TestBroker.unique("lanes-missing");
      try (Channel c = connection.createChannel()) {
        created.addAll(Lanes.declare(c, missing, 3).laneNames());
      }
      Lanes.declared(new LaneLayout(missing, 5, Map.of()));
      Channel consumer =
          PredictiveChannels.wrap(connection.createChannel(), ChannelOptions.builder(user).build());
      assertThatThrownBy(() -> consumer.basicConsume(missing, false, (t, d) -> {}, t -> {}))
          .isInstanceOf(Lanes.LanesException.class)
          .hasMessageContaining("'" + missing + ".lane-2' (level 2)")
          .hasMessageContaining("'" + missing + ".lane-3' (level 3)")
          .hasMessageNotContaining(".lane-1'")
          .hasMessageNotContaining("'" + missing + "' (level");
      // The consumer's channel is still open: the check ran on a channel of its own.
      assertThat(consumer.isOpen()).isTrue();

      // Weights for another number of levels.
      Lanes.declared(new LaneLayout(missing, 3, Map.of()));
      Channel weighted =
          PredictiveChannels.wrap(
              connection.createChannel(),
              ChannelOptions.builder(user)
                  .lanes(LaneOptions.defaults().withWeights(List.of(8, 1)))
                  .build());
      assertThatThrownBy(() -> weighted.basicConsume(missing, false, (t, d) -> {}, t -> {}))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("one entry per level (3): [8, 1]");
      weighted.close();
      consumer.close();

      assertThatThrownBy(() -> Lanes.declare(connection.createChannel(), queue, 11, Map.of()))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("levels");
      assertThatThrownBy(
              () ->
                  Lanes.declare(connection.createChannel(), queue, 3, Map.of("x-max-priority", 2)))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("x-max-priority");
    } catch (IOException e) {
      throw e;
    } finally {
      for (String q : created) {
        Quietly.deleteQueue(connection, q);
      }
      Quietly.close(connection);
    }
  }
}
