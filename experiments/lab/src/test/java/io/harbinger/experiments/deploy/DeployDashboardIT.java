package io.harbinger.experiments.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
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
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
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

  private static final ObjectMapper JSON = new ObjectMapper();

  /** Harbinger's own metrics, and the JVM, process and gRPC server metrics beside them. */
  private static final Pattern METRIC =
      Pattern.compile("\\b(?:harbinger|jvm|process|grpc_server)_[a-z0-9_]+\\b");

  @TempDir Path dir;

  private final Path root = repositoryRoot();

  @Test
  void grafanaDashboard_queriesExactlyTheMetricsTheSidecarExports(TestBroker broker)
      throws Exception {
    Map<String, Set<String>> exported = samples(scrapeRunningSidecar(broker));
    assertThat(exported).isNotEmpty();

    JsonNode dashboard =
        JSON.readTree(root.resolve("deploy/grafana/dashboards/harbinger-sidecar.json").toFile());
    Set<String> queried = new TreeSet<>();
    List<JsonNode> targets = new ArrayList<>();
    dashboard.findValues("targets").forEach(t -> t.forEach(targets::add));
    assertThat(targets).isNotEmpty();
    for (JsonNode target : targets) {
      String expr = target.path("expr").asText();
      Set<String> names = metricNames(expr);
      assertThat(names).as("metrics in " + expr).isNotEmpty();
      assertThat(exported.keySet())
          .as("metrics the sidecar exports, for " + expr)
          .containsAll(names);
      queried.addAll(names);
      Set<String> labels = new HashSet<>(Set.of("instance", "job", "pod", "namespace"));
      names.forEach(n -> labels.addAll(exported.get(n)));
      Matcher legend =
          Pattern.compile("\\{\\{(\\w+)}}").matcher(target.path("legendFormat").asText());
      while (legend.find()) {
        assertThat(labels).as("legend label of " + expr).contains(legend.group(1));
      }
    }
    for (JsonNode variable : dashboard.path("templating").path("list")) {
      assertThat(exported.keySet())
          .as("metrics of dashboard variable " + variable.path("name").asText())
          .containsAll(metricNames(variable.path("definition").asText()))
          .containsAll(metricNames(variable.path("query").path("query").asText()));
    }
    assertThat(queried)
        .as("every exported harbinger metric is on the dashboard")
        .containsAll(exported.keySet().stream().filter(n -> n.startsWith("harbinger_")).toList());
  }

  /** Sample names of the exported harbinger metrics, each with its label names. */
  private static Map<String, Set<String>> samples(String scrape) {
    Map<String, Set<String>> samples = new TreeMap<>();
    for (String line : scrape.split("\n")) {
      if (line.isBlank() || line.startsWith("#") || !METRIC.matcher(line).lookingAt()) {
        continue;
      }
      int brace = line.indexOf('{');
      int space = line.indexOf(' ');
      int end = brace >= 0 && brace < space ? brace : space;
      Set<String> labels = samples.computeIfAbsent(line.substring(0, end), k -> new TreeSet<>());
      if (end == brace) {
        Matcher m = Pattern.compile("(\\w+)=\"").matcher(line.substring(brace, line.indexOf('}')));
        while (m.find()) {
          labels.add(m.group(1));
        }
      }
    }
    return samples;
  }

  private static Set<String> metricNames(String expr) {
    Set<String> names = new TreeSet<>();
    Matcher m = METRIC.matcher(expr);
    while (m.find()) {
      names.add(m.group());
    }
    return names;
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

  private static Path repositoryRoot() {
    Path p = Path.of("").toAbsolutePath();
    while (p != null
        && !(Files.exists(p.resolve("mvnw")) && Files.isDirectory(p.resolve("deploy")))) {
      p = p.getParent();
    }
    assertThat(p).as("the repository root above " + Path.of("").toAbsolutePath()).isNotNull();
    return p;
  }
}
