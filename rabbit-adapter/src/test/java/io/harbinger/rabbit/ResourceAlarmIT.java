package io.harbinger.rabbit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import io.harbinger.proto.v1.DurationReport;
import io.harbinger.proto.v1.Outcome;
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
    try (Connection c = node.newConnection("harbinger-it-backlog");
        Channel ch = c.createChannel()) {
      ch.queueDeclare(queue, true, false, false, Map.of());
      ch.confirmSelect();
      for (int i = 0; i < BACKLOG; i++) {
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
    } finally {
      Quietly.close(reports);
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
  }

  private static DurationReport report() {
    return DurationReport.newBuilder()
        .setProducer("guest")
        .setJobType("alarm")
        .setOutcome(Outcome.OUTCOME_ACK)
        .setHandlerNanos(1_000_000)
        .build();
  }
}
