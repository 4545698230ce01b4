package io.harbinger.rabbit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import io.harbinger.proto.v1.ReportBatch;
import io.harbinger.testing.PrivateNode;
import io.harbinger.testing.ProgressWait;
import io.harbinger.testing.Quietly;
import io.harbinger.testing.TestBroker;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A memory alarm on a RabbitMQ node of the test's own: RabbitMQ blocks every connection that
 * publishes, and a blocked connection is no longer read. Wrapped consumers must keep consuming, and
 * the report publisher must recover and close in bounded time.
 */
class ResourceAlarmIT {

  private static final int BACKLOG = 200;

  private static PrivateNode node;

  @BeforeAll
  static void startNode() throws Exception {
    node = PrivateNode.start();
  }

  @AfterAll
  static void stopNode() {
    Quietly.close(node);
  }

  @AfterEach
  void clearAlarm() throws Exception {
    node.memoryAlarm(false);
  }

  private static void publishBacklog(String queue) throws Exception {
    publishBacklog(queue, BACKLOG);
  }

  private static void publishBacklog(String queue, int messages) throws Exception {
    try (Connection c = node.newConnection("harbinger-it-backlog");
        Channel ch = c.createChannel()) {
      ch.queueDeclare(queue, true, false, false, Map.of());
      ch.confirmSelect();
      for (int i = 0; i < messages; i++) {
        ch.basicPublish(
            "",
            queue,
            new AMQP.BasicProperties.Builder()
                .userId("guest")
                .headers(Map.of("x-job-type", "alarm"))
                .build(),
            new byte[16]);
      }
      ch.waitForConfirmsOrDie(10_000);
    }
  }

