package io.harbinger.spring;

import static org.assertj.core.api.Assertions.assertThat;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import io.harbinger.predictor.KeyStats;
import io.harbinger.predictor.Keys;
import io.harbinger.predictor.Predictor;
import io.harbinger.proto.v1.DurationReport;
import io.harbinger.proto.v1.Outcome;
import io.harbinger.testing.EachBroker;
import io.harbinger.testing.ProgressWait;
import io.harbinger.testing.Quietly;
import io.harbinger.testing.TestBroker;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterEach;
import org.springframework.amqp.AmqpRejectAndDontRequeueException;
import org.springframework.amqp.core.Message;
import org.springframework.amqp.core.MessageListener;
import org.springframework.amqp.core.Queue;
import org.springframework.amqp.rabbit.annotation.RabbitListener;
import org.springframework.amqp.rabbit.config.AbstractRabbitListenerContainerFactory;
import org.springframework.amqp.rabbit.core.RabbitTemplate;
import org.springframework.amqp.rabbit.listener.AbstractMessageListenerContainer;
import org.springframework.amqp.support.AmqpHeaders;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.messaging.handler.annotation.Header;

/**
 * Duration reports from a Boot application's listeners, on the simple and the direct container:
 * AUTO and MANUAL acknowledgement, a listener that throws, one that fails once and is requeued, and
 * a {@code MessageListener} bean.
 */
class SpringReportsIT {

  private static final int PER_QUEUE = 3;
  private static final long WORK_MILLIS = 20;

  private final List<ConfigurableApplicationContext> contexts = new ArrayList<>();
  private final List<String> queues = new ArrayList<>();
  private final List<AutoCloseable> closeables = new ArrayList<>();

  @AfterEach
  void tearDown(TestBroker broker) throws Exception {
    contexts.forEach(ConfigurableApplicationContext::close);
    closeables.forEach(Quietly::close);
    try (Connection c = broker.newConnection("harbinger-it-cleanup")) {
      queues.forEach(q -> Quietly.deleteQueue(c, q));
    }
  }

  /** The listeners, one per acknowledgement style. */
  static final class Listeners {
    final Set<String> failedOnce = ConcurrentHashMap.newKeySet();

    private static void work() throws InterruptedException {
      Thread.sleep(WORK_MILLIS);
    }

    @RabbitListener(queues = "${test.auto}")
    void auto(Message m) throws InterruptedException {
      work();
    }

    @RabbitListener(queues = "${test.manual}", ackMode = "MANUAL")
    void manual(Message m, Channel channel, @Header(AmqpHeaders.DELIVERY_TAG) long tag)
        throws InterruptedException, IOException {
      work();
      channel.basicAck(tag, false);
    }

    @RabbitListener(queues = "${test.failing}")
    void failing(Message m) {
      throw new AmqpRejectAndDontRequeueException("this job always fails");
    }

    /** Fails the first attempt of each message (the container requeues it), then succeeds. */
    @RabbitListener(queues = "${test.retried}")
    void retried(Message m) throws InterruptedException {
      if (failedOnce.add(m.getMessageProperties().getMessageId())) {
        throw new IllegalStateException("first attempt fails");
      }
      work();
    }
  }

  @SpringBootConfiguration
  @EnableAutoConfiguration
  static class ReportsApp {

    @Bean
    Queue autoQueue(HarbingerQueues q, @Value("${test.auto}") String name) {
      return q.queue(name);
    }

    @Bean
    Queue manualQueue(HarbingerQueues q, @Value("${test.manual}") String name) {
      return q.queue(name);
    }

    @Bean
    Queue failingQueue(HarbingerQueues q, @Value("${test.failing}") String name) {
      return q.queue(name);
    }

    @Bean
    Queue retriedQueue(HarbingerQueues q, @Value("${test.retried}") String name) {
      return q.queue(name);
    }

    @Bean
    Queue beanQueue(HarbingerQueues q, @Value("${test.bean}") String name) {
      return q.queue(name);
    }

    @Bean
    Listeners listeners() {
      return new Listeners();
    }

    /** A MessageListener bean in a container made by Boot's listener container factory. */
    @Bean
    AbstractMessageListenerContainer beanContainer(
        AbstractRabbitListenerContainerFactory<?> factory, @Value("${test.bean}") String queue) {
      AbstractMessageListenerContainer container = factory.createListenerContainer();
      container.setQueueNames(queue);
      container.setMessageListener(
          (MessageListener)
              m -> {
                try {
                  Listeners.work();
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                }
              });
      return container;
    }
  }

  private String queue(String what) {
    String q = TestBroker.unique("spring.reports." + what);
    queues.add(q);
    return q;
  }

