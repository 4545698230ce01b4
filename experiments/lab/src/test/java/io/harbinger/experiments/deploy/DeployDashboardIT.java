package io.harbinger.experiments.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.harbinger.proto.v1.DurationReport;
import io.harbinger.proto.v1.Outcome;
import io.harbinger.proto.v1.ReportBatch;
import io.harbinger.proto.v1.SidecarGrpc;
import io.harbinger.proto.v1.SnapshotRequest;
import io.harbinger.sidecar.ConfigLoader;
import io.harbinger.sidecar.Sidecar;
import io.harbinger.sidecar.SidecarConfig;
import io.harbinger.testing.TestBroker;
import io.harbinger.testing.WithBroker;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Grafana dashboard queries exactly the metrics a real sidecar exports: a sidecar is started on
 * the loopback RabbitMQ with free ports, its {@code /metrics} endpoint is read over HTTP, and every
 * {@code harbinger_*} name and legend label in {@code deploy/grafana/dashboards} must be among
 * them, and every exported name on the dashboard. Runs on the RabbitMQ 3.x the test extension
 * finds.
 */
@WithBroker
class DeployDashboardIT {

  @TempDir Path dir;

  private final Path root = repositoryRoot();

  @Test
  void grafanaDashboard_queriesExactlyTheMetricsTheSidecarExports(TestBroker broker)
      throws Exception {
    DashboardCheck.queriesExactlyTheExportedMetrics(
        root.resolve("deploy/grafana/dashboards/harbinger-sidecar.json"),
        DashboardCheck.samples(scrapeRunningSidecar(broker)),
        "harbinger_");
  }

  private String scrapeRunningSidecar(TestBroker broker) throws Exception {
    Properties p = new Properties();
    String replica = "deploy-dashboard-it-" + UUID.randomUUID().toString().substring(0, 8);
    ConnectionFactory factory = broker.factory();
    p.setProperty("harbinger.replica-id", replica);
    p.setProperty("harbinger.rabbitmq.uri", broker.bareUri());
    p.setProperty("harbinger.rabbitmq.username", factory.getUsername());
    p.setProperty("harbinger.rabbitmq.reports-exchange", "harbinger.reports." + replica);
    p.setProperty("harbinger.grpc.port", "0");
    p.setProperty("harbinger.metrics.port", "0");
    p.setProperty("harbinger.snapshot.path", dir.resolve("sidecar.snap").toString());
    SidecarConfig config =
        new ConfigLoader(Map.of("HARBINGER_RABBITMQ_PASSWORD", factory.getPassword()), p)
            .load(Optional.empty());
    try (Sidecar sidecar = Sidecar.start(config)) {
      // The moments the timestamp metrics record (a snapshot, a report learned) and a gRPC call:
      // the dashboard shows what a working sidecar exports.
      ManagedChannel grpc =
          Grpc.newChannelBuilderForAddress(
                  "127.0.0.1", sidecar.grpcPort(), InsecureChannelCredentials.create())
              .build();
      try {
        SidecarGrpc.newBlockingStub(grpc).snapshot(SnapshotRequest.getDefaultInstance());
      } finally {
        grpc.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
      }
      publishOneReport(config, broker);
      try (HttpClient http = HttpClient.newHttpClient()) {
        String[] body = new String[1];
        await()
            .atMost(Duration.ofSeconds(30))
            .until(
                () -> {
                  HttpResponse<String> response =
                      http.send(
                          HttpRequest.newBuilder(
                                  URI.create(
                                      "http://127.0.0.1:" + sidecar.metricsPort() + "/metrics"))
                              .timeout(Duration.ofSeconds(10))
                              .build(),
                          HttpResponse.BodyHandlers.ofString());
                  assertThat(response.statusCode()).isEqualTo(200);
                  body[0] = response.body();
                  return body[0].contains("harbinger_report_last_published_timestamp_seconds");
                });
        return body[0];
      }
    } finally {
      deleteQueueAndExchange(config, broker);
    }
  }

  /** Publishes one acknowledged report as the trusted reporter (the sidecar's own user). */
  private static void publishOneReport(SidecarConfig config, TestBroker broker) throws Exception {
    ConnectionFactory factory = broker.factory();
    ReportBatch batch =
        ReportBatch.newBuilder()
            .setReporterId("deploy-dashboard-it")
            .setSequence(1)
            .addReports(
                DurationReport.newBuilder()
                    .setProducer(factory.getUsername())
                    .setJobType("dashboard")
                    .setOutcome(Outcome.OUTCOME_ACK)
                    .setHandlerNanos(2_000_000)
                    .setPublishedLevel(-1)
                    .setPublishedAtMicros(System.currentTimeMillis() * 1_000))
            .build();
    try (Connection c = factory.newConnection("deploy-dashboard-it-report");
        Channel ch = c.createChannel()) {
      ch.basicPublish(
          config.rabbit().reportsExchange(),
          "",
          new AMQP.BasicProperties.Builder().userId(factory.getUsername()).build(),
          batch.toByteArray());
    }
  }

  private static void deleteQueueAndExchange(SidecarConfig config, TestBroker broker)
      throws Exception {
    try (Connection c = broker.newConnection("deploy-dashboard-it");
        Channel ch = c.createChannel()) {
      ch.queueDelete(config.reportQueue());
      ch.exchangeDelete(config.rabbit().reportsExchange());
    }
  }

  static Path repositoryRoot() {
    return DashboardCheck.repositoryRoot();
  }
}
