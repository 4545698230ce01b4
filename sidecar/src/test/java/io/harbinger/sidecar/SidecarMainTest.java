package io.harbinger.sidecar;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.grpc.inprocess.InProcessServerBuilder;
import io.harbinger.predictor.HistogramPredictor;
import io.harbinger.predictor.Keys;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class SidecarMainTest {

  @TempDir Path dir;

  @Test
  void main_invalidConfiguration_listsEveryProblemAndExitsWithTwo() throws Exception {
    Path file = dir.resolve("harbinger.yaml");
    Files.writeString(file, "grpc:\n  port: -5\nunknown: 1\n");
    PrintStream original = System.err;
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
    try {
      int code = new CommandLine(new SidecarMain()).execute("--config", file.toString());
      assertThat(code).isEqualTo(2);
    } finally {
      System.setErr(original);
    }
    assertThat(err.toString(StandardCharsets.UTF_8))
        .contains("2 problems")
        .contains("grpc.port must be in [0, 65535]: -5")
        .contains("unknown key unknown");
  }

  @Test
  void main_configNested1200LevelsDeep_isAConfigProblemNamingTheLimit_andExitsWithTwo()
      throws Exception {
    Path file = dir.resolve("deep.yaml");
    StringBuilder yaml = new StringBuilder();
    for (int i = 0; i < 1_200; i++) {
      yaml.append("  ".repeat(i)).append("k:\n");
    }
    Files.writeString(file, yaml.append("  ".repeat(1_200)).append("v\n"));
    PrintStream original = System.err;
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
    int code;
    try {
      code = new CommandLine(new SidecarMain()).execute("--config", file.toString());
    } finally {
      System.setErr(original);
    }

    assertThat(code).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8))
        .contains("config file " + file + " is beyond a limit of the YAML reader")
        .contains("nesting depth")
        .contains("1000")
        .doesNotContain("Exception");
  }

  @Test
  void main_unknownOption_exitsWithTwo() {
    CommandLine cli = new CommandLine(new SidecarMain());
    cli.setErr(new java.io.PrintWriter(new ByteArrayOutputStream()));
    assertThat(cli.execute("--confg", "x")).isEqualTo(2);
  }

  @Test
  void metricsEndpoint_servesPrometheusText() throws Exception {
    SidecarConfig config = SidecarTestSupport.config(dir, "metrics.port", "0");
    try (Sidecar sidecar =
        Sidecar.start(
            config, InProcessServerBuilder.forName(InProcessServerBuilder.generateName()), false)) {
      sidecar.reports().ingest(SidecarTestSupport.threeTypes(40));
      HttpResponse<String> response =
          HttpClient.newHttpClient()
              .send(
                  HttpRequest.newBuilder(
                          URI.create("http://127.0.0.1:" + sidecar.metricsPort() + "/metrics"))
                      .build(),
                  HttpResponse.BodyHandlers.ofString());
      assertThat(response.statusCode()).isEqualTo(200);
      assertThat(response.headers().firstValue("Content-Type"))
          .hasValueSatisfying(v -> assertThat(v).startsWith("text/plain"));
      assertThat(response.body())
          .contains("# HELP harbinger_keys_tracked")
          .contains("harbinger_keys_tracked 3.0")
          .contains("harbinger_reports_learned_total 120.0");
    }
  }

  @Test
  void start_grpcPortTaken_failsNamingTheAddressAndTheSetting() throws Exception {
    try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      SidecarConfig config =
          SidecarTestSupport.config(
              dir,
              "grpc.bind-address",
              "127.0.0.1",
              "grpc.port",
              Integer.toString(taken.getLocalPort()));
      assertThatThrownBy(() -> Sidecar.start(config))
          .isInstanceOf(IOException.class)
          .hasMessageContaining("the gRPC port 127.0.0.1:" + taken.getLocalPort())
          .hasMessageContaining("set grpc.port (HARBINGER_GRPC_PORT)");
    }
  }

  @Test
  void start_loopbackBindAddresses_listenOnLoopbackOnly() throws Exception {
    SidecarConfig config =
        SidecarTestSupport.config(
            dir,
            "grpc.bind-address",
            "127.0.0.1",
            "metrics.bind-address",
            "127.0.0.1",
            "metrics.port",
            "0",
            "rabbitmq.startup-retry",
            "0s");
    try (Sidecar sidecar =
        Sidecar.start(config, Sidecar.serverBuilder(config), /* consumeReports= */ false)) {
      for (int port : new int[] {sidecar.grpcPort(), sidecar.metricsPort()}) {
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
          assertThat(s.isConnected()).as("127.0.0.1:%d", port).isTrue();
        }
        InetAddress other = nonLoopbackAddress();
        if (other != null) {
          assertThatThrownBy(() -> new Socket(other, port).close())
              .as("%s:%d", other, port)
              .isInstanceOf(IOException.class);
        }
      }
    }
  }

  /** An address of this host other than loopback, or null when it has none. */
  private static InetAddress nonLoopbackAddress() throws IOException {
    for (NetworkInterface nic :
        java.util.Collections.list(NetworkInterface.getNetworkInterfaces())) {
      for (InetAddress a : java.util.Collections.list(nic.getInetAddresses())) {
        if (!a.isLoopbackAddress() && !a.isLinkLocalAddress() && nic.isUp()) {
          return a;
        }
      }
    }
    return null;
  }

  private static String exitTwoOutput(Path file) {
    PrintStream original = System.err;
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
    try {
      int code = new CommandLine(new SidecarMain()).execute("--config", file.toString());
      assertThat(code).isEqualTo(2);
    } finally {
      System.setErr(original);
    }
    return err.toString(StandardCharsets.UTF_8);
  }

  @Test
  void main_durationTooLongForADuration_isAConfigProblemWithExitTwo() throws Exception {
    Path file = dir.resolve("harbinger.yaml");
    Files.writeString(
        file,
        "snapshot:\n  interval: 99999999999999999999h\nroutes:\n  sweep-interval: 9223372036854775807h\n");

    assertThat(exitTwoOutput(file))
        .contains("2 problems")
        .contains("snapshot.interval is too long")
        .contains("routes.sweep-interval is too long");
  }

  @Test
  void main_remoteBindWithoutToken_refusesToStartUnlessOptedIn() throws Exception {
    Path file = dir.resolve("harbinger.yaml");
    Files.writeString(file, "grpc:\n  bind-address: 0.0.0.0\n");

    assertThat(exitTwoOutput(file))
        .contains(
            "grpc.bind-address 0.0.0.0 is not a loopback address and grpc.token-file is empty")
        .contains("grpc.allow-unauthenticated-remote: true");
  }

  private static HttpResponse<String> get(int port, String path) throws Exception {
    return HttpClient.newHttpClient()
        .send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(),
            HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void metricsEndpoint_dropsDeclaredBeyondWhatOneBatchMay_areRefusedByReason() throws Exception {
    SidecarConfig config = SidecarTestSupport.config(dir, "metrics.port", "0");
    try (Sidecar sidecar =
        Sidecar.start(
            config, InProcessServerBuilder.forName(InProcessServerBuilder.generateName()), false)) {
      // A trusted reporter's four batches of about 4.2e9 drops each: 1.69e10 in all.
      for (int i = 0; i < 4; i++) {
        sidecar
            .reports()
            .ingest(
                io.harbinger.proto.v1.ReportBatch.newBuilder()
                    .setDroppedSinceLast(4_227_858_432L)
                    .addReports(SidecarTestSupport.ack("shop", "send_email", 2_000_000))
                    .build()
                    .toByteArray());
      }
      sidecar
          .reports()
          .ingest(
              io.harbinger.proto.v1.ReportBatch.newBuilder()
                  .setDroppedSinceLast(8_192)
                  .build()
                  .toByteArray());

      assertThat(get(sidecar.metricsPort(), "/metrics").body())
          .contains("harbinger_reports_rejected_total{reason=\"bad_dropped_count\"} 4.0")
          .contains("harbinger_reports_dropped_by_reporters_total 8192.0")
          .contains("harbinger_reports_learned_total 4.0");
    }
  }

  @Test
  void metricsEndpoint_absurdReportValues_neverBreakTheScrape() throws Exception {
    SidecarConfig config = SidecarTestSupport.config(dir, "metrics.port", "0");
    try (Sidecar sidecar =
        Sidecar.start(
            config, InProcessServerBuilder.forName(InProcessServerBuilder.generateName()), false)) {
      long in2096 = java.time.Instant.parse("2096-01-01T00:00:00Z").toEpochMilli() * 1000;
      sidecar
          .reports()
          .ingest(
              io.harbinger.proto.v1.ReportBatch.newBuilder()
                  .setDroppedSinceLast(Long.MAX_VALUE)
                  .build()
                  .toByteArray());
      sidecar
          .reports()
          .ingest(
              io.harbinger.proto.v1.ReportBatch.newBuilder()
                  .setDroppedSinceLast(Long.MAX_VALUE)
                  .addReports(
                      SidecarTestSupport.ack("shop", "future", 1_000_000).toBuilder()
                          .setPublishedAtMicros(in2096))
                  .build()
                  .toByteArray());
      long minuteAgo = (System.currentTimeMillis() - 60_000) * 1000;
      sidecar
          .reports()
          .ingest(
              io.harbinger.proto.v1.ReportBatch.newBuilder()
                  .addReports(
                      SidecarTestSupport.ack("shop", "past", 1_000_000).toBuilder()
                          .setPublishedAtMicros(minuteAgo))
                  .build()
                  .toByteArray());

      for (int i = 0; i < 2; i++) {
        HttpResponse<String> response = get(sidecar.metricsPort(), "/metrics");
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.body())
            .contains("harbinger_reports_rejected_total{reason=\"bad_dropped_count\"} 2.0")
            .contains("harbinger_reports_future_published_at_total 1.0");
      }
      double lag = sidecar.reports().lagSeconds();
      assertThat(lag).isBetween(59.0, 600.0);
    }
  }

  @Test
  void readyEndpoint_followsTheSidecarsDependencies() throws Exception {
    SidecarConfig config = SidecarTestSupport.config(dir, "metrics.port", "0");
    try (Sidecar sidecar =
        Sidecar.start(
            config, InProcessServerBuilder.forName(InProcessServerBuilder.generateName()), false)) {
      HttpResponse<String> response = get(sidecar.metricsPort(), "/ready");
      assertThat(response.statusCode()).isEqualTo(200);
      assertThat(response.body())
          .isEqualTo(
              "SERVING\nlearning: 0 keys trusted, 0 learning (20 observations each), 0 untrusted;"
                  + " 0 reports pooled (levels from 100); safeguard estimate after 356 reports\n");
    }
  }

  @Test
  void readyAndMetrics_sayWhenLearnedLevelsStartToReorder() throws Exception {
    SidecarConfig config = SidecarTestSupport.config(dir, "metrics.port", "0");
    try (Sidecar sidecar =
        Sidecar.start(
            config, InProcessServerBuilder.forName(InProcessServerBuilder.generateName()), false)) {
      HistogramPredictor predictor = sidecar.predictor();
      for (int i = 0; i < 50; i++) {
        predictor.observe(Keys.of("app", "send_email"), 5e6);
        predictor.observe(Keys.of("app", "export"), 2e9);
      }
      predictor.observe(Keys.of("app", "new_type"), 1e8);

      assertThat(sidecar.metrics().scrape())
          .contains("harbinger_reordering 1.0")
          .contains("harbinger_keys{state=\"trusted\"} 2.0")
          .contains("harbinger_keys{state=\"learning\"} 1.0")
          .contains("harbinger_safeguard_estimated 0.0");
      assertThat(get(sidecar.metricsPort(), "/ready").body())
          .startsWith("SERVING\nreordering: 2 keys trusted, 1 learning");
    }
  }

  @Test
  void start_defaults_bindGrpcAndMetricsToLoopbackOnly() throws Exception {
    SidecarConfig config = SidecarTestSupport.config(dir, "metrics.port", "0");
    try (Sidecar sidecar = Sidecar.start(config, Sidecar.serverBuilder(config), false)) {
      assertThat(sidecar.server().listenAddresses())
          .singleElement()
          .satisfies(
              a ->
                  assertThat(((java.net.InetSocketAddress) a).getAddress().isLoopbackAddress())
                      .as(a.toString())
                      .isTrue());
      assertThat(sidecar.metrics().address().getAddress().isLoopbackAddress()).isTrue();
    }
  }
}
