package io.harbinger.spring;

import static org.assertj.core.api.Assertions.assertThat;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import io.harbinger.rabbit.PriorityQueues;
import io.harbinger.testing.PrivateNode;
import io.harbinger.testing.ProgressWait;
import io.harbinger.testing.Quietly;
import io.harbinger.testing.Rabbitmq4Root;
import io.harbinger.testing.TestBroker;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.amqp.core.Message;
import org.springframework.amqp.core.Queue;
import org.springframework.amqp.rabbit.annotation.RabbitListener;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

/**
 * A Boot application with the starter, started while a memory alarm blocks every publishing
 * connection, on a RabbitMQ 3.10 and a RabbitMQ 4.0 node of the test's own: the context starts, its
 * listeners consume the backlog during the alarm, and once the alarm clears every report arrives,
 * counted once, and the embedded router learns.
 */
class SpringAlarmIT {

  private static final int BACKLOG = 100;

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

  static Stream<Arguments> nodes() {
    return Stream.of(
        Arguments.of(Named.of("RabbitMQ 3.10", 3)), Arguments.of(Named.of("RabbitMQ 4.0", 4)));
  }

  /** Counts what its listener handled. */
  static final class Handled {
    final AtomicInteger count = new AtomicInteger();

    @RabbitListener(queues = "${test.queue}")
    void handle(Message m) throws InterruptedException {
      Thread.sleep(2);
      count.incrementAndGet();
    }
  }

  @SpringBootConfiguration
  @EnableAutoConfiguration
  static class AlarmApp {
    @Bean
    Queue jobs(HarbingerQueues queues, @Value("${test.queue}") String name) {
      return queues.queue(name);
    }

    @Bean
    Handled handled() {
      return new Handled();
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("nodes")
  void startedDuringAnAlarm_listenersConsume_andEveryReportArrivesOnceItClears(int major)
      throws Exception {
    PrivateNode node = major == 3 ? node3 : node4;
    TestBroker broker = node.broker();
    String queue = TestBroker.unique("spring-alarm");
    String exchange = TestBroker.unique("reports");
    try (Connection c = broker.newConnection("harbinger-it-backlog");
        Channel ch = c.createChannel()) {
      ch.queueDeclare(
          queue, true, false, false, PriorityQueues.arguments(queue, 3, Map.of(), null));
      ch.confirmSelect();
      for (int i = 0; i < BACKLOG; i++) {
        ch.basicPublish(
            "",
            queue,
            new AMQP.BasicProperties.Builder()
                .userId("guest")
                .headers(Map.of("x-job-type", "spring-alarm"))
                .build(),
            new byte[8]);
      }
      ch.waitForConfirmsOrDie(10_000);
    }
    BootApps.Reports reports = new BootApps.Reports(broker, exchange);
    ConfigurableApplicationContext context = null;
    node.memoryAlarm(true);
    try {
      long start = System.nanoTime();
      context =
          BootApps.start(
              broker,
              AlarmApp.class,
              "test.queue=" + queue,
              "harbinger.reports-exchange=" + exchange,
              "spring.rabbitmq.listener.simple.prefetch=1");
      Duration took = Duration.ofNanos(System.nanoTime() - start);
      Handled handled = context.getBean(Handled.class);

      ProgressWait.on("messages handled during the alarm", () -> handled.count.get())
          .untilAtLeast(BACKLOG);
      HarbingerRuntime runtime = context.getBean(HarbingerRuntime.class);
      System.out.printf(
          "%s, alarm: the Boot application started in %d ms and handled %d; reports buffered %d%n",
          node, took.toMillis(), handled.count.get(), runtime.reportPublisher().buffered());
      assertThat(handled.count.get()).isEqualTo(BACKLOG);
      assertThat(took).isLessThan(Duration.ofSeconds(30));
      assertThat(runtime.reportPublisher().blocked()).isTrue();

      node.memoryAlarm(false);
      MeterRegistry meters = context.getBean(MeterRegistry.class);
      ProgressWait.on("reports received", () -> reports.ofJobType("spring-alarm").size())
          .untilAtLeast(BACKLOG);
      ProgressWait.on(
              "reports sent",
              () -> (long) meters.get("harbinger.client.reports.sent").functionCounter().count())
          .untilAtLeast(BACKLOG);
      assertThat(reports.ofJobType("spring-alarm")).hasSize(BACKLOG);
      assertThat(meters.get("harbinger.client.reports.sent").functionCounter().count())
          .isEqualTo(BACKLOG);
      assertThat(meters.get("harbinger.client.reports.dropped").functionCounter().count()).isZero();
      assertThat(meters.get("harbinger.client.reports.unroutable").functionCounter().count())
          .isZero();
      ProgressWait.on(
              "reports learned",
              () ->
                  (long)
                      meters
                          .get("harbinger.client.router.reports.learned")
                          .functionCounter()
                          .count())
          .untilAtLeast(BACKLOG);
    } finally {
      node.memoryAlarm(false);
      if (context != null) {
        context.close();
      }
      Quietly.close(reports);
      try (Connection c = broker.newConnection("harbinger-it-cleanup")) {
        Quietly.deleteQueue(c, queue);
      }
    }
  }
}
