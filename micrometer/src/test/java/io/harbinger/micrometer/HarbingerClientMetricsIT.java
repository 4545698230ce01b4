package io.harbinger.micrometer;

import static org.assertj.core.api.Assertions.assertThat;

import io.harbinger.predictor.HistogramPredictor;
import io.harbinger.predictor.PredictorConfig;
import io.harbinger.rabbit.AdapterStats;
import io.harbinger.rabbit.ClientStats;
import io.harbinger.rabbit.DurationReport;
import io.harbinger.rabbit.EmbeddedRouter;
import io.harbinger.rabbit.ReportPublisher;
import io.harbinger.rabbit.Settlement;
import io.harbinger.testing.EachBroker;
import io.harbinger.testing.ProgressWait;
import io.harbinger.testing.TestBroker;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;

/** The report publisher's and the embedded router's meters, on a real broker. */
class HarbingerClientMetricsIT {

  private static long count(SimpleMeterRegistry registry, String counter) {
    return (long) registry.get(counter).functionCounter().count();
  }

  @EachBroker
  void reportsPublishedAndLearned_showInTheRegistry(TestBroker broker) throws Exception {
    String exchange = TestBroker.unique("metrics.reports");
    HistogramPredictor predictor = new HistogramPredictor(PredictorConfig.defaults());
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    try (EmbeddedRouter router =
            EmbeddedRouter.builder(broker.factory(), predictor).exchange(exchange).start();
        ReportPublisher publisher =
            ReportPublisher.builder(broker.factory())
                .exchange(exchange)
                .batchSize(5)
                .flushInterval(Duration.ofMillis(20))
                .start()) {
      new HarbingerClientMetrics(
              ClientStats.source(new AdapterStats()).reports(publisher).router(router))
          .bindTo(registry);
      sendAcks(publisher, broker, "metrics", 5);

      ProgressWait.on(
              "reports learned", () -> count(registry, "harbinger.client.router.reports.learned"))
          .untilAtLeast(5);
      assertThat(registry.get("harbinger.client.router.reports.learned").functionCounter().count())
          .isEqualTo(5);
      assertThat(registry.get("harbinger.client.reports.sent").functionCounter().count())
          .isEqualTo(5);
      assertThat(
              registry
                  .get("harbinger.client.report.batches")
                  .tag("result", "failed")
                  .functionCounter()
                  .count())
          .isZero();
      assertThat(registry.get("harbinger.client.router.consuming").gauge().value()).isEqualTo(1);
      assertThat(registry.get("harbinger.client.reports.buffered").gauge().value()).isZero();
      assertThat(registry.get("harbinger.client.keys").tag("state", "learning").gauge().value())
          .as("one job type, 5 of its 20 observations")
          .isEqualTo(1);
      assertThat(registry.get("harbinger.client.keys").tag("state", "trusted").gauge().value())
          .isZero();
      assertThat(registry.get("harbinger.client.reordering").gauge().value()).isZero();
      assertThat(registry.get("harbinger.client.safeguard.estimated").gauge().value()).isZero();
    } finally {
      try (var c = broker.factory().newConnection("metrics-it-cleanup");
          var ch = c.createChannel()) {
        ch.exchangeDelete(exchange);
      }
    }
  }

  @EachBroker
  void aPublisherThatStartsAfterBinding_isReadOnceItRuns(TestBroker broker) throws Exception {
    String exchange = TestBroker.unique("metrics.late");
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    AtomicReference<ReportPublisher> current = new AtomicReference<>();
    new HarbingerClientMetrics(ClientStats.source(new AdapterStats()).reports(current::get))
        .bindTo(registry);

    assertThat(registry.get("harbinger.client.reports.sent").functionCounter().count()).isZero();
    assertThat(registry.get("harbinger.client.reports.buffered").gauge().value()).isZero();

    try (ReportPublisher publisher =
        ReportPublisher.builder(broker.factory())
            .exchange(exchange)
            .batchSize(3)
            .flushInterval(Duration.ofMillis(20))
            .start()) {
      current.set(publisher);
      // Nothing is bound to the exchange yet: RabbitMQ confirms the batch but routes it nowhere.
      sendAcks(publisher, broker, "late", 3);
      ProgressWait.on(
              "reports unroutable", () -> count(registry, "harbinger.client.reports.unroutable"))
          .untilAtLeast(3);
      assertThat(registry.get("harbinger.client.reports.sent").functionCounter().count()).isZero();

      try (var c = broker.factory().newConnection("metrics-it-queue");
          var ch = c.createChannel()) {
        String q = ch.queueDeclare("", false, true, true, null).getQueue();
        ch.queueBind(q, exchange, "");
        sendAcks(publisher, broker, "late", 3);
        ProgressWait.on("reports sent", () -> count(registry, "harbinger.client.reports.sent"))
            .untilAtLeast(3);
        ch.queueDelete(q);
      }
      assertThat(registry.get("harbinger.client.reports.sent").functionCounter().count())
          .isEqualTo(3);
      assertThat(registry.get("harbinger.client.reports.unroutable").functionCounter().count())
          .isEqualTo(3);
      assertThat(
              registry
                  .get("harbinger.client.report.batches")
                  .tag("result", "confirmed")
                  .functionCounter()
                  .count())
          .isEqualTo(1);
    } finally {
      try (var c = broker.factory().newConnection("metrics-it-cleanup");
          var ch = c.createChannel()) {
        ch.exchangeDelete(exchange);
      }
    }
  }

  /** Hands the publisher {@code n} acknowledged 1 ms reports of one job type. */
  private static void sendAcks(
      ReportPublisher publisher, TestBroker broker, String jobType, int n) {
    for (int i = 0; i < n; i++) {
      publisher.accept(
          new DurationReport(
              broker.factory().getUsername(),
              jobType,
              -1,
              Settlement.ACK,
              1_000_000,
              0,
              -1,
              false,
              0,
              0));
    }
  }
}
