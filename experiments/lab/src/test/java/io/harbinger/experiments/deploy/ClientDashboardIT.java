package io.harbinger.experiments.deploy;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.DefaultConsumer;
import com.rabbitmq.client.Envelope;
import io.harbinger.micrometer.HarbingerClientMetrics;
import io.harbinger.micrometer.HarbingerTimers;
import io.harbinger.predictor.HistogramPredictor;
import io.harbinger.predictor.PredictorConfig;
import io.harbinger.rabbit.ChannelOptions;
import io.harbinger.rabbit.ClientStats;
import io.harbinger.rabbit.EmbeddedRouter;
import io.harbinger.rabbit.PredictiveChannels;
import io.harbinger.rabbit.PriorityQueues;
import io.harbinger.rabbit.ReportPublisher;
import io.harbinger.testing.ProgressWait;
import io.harbinger.testing.Quietly;
import io.harbinger.testing.TestBroker;
import io.harbinger.testing.WithBroker;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The client dashboard queries exactly the metrics a live Harbinger client exports: a wrapped
 * producer and consumer with an embedded router, a report publisher, the client meters and the
 * queue-wait and handler timers, on the RabbitMQ 3.x the test extension finds, scraped in
 * Prometheus text.
 */
@WithBroker
class ClientDashboardIT {

  private static final int JOBS = 40;

  @Test
  void clientDashboard_queriesExactlyTheMetricsALiveClientExports(TestBroker broker)
      throws Exception {
    String exchange = TestBroker.unique("dashboard.reports");
    String queue = TestBroker.unique("dashboard.jobs");
    String user = broker.factory().getUsername();
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    HistogramPredictor predictor = new HistogramPredictor(PredictorConfig.defaults());
    try (EmbeddedRouter router =
            EmbeddedRouter.builder(broker.factory(), predictor).exchange(exchange).start();
        ReportPublisher publisher =
            ReportPublisher.builder(broker.factory())
                .exchange(exchange)
                .batchSize(5)
                .flushInterval(Duration.ofMillis(20))
                .start();
        Connection connection = broker.newConnection("client-dashboard-it")) {
      ChannelOptions options =
          ChannelOptions.builder(user)
              .router(router)
              .reports(new HarbingerTimers(registry, 3, publisher))
              .build();
      new HarbingerClientMetrics(
              ClientStats.source(options.stats()).reports(publisher).router(router))
          .bindTo(registry);
      Channel producer = PredictiveChannels.wrap(connection.createChannel(), options);
      Channel consumer = PredictiveChannels.wrap(connection.createChannel(), options);
      PriorityQueues.declare(producer, queue, 3);
      for (int i = 0; i < JOBS; i++) {
        producer.basicPublish(
            "",
            queue,
            new AMQP.BasicProperties.Builder()
                .headers(Map.of("x-job-type", i % 2 == 0 ? "send_email" : "export"))
                .build(),
            new byte[16]);
      }
      consumer.basicQos(1);
      consumer.basicConsume(
          queue,
          false,
          new DefaultConsumer(consumer) {
            @Override
            public void handleDelivery(
                String tag, Envelope envelope, AMQP.BasicProperties props, byte[] body)
                throws java.io.IOException {
              getChannel().basicAck(envelope.getDeliveryTag(), false);
            }
          });
      ProgressWait.on("reports learned", () -> router.ingestStats().learned()).untilAtLeast(JOBS);

      DashboardCheck.queriesExactlyTheExportedMetrics(
          DashboardCheck.repositoryRoot()
              .resolve("deploy/grafana/dashboards/harbinger-client.json"),
          DashboardCheck.samples(registry.scrape()),
          "harbinger_client_");
    } finally {
      Quietly.delete(broker, List.of(queue), List.of(exchange));
    }
  }
}