  @EachBroker
  void listeners_onSimpleAndDirectContainers_reportAutoManualFailedAndRequeuedDeliveries(
      TestBroker broker) throws Exception {
    for (String containerType : List.of("simple", "direct")) {
      String exchange = TestBroker.unique("spring.reports");
      String run = exchange.substring(exchange.lastIndexOf('.') + 1) + "-" + containerType;
      BootApps.Reports reports = new BootApps.Reports(broker, exchange);
      closeables.add(reports);
      String auto = queue("auto");
      String manual = queue("manual");
      String failing = queue("failing");
      String retried = queue("retried");
      String bean = queue("bean");
      ConfigurableApplicationContext context =
          BootApps.start(
              broker,
              ReportsApp.class,
              "harbinger.reports-exchange=" + exchange,
              "spring.rabbitmq.listener.type=" + containerType,
              "test.auto=" + auto,
              "test.manual=" + manual,
              "test.failing=" + failing,
              "test.retried=" + retried,
              "test.bean=" + bean);
      contexts.add(context);
      RabbitTemplate template = context.getBean(RabbitTemplate.class);
      for (String q : List.of(auto, manual, failing, retried, bean)) {
        for (int i = 0; i < PER_QUEUE; i++) {
          String jobType = q + "-" + run;
          template.convertAndSend(
              "",
              q,
              "job",
              m -> {
                m.getMessageProperties().setHeader("x-job-type", jobType);
                m.getMessageProperties().setMessageId(java.util.UUID.randomUUID().toString());
                return m;
              });
        }
      }

      // One report per delivery: one per message, two per retried one.
      ProgressWait.on("reports received", () -> reports.received().size())
          .untilAtLeast(6 * PER_QUEUE);
      assertThat(reports.ofJobType(auto + "-" + run)).hasSize(PER_QUEUE);
      assertThat(reports.ofJobType(manual + "-" + run)).hasSize(PER_QUEUE);
      assertThat(reports.ofJobType(failing + "-" + run)).hasSize(PER_QUEUE);
      assertThat(reports.ofJobType(retried + "-" + run)).hasSize(2 * PER_QUEUE);
      assertThat(reports.ofJobType(bean + "-" + run)).hasSize(PER_QUEUE);
      for (String q : List.of(auto, manual, bean)) {
        assertThat(reports.ofJobType(q + "-" + run))
            .as("%s container, queue %s", containerType, q)
            .allSatisfy(
                r -> {
                  assertThat(r.getOutcome()).isEqualTo(Outcome.OUTCOME_ACK);
                  assertThat(r.getProducer()).isEqualTo("guest");
                  assertThat(r.getHandlerNanos()).isGreaterThanOrEqualTo(WORK_MILLIS * 1_000_000);
                  assertThat(r.getPublishedLevel()).isEqualTo(1);
                  assertThat(r.getWaitMicros()).isNotNegative();
                  assertThat(r.getRedelivered()).isFalse();
                });
      }
      assertThat(reports.ofJobType(failing + "-" + run))
          .extracting(DurationReport::getOutcome)
          .containsOnly(Outcome.OUTCOME_NACK);
      // Requeued by the container, redelivered, then acknowledged: never censored.
      assertThat(reports.ofJobType(retried + "-" + run))
          .extracting(DurationReport::getOutcome)
          .containsOnly(Outcome.OUTCOME_NACK, Outcome.OUTCOME_ACK)
          .filteredOn(o -> o == Outcome.OUTCOME_ACK)
          .hasSize(PER_QUEUE);

      Predictor predictor = context.getBean(Predictor.class);
      ProgressWait.on("observations accepted", () -> predictor.stats().accepted())
          .until(
              PER_QUEUE + " observations of the auto queue's type",
              () ->
                  predictor
                          .keyStats(Keys.of("guest", auto + "-" + run))
                          .map(KeyStats::observations)
                          .orElse(0L)
                      == PER_QUEUE);
      assertThat(
              predictor
                  .keyStats(Keys.of("guest", failing + "-" + run))
                  .map(KeyStats::observations)
                  .orElse(0L))
          .as("a failing listener teaches nothing")
          .isZero();
      MeterRegistry meters = context.getBean(MeterRegistry.class);
      ProgressWait.on(
              "reports sent",
              () -> (long) meters.get("harbinger.client.reports.sent").functionCounter().count())
          .untilAtLeast(6 * PER_QUEUE);
      assertThat(meters.get("harbinger.client.reports.sent").functionCounter().count())
          .as("reports confirmed, read from the publisher started after binding")
          .isEqualTo(6 * PER_QUEUE);
      assertThat(meters.get("harbinger.client.reports.unsent").functionCounter().count()).isZero();
      assertThat(meters.get("harbinger.client.router.consuming").gauge().value()).isEqualTo(1);
      assertThat(meters.get("harbinger.client.router.reports.learned").functionCounter().count())
          .isGreaterThanOrEqualTo(4 * PER_QUEUE);
      // Spring's default prefetch (250) on five containers consuming Harbinger queues.
      assertThat(context.getBean(HarbingerRuntime.class).stats().prefetchWarnings()).isEqualTo(5);
      context.close();
    }
  }
}