  /**
   * Consumes the queue with a wrapped channel, prefetch 1 and a 2 ms handler that waits for the
   * gate first; returns the count of deliveries handled.
   */
  private static AtomicInteger consume(
      Connection consumer, ReportSink reports, String queue, CountDownLatch gate) throws Exception {
    AtomicInteger handled = new AtomicInteger();
    Channel ch =
        PredictiveChannels.wrap(
            consumer.createChannel(), ChannelOptions.builder("guest").reports(reports).build());
    ch.basicQos(1);
    ch.basicConsume(
        queue,
        false,
        (tag, d) -> {
          try {
            gate.await();
            Thread.sleep(2);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
          ch.basicAck(d.getEnvelope().getDeliveryTag(), false);
          handled.incrementAndGet();
        },
        tag -> {});
    return handled;
  }

  @Test
  void alarm_reportsOnTheirOwnConnection_wrappedConsumerKeepsConsuming() throws Exception {
    String queue = TestBroker.unique("alarm-own");
    publishBacklog(queue);
    ConnectionFactory factory = node.factory();
    factory.setChannelRpcTimeout(30_000);
    ExecutorService threads = Executors.newFixedThreadPool(2);
    Connection consumer = factory.newConnection(threads, "harbinger-it-consumer");
    Connection listener = node.newConnection("harbinger-it-listener");
    AtomicLong received = listen(listener, HarbingerHeaders.REPORTS_EXCHANGE);
    ReportPublisher reports =
        ReportPublisher.builder(factory).flushInterval(Duration.ofMillis(20)).start();
    try {
      CountDownLatch gate = new CountDownLatch(1);
      AtomicInteger handled = consume(consumer, reports, queue, gate);
      node.memoryAlarm(true);
      gate.countDown();

      ProgressWait.on("messages handled", handled::get).untilAtLeast(BACKLOG);
      assertThat(handled.get()).isEqualTo(BACKLOG);
      await().atMost(Duration.ofSeconds(10)).until(reports::blocked);
      System.out.printf(
          "alarm, reports on their own connection: %d of %d handled; reports sent %d, buffered"
              + " %d, dropped %d%n",
          handled.get(), BACKLOG, reports.sent(), reports.buffered(), reports.dropped());

      node.memoryAlarm(false);
      ProgressWait.on("reports sent or dropped", () -> reports.sent() + reports.dropped())
          .until(
              "every report sent or dropped, and some sent",
              () -> reports.sent() + reports.dropped() == BACKLOG && reports.sent() > 0);
      ProgressWait.on("reports received", received::get).untilAtLeast(reports.sent());
      assertThat(received.get()).isEqualTo(reports.sent());
    } finally {
      Quietly.close(reports);
      Quietly.close(listener);
      Quietly.close(consumer);
      Quietly.shutdown(threads);
      Quietly.delete(node.broker(), java.util.List.of(queue), java.util.List.of());
    }
  }

  @Test
  @SuppressWarnings("deprecation")
  void alarm_reportsOnTheConsumersOwnConnection_consumerStalls() throws Exception {
    // What the deprecated ReportPublisher.start(connection) does to a consumer, measured.
    String queue = TestBroker.unique("alarm-shared");
    publishBacklog(queue);
    ExecutorService threads = Executors.newFixedThreadPool(2);
    ConnectionFactory factory = node.factory();
    factory.setChannelRpcTimeout(30_000);
    Connection consumer = factory.newConnection(threads, "harbinger-it-consumer-shared");
    ReportPublisher reports = null;
    try {
      reports =
          ReportPublisher.builder(consumer)
              .userId("guest")
              .flushInterval(Duration.ofMillis(20))
              .start();
      CountDownLatch gate = new CountDownLatch(1);
      AtomicInteger handled = consume(consumer, reports, queue, gate);
      node.memoryAlarm(true);
      gate.countDown();

      await()
          .during(Duration.ofSeconds(10))
          .atMost(Duration.ofSeconds(11))
          .until(() -> handled.get() < BACKLOG / 2);
      int duringAlarm = handled.get();
      System.out.printf(
          "alarm, reports on the consumer's connection: %d of %d handled in 10 s%n",
          duringAlarm, BACKLOG);
      assertThat(duringAlarm).isLessThan(BACKLOG / 2);

      node.memoryAlarm(false);
      ProgressWait.on("messages handled", handled::get).untilAtLeast(BACKLOG);
      assertThat(handled.get()).isEqualTo(BACKLOG);
    } finally {
      node.memoryAlarm(false);
      Quietly.close(reports);
      Quietly.close(consumer);
      Quietly.shutdown(threads);
      Quietly.delete(node.broker(), java.util.List.of(queue), java.util.List.of());
    }
  }

  @Test
  void blockedReportConnectionClosedByTheBroker_publisherSendsAgainOnceTheAlarmClears()
      throws Exception {
    String exchange = TestBroker.unique("reports");
    Connection listener = node.newConnection("harbinger-it-listener");
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
    ReportPublisher reports =
        ReportPublisher.builder(node.factory())
            .exchange(exchange)
            .reporterId("alarm-close")
            .flushInterval(Duration.ofMillis(20))
            .confirmTimeout(Duration.ofSeconds(1))
            .start();
    try {
      node.memoryAlarm(true);
      reports.accept(report());
      await().atMost(Duration.ofSeconds(10)).until(reports::blocked);

      node.broker().closeConnectionFromBroker("harbinger-reports alarm-close");
      await().atMost(Duration.ofSeconds(10)).until(() -> !reports.blocked());
      node.memoryAlarm(false);
      for (int i = 0; i < 10; i++) {
        reports.accept(report());
      }

      ProgressWait.on("reports received", received::get).untilAtLeast(10);
      assertThat(reports.sent()).isEqualTo(received.get());
    } finally {
      Quietly.close(reports);
      Quietly.deleteExchange(listener, exchange);
      Quietly.close(listener);
    }
  }

  @Test
  void close_duringAnAlarm_returnsWithinItsTimeout() throws Exception {
    ReportPublisher reports =
        ReportPublisher.builder(node.factory())
            .flushInterval(Duration.ofMillis(20))
            .closeTimeout(Duration.ofSeconds(1))
            .start();
    node.memoryAlarm(true);
    for (int i = 0; i < 100; i++) {
      reports.accept(report());
    }
    await().atMost(Duration.ofSeconds(10)).until(reports::blocked);

    long start = System.nanoTime();
    reports.close();
    Duration took = Duration.ofNanos(System.nanoTime() - start);

    System.out.printf("close() during an alarm took %d ms%n", took.toMillis());
    assertThat(took).isLessThan(Duration.ofSeconds(5));
    assertThat(reports.sent() + reports.dropped()).isEqualTo(100);
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

  @Test
  void wrap_duringAnAlarm_returnsPromptly_andARawConsumerOnTheSameConnectionKeepsConsuming()
      throws Exception {
    int messages = 2_000;
    String queue = TestBroker.unique("alarm-wrap");
    publishBacklog(queue, messages);
    ConnectionFactory factory = node.factory();
    ExecutorService threads = Executors.newFixedThreadPool(2);
    Connection app = factory.newConnection(threads, "harbinger-it-app");
    AtomicInteger blockedNotices = new AtomicInteger();
    app.addBlockedListener(reason -> blockedNotices.incrementAndGet(), () -> {});
    AtomicInteger handled = new AtomicInteger();
    try {
      Channel raw = app.createChannel();
      raw.basicQos(10);
      raw.basicConsume(
          queue,
          false,
          (tag, d) -> {
            try {
              Thread.sleep(1);
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
            raw.basicAck(d.getEnvelope().getDeliveryTag(), false);
            handled.incrementAndGet();
          },
          tag -> {});
      ProgressWait.on("messages handled", handled::get).untilAtLeast(50);
      node.memoryAlarm(true);

      // Wrapping, with the identity check (on a connection of its own) and without.
      long start = System.nanoTime();
      Channel checked =
          assertTimeoutPreemptively(
              Duration.ofSeconds(10),
              () ->
                  PredictiveChannels.wrap(
                      app.createChannel(), ChannelOptions.builder("guest").build(), factory));
      Channel unchecked =
          assertTimeoutPreemptively(
              Duration.ofSeconds(10),
              () ->
                  PredictiveChannels.wrap(
                      app.createChannel(), ChannelOptions.builder("guest").build()));
      Duration took = Duration.ofNanos(System.nanoTime() - start);
      int atWrap = handled.get();

      ProgressWait.on("messages handled", handled::get).untilAtLeast(messages);
      System.out.printf(
          "alarm, wrap: both wraps took %d ms; %d of %d handled when they returned, all %d"
              + " handled during the alarm%n",
          took.toMillis(), atWrap, messages, handled.get());
      assertThat(handled.get()).isEqualTo(messages);
      assertThat(took).isLessThan(Duration.ofSeconds(10));
      assertThat(checked.isOpen()).isTrue();
      assertThat(unchecked.isOpen()).isTrue();
      assertThat(blockedNotices.get()).as("connection.blocked on the application's").isZero();
    } finally {
      node.memoryAlarm(false);
      Quietly.close(app);
      Quietly.shutdown(threads);
      Quietly.delete(node.broker(), java.util.List.of(queue), java.util.List.of());
    }
  }

  @Test
  void reportPublisherStart_duringAnAlarm_returnsWithinABound_andReportsFlowOnceItClears()
      throws Exception {
    String exchange = TestBroker.unique("reports");
    Connection listener = node.newConnection("harbinger-it-listener");
    AtomicLong received = listen(listener, exchange);
    node.memoryAlarm(true);
    ReportPublisher reports = null;
    try {
      long start = System.nanoTime();
      reports =
          ReportPublisher.builder(node.factory())
              .exchange(exchange)
              .flushInterval(Duration.ofMillis(20))
              .confirmTimeout(Duration.ofSeconds(30))
              .start();
      Duration took = Duration.ofNanos(System.nanoTime() - start);
      System.out.printf("ReportPublisher.start during an alarm took %d ms%n", took.toMillis());
      assertThat(took).isLessThan(Duration.ofSeconds(5));
      assertThat(reports.blocked()).isTrue();

      for (int i = 0; i < 10; i++) {
        reports.accept(report());
      }
      assertThat(reports.buffered()).isEqualTo(10);
      node.memoryAlarm(false);

      ReportPublisher r = reports;
      ProgressWait.on("reports received", received::get).untilAtLeast(10);
      ProgressWait.on("reports sent", r::sent).untilAtLeast(10);
      assertThat(received.get()).isEqualTo(10);
      assertThat(reports.sent()).isEqualTo(10);
      assertThat(reports.dropped()).isZero();
    } finally {
      node.memoryAlarm(false);
      Quietly.close(reports);
      Quietly.deleteExchange(listener, exchange);
      Quietly.close(listener);
    }
  }

  @Test
  void reportBufferOverflowsDuringAnAlarm_overflowIsCounted_handlersAndAcksNeverWait()
      throws Exception {
    String queue = TestBroker.unique("alarm-overflow");
    publishBacklog(queue);
    String exchange = TestBroker.unique("reports");
    Connection listener = node.newConnection("harbinger-it-listener");
    AtomicLong received = listen(listener, exchange);
    ConnectionFactory factory = node.factory();
    ExecutorService threads = Executors.newFixedThreadPool(2);
    Connection consumer = factory.newConnection(threads, "harbinger-it-consumer");
    ReportPublisher reports =
        ReportPublisher.builder(factory)
            .exchange(exchange)
            .capacity(50)
            .batchSize(10)
            .flushInterval(Duration.ofMillis(20))
            .confirmTimeout(Duration.ofMillis(200))
            .start();
    try {
      CountDownLatch gate = new CountDownLatch(1);
      AtomicInteger handled = consume(consumer, reports, queue, gate);
      node.memoryAlarm(true);
      gate.countDown();

      ProgressWait.on("messages handled", handled::get).untilAtLeast(BACKLOG);
      assertThat(handled.get()).isEqualTo(BACKLOG);
      assertThat(reports.dropped()).isGreaterThanOrEqualTo(BACKLOG - 50 - 10);

      node.memoryAlarm(false);
      ProgressWait.on("reports counted", () -> reports.sent() + reports.dropped())
          .untilAtLeast(BACKLOG);
      ProgressWait.on("reports received", received::get).untilAtLeast(reports.sent());
      System.out.printf(
          "alarm, buffer of 50: %d handled; reports sent %d, received %d, dropped %d%n",
          handled.get(), reports.sent(), received.get(), reports.dropped());
      assertThat(reports.sent() + reports.dropped()).isEqualTo(BACKLOG);
      assertThat(received.get())
          .as("reports received = reports counted sent")
          .isEqualTo(reports.sent());
    } finally {
      node.memoryAlarm(false);
      Quietly.close(reports);
      Quietly.close(consumer);
      Quietly.shutdown(threads);
      Quietly.deleteExchange(listener, exchange);
      Quietly.close(listener);
      Quietly.delete(node.broker(), java.util.List.of(queue), java.util.List.of());
    }
  }

  private static DurationReport report() {
    return TestReports.ack("guest", "alarm", 1_000_000);
  }
}
