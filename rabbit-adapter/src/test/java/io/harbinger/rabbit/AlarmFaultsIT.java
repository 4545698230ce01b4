package io.harbinger.rabbit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import io.harbinger.predictor.HistogramPredictor;
import io.harbinger.predictor.Keys;
import io.harbinger.predictor.PredictorConfig;
import io.harbinger.proto.v1.ReportBatch;
import io.harbinger.testing.PrivateNode;
import io.harbinger.testing.ProgressWait;
import io.harbinger.testing.Quietly;
import io.harbinger.testing.Rabbitmq4Root;
import io.harbinger.testing.TestBroker;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A memory alarm with lanes (pushed and pulled) on quorum queues and with the embedded router, on a
 * RabbitMQ 3.10 and a RabbitMQ 4.0 node of the test's own: wrapping, starting the report publisher
 * and the embedded router never wait on a blocked connection, consumption goes on through the
 * alarm, and once it clears every report is counted once and arrives.
 */
class AlarmFaultsIT {

  private static final int JOBS = 60;

  private static PrivateNode node3;
  private static PrivateNode node4;

  @BeforeAll
  static void startNodes() throws Exception {
    node3 = PrivateNode.start();
    node4 = PrivateNode.builder().runtime(new Rabbitmq4Root()).start();
  }

  @AfterAll
  static void stopNodes() {
    Quietly.close(node3);
    Quietly.close(node4);
  }

  @AfterEach
  void clearAlarms() throws Exception {
    for (PrivateNode n : new PrivateNode[] {node3, node4}) {
      if (n != null) {
        n.memoryAlarm(false);
      }
    }
  }

  static Stream<Arguments> nodesAndFetches() {
    return Stream.of(
        Arguments.of(Named.of("RabbitMQ 3.10", 3), LaneFetch.PUSH),
        Arguments.of(Named.of("RabbitMQ 3.10", 3), LaneFetch.PULL),
        Arguments.of(Named.of("RabbitMQ 4.0", 4), LaneFetch.PUSH),
        Arguments.of(Named.of("RabbitMQ 4.0", 4), LaneFetch.PULL));
  }

  static Stream<Arguments> nodes() {
    return Stream.of(
        Arguments.of(Named.of("RabbitMQ 3.10", 3)), Arguments.of(Named.of("RabbitMQ 4.0", 4)));
  }

  private static PrivateNode node(int major) {
    return major == 3 ? node3 : node4;
  }

  private static AMQP.BasicProperties job(String type, String id) {
    return new AMQP.BasicProperties.Builder()
        .messageId(id)
        .deliveryMode(2)
        .headers(Map.of("x-job-type", type))
        .build();
  }

  /** Consumes every batch published to an exchange; returns the count of reports received. */
  private static AtomicLong listen(Connection listener, String exchange) throws Exception {
    AtomicLong received = new AtomicLong();
    Channel listen = listener.createChannel();
    listen.exchangeDeclare(exchange, "fanout", true);
    String q = listen.queueDeclare("", false, true, true, null).getQueue();
    listen.queueBind(q, exchange, "");
    listen.basicConsume(
        q,
        true,
        (tag, d) -> received.addAndGet(ReportBatch.parseFrom(d.getBody()).getReportsCount()),
        tag -> {});
    return received;
  }

  @ParameterizedTest(name = "{0}, lanes {1}")
  @MethodSource("nodesAndFetches")
  void quorumLanes_wrappedAndConsumedDuringAnAlarm_everyJobRuns_andEveryReportCountsOnce(
      int major, LaneFetch fetch) throws Exception {
    PrivateNode node = node(major);
    ConnectionFactory factory = node.factory();
    String user = factory.getUsername();
    String queue = TestBroker.unique("alarm-lanes-" + fetch.name().toLowerCase());
    String exchange = TestBroker.unique("reports");
    ExecutorService threads = Executors.newFixedThreadPool(2);
    Connection app = factory.newConnection(threads, "harbinger-it-app");
    AtomicInteger blockedNotices = new AtomicInteger();
    app.addBlockedListener(reason -> blockedNotices.incrementAndGet(), () -> {});
    Connection listener = node.newConnection("harbinger-it-listener");
    AtomicLong received = listen(listener, exchange);
    ReportPublisher reports = null;
    try {
      try (Channel ch = listener.createChannel()) {
        Lanes.declare(ch, queue, 3, Map.of(QueueType.ARGUMENT, "quorum"));
      }
      Channel producer =
          PredictiveChannels.wrap(
              app.createChannel(),
              ChannelOptions.builder(user).router(LanesIT.router()).build(),
              factory);
      producer.confirmSelect();
      for (int i = 0; i < JOBS; i++) {
        String type = i % 3 == 0 ? "long" : i % 3 == 1 ? "short" : "other";
        producer.basicPublish("", queue, job(type, type + "-" + i), new byte[0]);
      }
      producer.waitForConfirmsOrDie(10_000);
      producer.close();

      node.memoryAlarm(true);
      ReportPublisher started =
          assertTimeoutPreemptively(
              Duration.ofSeconds(10),
              () ->
                  ReportPublisher.builder(factory)
                      .exchange(exchange)
                      .flushInterval(Duration.ofMillis(20))
                      .start());
      reports = started;
      Channel consumer =
          assertTimeoutPreemptively(
              Duration.ofSeconds(10),
              () ->
                  PredictiveChannels.wrap(
                      app.createChannel(),
                      ChannelOptions.builder(user)
                          .lanes(LaneOptions.defaults().withFetch(fetch))
                          .reports(started)
                          .build(),
                      factory));
      consumer.basicQos(1);
      Set<String> ran = ConcurrentHashMap.newKeySet();
      consumer.basicConsume(
          queue,
          false,
          (tag, d) -> {
            ran.add(d.getProperties().getMessageId());
            consumer.basicAck(d.getEnvelope().getDeliveryTag(), false);
          },
          tag -> {});

      ProgressWait.on("jobs run during the alarm", ran::size).untilAtLeast(JOBS);
      assertThat(ran).hasSize(JOBS);
      assertThat(blockedNotices.get()).as("connection.blocked on the application's").isZero();

      node.memoryAlarm(false);
      ProgressWait.on("reports sent", started::sent).untilAtLeast(JOBS);
      ProgressWait.on("reports received", received::get).untilAtLeast(JOBS);
      assertThat(started.sent()).isEqualTo(JOBS);
      assertThat(received.get()).isEqualTo(JOBS);
      assertThat(started.dropped()).isZero();
      assertThat(started.unroutable()).isZero();
    } finally {
      node.memoryAlarm(false);
      Quietly.close(reports);
      Quietly.close(app);
      Quietly.shutdown(threads);
      Quietly.deleteExchange(listener, exchange);
      Quietly.close(listener);
      List<String> lanes = Lanes.layout(queue, 3, Map.of()).laneNames();
      Quietly.delete(node.broker(), lanes, List.of());
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("nodes")
  void blockedReportConnectionClosedByTheBroker_reportsFlowAgain_andEachCountsOnce(int major)
      throws Exception {
    PrivateNode node = node(major);
    String exchange = TestBroker.unique("reports");
    Connection listener = node.newConnection("harbinger-it-listener");
    AtomicLong received = listen(listener, exchange);
    ReportPublisher reports =
        ReportPublisher.builder(node.factory())
            .exchange(exchange)
            .reporterId("alarm-close-" + major)
            .flushInterval(Duration.ofMillis(20))
            .start();
    try {
      node.memoryAlarm(true);
      for (int i = 0; i < 5; i++) {
        reports.accept(report());
      }
      ProgressWait.on("blocked", () -> reports.blocked() ? 1 : 0).untilAtLeast(1);

      node.broker().closeConnectionFromBroker("harbinger-reports alarm-close-" + major);
      ProgressWait.on("unblocked", () -> reports.blocked() ? 0 : 1).untilAtLeast(1);
      node.memoryAlarm(false);
      for (int i = 0; i < 10; i++) {
        reports.accept(report());
      }

      ProgressWait.on("reports counted", () -> reports.sent() + reports.dropped()).untilAtLeast(15);
      ProgressWait.on("reports received", received::get).untilAtLeast(reports.sent());
      System.out.printf(
          "%s, report connection closed while blocked: sent %d, received %d, dropped %d%n",
          node, reports.sent(), received.get(), reports.dropped());
      assertThat(reports.sent() + reports.dropped()).isEqualTo(15);
      assertThat(reports.sent()).isGreaterThanOrEqualTo(10);
      assertThat(received.get()).isEqualTo(reports.sent());
    } finally {
      node.memoryAlarm(false);
      Quietly.close(reports);
      Quietly.deleteExchange(listener, exchange);
      Quietly.close(listener);
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("nodes")
  void reportBufferOverflowingAndCloseDuringAnAlarm_areBounded_andEveryReportIsCountedOnce(
      int major) throws Exception {
    PrivateNode node = node(major);
    ReportPublisher reports =
        ReportPublisher.builder(node.factory())
            .exchange(TestBroker.unique("reports"))
            .capacity(100)
            .flushInterval(Duration.ofMillis(20))
            .closeTimeout(Duration.ofSeconds(1))
            .start();
    node.memoryAlarm(true);
    for (int i = 0; i < 10; i++) {
      reports.accept(report());
    }
    ProgressWait.on("blocked", () -> reports.blocked() ? 1 : 0).untilAtLeast(1);
    long start = System.nanoTime();
    for (int i = 0; i < 1_000; i++) {
      reports.accept(report());
    }
    Duration accepting = Duration.ofNanos(System.nanoTime() - start);
    long droppedBeforeClose = reports.dropped();

    start = System.nanoTime();
    reports.close();
    Duration closing = Duration.ofNanos(System.nanoTime() - start);

    System.out.printf(
        "%s, alarm: 1,000 reports accepted in %d us into a full buffer; close() took %d ms;"
            + " sent %d, dropped %d%n",
        node, accepting.toNanos() / 1_000, closing.toMillis(), reports.sent(), reports.dropped());
    assertThat(droppedBeforeClose).isGreaterThanOrEqualTo(1_010 - 100 - 10);
    assertThat(closing).isLessThan(Duration.ofSeconds(3));
    assertThat(reports.sent() + reports.dropped()).isEqualTo(1_010);
  }

  @ParameterizedTest(name = "{0}, lanes {1}")
  @MethodSource("nodesAndFetches")
  void quorumLanesConsumerConnectionClosedByTheBroker_recovers_everyJobRunsAndReportsCountOnce(
      int major, LaneFetch fetch) throws Exception {
    PrivateNode node = node(major);
    ConnectionFactory factory = node.factory();
    String user = factory.getUsername();
    String queue = TestBroker.unique("closed-lanes-" + fetch.name().toLowerCase());
    String exchange = TestBroker.unique("reports");
    String connectionName = "harbinger-it-lanes-consumer-" + major + "-" + fetch;
    ExecutorService threads = Executors.newFixedThreadPool(2);
    Connection app = factory.newConnection(threads, connectionName);
    Connection listener = node.newConnection("harbinger-it-listener");
    AtomicLong received = listen(listener, exchange);
    ReportPublisher reports =
        ReportPublisher.builder(factory)
            .exchange(exchange)
            .flushInterval(Duration.ofMillis(20))
            .start();
    try {
      try (Channel ch = listener.createChannel()) {
        Lanes.declare(ch, queue, 3, Map.of(QueueType.ARGUMENT, "quorum"));
      }
      Channel producer =
          PredictiveChannels.wrap(
              app.createChannel(), ChannelOptions.builder(user).router(LanesIT.router()).build());
      producer.confirmSelect();
      for (int i = 0; i < JOBS; i++) {
        String type = i % 3 == 0 ? "long" : i % 3 == 1 ? "short" : "other";
        producer.basicPublish("", queue, job(type, type + "-" + i), new byte[0]);
      }
      producer.waitForConfirmsOrDie(10_000);
      producer.close();

      AdapterStats stats = new AdapterStats();
      Channel consumer =
          PredictiveChannels.wrap(
              app.createChannel(),
              ChannelOptions.builder(user)
                  .lanes(LaneOptions.defaults().withFetch(fetch))
                  .reports(reports)
                  .stats(stats)
                  .build());
      consumer.basicQos(1);
      Set<String> ran = ConcurrentHashMap.newKeySet();
      AtomicInteger acked = new AtomicInteger();
      AtomicInteger held = new AtomicInteger();
      CountDownLatch closed = new CountDownLatch(1);
      consumer.basicConsume(
          queue,
          false,
          (tag, d) -> {
            // The job a third of the way through is still running when the broker closes the
            // connection: its ack goes nowhere and it is delivered again after recovery.
            if (ran.size() >= JOBS / 3 && held.getAndIncrement() == 0) {
              try {
                closed.await(30, java.util.concurrent.TimeUnit.SECONDS);
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            }
            ran.add(d.getProperties().getMessageId());
            consumer.basicAck(d.getEnvelope().getDeliveryTag(), false);
            acked.incrementAndGet();
          },
          tag -> {});
      ProgressWait.on("a job held", held::get).untilAtLeast(1);
      node.broker().closeConnectionFromBroker(connectionName);
      closed.countDown();

      ProgressWait.on("jobs run", ran::size).untilAtLeast(JOBS);
      ProgressWait.on("reports counted", () -> reports.sent() + reports.dropped())
          .untilAtLeast(stats.reports());
      ProgressWait.on("reports received", received::get).untilAtLeast(reports.sent());
      System.out.printf(
          "%s, lanes %s consumer connection closed by the broker: %d jobs run, %d acks, %d"
              + " reports (%d censored), sent %d, received %d, dropped %d%n",
          node,
          fetch,
          ran.size(),
          acked.get(),
          stats.reports(),
          stats.censored(),
          reports.sent(),
          received.get(),
          reports.dropped());
      assertThat(ran).hasSize(JOBS);
      assertThat(stats.censored()).as("the held job's redelivery").isGreaterThanOrEqualTo(1);
      try (Channel check = listener.createChannel()) {
        for (String lane : Lanes.layout(queue, 3, Map.of()).laneNames()) {
          assertThat(check.queueDeclarePassive(lane).getMessageCount()).as(lane).isZero();
        }
      }
      assertThat(reports.sent() + reports.dropped()).isEqualTo(stats.reports());
      assertThat(reports.dropped()).isZero();
      assertThat(received.get()).isEqualTo(reports.sent());
    } finally {
      Quietly.close(reports);
      Quietly.close(app);
      Quietly.shutdown(threads);
      Quietly.deleteExchange(listener, exchange);
      Quietly.close(listener);
      Quietly.delete(node.broker(), Lanes.layout(queue, 3, Map.of()).laneNames(), List.of());
    }
  }

  private static DurationReport report() {
    return TestReports.ack("guest", "alarm", 1_000_000);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("nodes")
  void embeddedRouterAndPublisher_startedDuringAnAlarm_startPromptly_andLearnOnceItClears(int major)
      throws Exception {
    PrivateNode node = node(major);
    ConnectionFactory factory = node.factory();
    String exchange = TestBroker.unique("reports");
    HistogramPredictor predictor = new HistogramPredictor(PredictorConfig.defaults());
    EmbeddedRouter router = null;
    ReportPublisher reports = null;
    node.memoryAlarm(true);
    try {
      long start = System.nanoTime();
      EmbeddedRouter startedRouter =
          assertTimeoutPreemptively(
              Duration.ofSeconds(10),
              () -> EmbeddedRouter.builder(factory, predictor).exchange(exchange).start());
      router = startedRouter;
      ReportPublisher startedReports =
          assertTimeoutPreemptively(
              Duration.ofSeconds(10),
              () ->
                  ReportPublisher.builder(factory)
                      .exchange(exchange)
                      .flushInterval(Duration.ofMillis(20))
                      .start());
      reports = startedReports;
      System.out.printf(
          "%s, alarm: embedded router and report publisher started in %d ms%n",
          node, (System.nanoTime() - start) / 1_000_000);
      for (int i = 0; i < 40; i++) {
        startedReports.accept(
            new DurationReport(
                factory.getUsername(), "alarm", -1, Settlement.ACK, 2_000_000, 0, -1, false, 0, 0));
      }
      assertThat(startedRouter.consuming()).isTrue();

      node.memoryAlarm(false);
      ProgressWait.on("reports learned", () -> startedRouter.ingestStats().learned())
          .untilAtLeast(40);
      assertThat(startedRouter.ingestStats().learned()).isEqualTo(40);
      assertThat(startedReports.sent()).isEqualTo(40);
      assertThat(predictor.keyStats(Keys.of(factory.getUsername(), "alarm"))).isPresent();
    } finally {
      node.memoryAlarm(false);
      Quietly.close(reports);
      Quietly.close(router);
      try (Connection c = node.newConnection("harbinger-it-cleanup")) {
        Quietly.deleteExchange(c, exchange);
      }
    }
  }
}
