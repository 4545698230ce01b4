package io.harbinger.sidecar;

import static io.harbinger.sidecar.SidecarTestSupport.MS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.grpc.stub.StreamObserver;
import io.harbinger.predictor.Keys;
import io.harbinger.proto.v1.GetKeyRequest;
import io.harbinger.proto.v1.KeyInfo;
import io.harbinger.proto.v1.ListKeysRequest;
import io.harbinger.proto.v1.ReportBatch;
import io.harbinger.proto.v1.RouteEntry;
import io.harbinger.proto.v1.RouteRequest;
import io.harbinger.proto.v1.RouteResponse;
import io.harbinger.proto.v1.RouteUpdate;
import io.harbinger.proto.v1.RoutingMode;
import io.harbinger.proto.v1.SetModeRequest;
import io.harbinger.proto.v1.SidecarGrpc;
import io.harbinger.proto.v1.SnapshotRequest;
import io.harbinger.proto.v1.Verdict;
import io.harbinger.proto.v1.WatchRoutesRequest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SidecarServiceTest {

  @TempDir Path dir;

  private Sidecar sidecar;
  private ManagedChannel channel;
  private SidecarGrpc.SidecarBlockingStub stub;

  @BeforeEach
  void start() throws Exception {
    String name = InProcessServerBuilder.generateName();
    sidecar =
        Sidecar.start(SidecarTestSupport.config(dir), InProcessServerBuilder.forName(name), false);
    channel = InProcessChannelBuilder.forName(name).build();
    stub = SidecarGrpc.newBlockingStub(channel).withDeadlineAfter(Duration.ofSeconds(10));
  }

  @AfterEach
  void stop() {
    channel.shutdownNow();
    sidecar.close();
  }

  private static String key(String job) {
    return Keys.of("shop", job);
  }

  @Test
  void watchRoutes_sendsTheFullTableThenChangesWithinAHundredMillis() {
    List<RouteUpdate> updates = new CopyOnWriteArrayList<>();
    SidecarGrpc.newStub(channel)
        .watchRoutes(WatchRoutesRequest.newBuilder().setClientId("test").build(), collect(updates));
    await().atMost(Duration.ofSeconds(5)).until(() -> !updates.isEmpty());
    assertThat(updates.get(0).getFull()).isTrue();
    assertThat(updates.get(0).getLevels()).isEqualTo(3);
    assertThat(updates.get(0).getDefaultLevel()).isEqualTo(1);

    long learnedAt = System.nanoTime();
    sidecar.reports().ingest(SidecarTestSupport.threeTypes(40));
    await()
        .atMost(Duration.ofSeconds(5))
        .until(() -> levelIn(updates, key("reserve_inventory")) == 0);
    long pushedAfterMillis = (System.nanoTime() - learnedAt) / 1_000_000;
    assertThat(pushedAfterMillis)
        .isLessThan(1_000); // generous on a loaded machine; the bench measures it
    assertThat(levelIn(updates, key("export_report"))).isEqualTo(2);
    assertThat(updates.stream().map(RouteUpdate::getVersion)).isSorted().doesNotHaveDuplicates();
  }

  @Test
  void route_batchLookup_answersLevelsInRequestOrder() {
    // Enough reports for the global safeguard to judge (200 decayed), so untrusted keys go last.
    sidecar.reports().ingest(SidecarTestSupport.threeTypes(200));
    RouteResponse r =
        stub.route(
            RouteRequest.newBuilder()
                .addKeys(key("export_report"))
                .addKeys(key("reserve_inventory"))
                .addKeys(key("never_seen"))
                .build());
    // The key never seen is untrusted: last, by default, once the safeguard has judged.
    assertThat(r.getEntriesList()).extracting(RouteEntry::getLevel).containsExactly(2, 0, 2);
    assertThat(r.getEntries(2).getVerdict()).isEqualTo(Verdict.VERDICT_COLD);
    assertThat(r.getMode()).isEqualTo(RoutingMode.ROUTING_MODE_PREDICTIVE);
  }

  @Test
  void listKeysAndGetKey_showWhatWasLearned() {
    sidecar.reports().ingest(SidecarTestSupport.threeTypes(40));
    assertThat(stub.listKeys(ListKeysRequest.getDefaultInstance()).getTotal()).isEqualTo(3);
    assertThat(
            stub.listKeys(ListKeysRequest.newBuilder().setPrefix(key("send")).build())
                .getKeysList())
        .extracting(KeyInfo::getKey)
        .containsExactly(key("send_email"));
    KeyInfo info = stub.getKey(GetKeyRequest.newBuilder().setKey(key("send_email")).build());
    assertThat(info.getObservations()).isEqualTo(40);
    assertThat(info.getMedianNanos()).isBetween(30.0 * MS, 45.0 * MS);
    assertThat(info.getLevel()).isEqualTo(1);
    assertThat(info.getVerdict()).isEqualTo(Verdict.VERDICT_PREDICTED);
  }

  @Test
  void setMode_shadowRoutesEverythingToTheDefaultLevel() {
    sidecar.reports().ingest(SidecarTestSupport.threeTypes(40));
    var previous =
        stub.setMode(SetModeRequest.newBuilder().setMode(RoutingMode.ROUTING_MODE_SHADOW).build());
    assertThat(previous.getPrevious()).isEqualTo(RoutingMode.ROUTING_MODE_PREDICTIVE);
    RouteResponse r =
        stub.route(RouteRequest.newBuilder().addKeys(key("reserve_inventory")).build());
    assertThat(r.getEntries(0).getLevel()).isEqualTo(1);
    assertThat(r.getMode()).isEqualTo(RoutingMode.ROUTING_MODE_SHADOW);
  }

  @Test
  void snapshot_writesTheFile() {
    sidecar.reports().ingest(SidecarTestSupport.threeTypes(40));
    var response = stub.snapshot(SnapshotRequest.getDefaultInstance());
    assertThat(response.getKeys()).isEqualTo(3);
    assertThat(Path.of(response.getPath())).exists();
    assertThat(response.getBytes()).isPositive();
  }

  @Test
  void badRequests_getInvalidArgumentOrNotFoundAndTheServiceKeepsServing() {
    RouteRequest.Builder tooMany = RouteRequest.newBuilder();
    for (int i = 0; i < 1001; i++) {
      tooMany.addKeys("k" + i);
    }
    assertStatus(() -> stub.route(tooMany.build()), Status.Code.INVALID_ARGUMENT, "at most 1000");
    assertStatus(
        () -> stub.route(RouteRequest.newBuilder().addKeys("").build()),
        Status.Code.INVALID_ARGUMENT,
        "keys[0]");
    assertStatus(
        () -> stub.route(RouteRequest.newBuilder().addKeys("x".repeat(300)).build()),
        Status.Code.INVALID_ARGUMENT,
        "256");
    assertStatus(
        () -> stub.listKeys(ListKeysRequest.newBuilder().setLimit(-1).build()),
        Status.Code.INVALID_ARGUMENT,
        "limit");
    assertStatus(
        () -> stub.getKey(GetKeyRequest.newBuilder().setKey(key("unknown")).build()),
        Status.Code.NOT_FOUND,
        "not tracked");
    assertStatus(
        () -> stub.getKey(GetKeyRequest.getDefaultInstance()), Status.Code.INVALID_ARGUMENT, "key");
    assertStatus(
        () -> stub.setMode(SetModeRequest.getDefaultInstance()),
        Status.Code.INVALID_ARGUMENT,
        "mode");
    assertStatus(
        () -> stub.setMode(SetModeRequest.newBuilder().setModeValue(99).build()),
        Status.Code.INVALID_ARGUMENT,
        "mode");
    assertThat(stub.listKeys(ListKeysRequest.getDefaultInstance()).getTotal()).isZero();
  }

  @Test
  void garbageReports_areCountedAndSkipped() {
    sidecar.reports().ingest(new byte[] {1, 2, 3, 4, 5, 6, 7});
    sidecar.reports().ingest(new byte[2 << 20]);
    ReportBatch mixed =
        ReportBatch.newBuilder()
            .addReports(SidecarTestSupport.ack("shop", "ok", 2 * MS))
            .addReports(SidecarTestSupport.ack("shop", "negative", -5))
            .addReports(SidecarTestSupport.ack("shop", "absurd", Long.MAX_VALUE))
            .addReports(SidecarTestSupport.ack("", "no_producer", 2 * MS))
            .addReports(SidecarTestSupport.ack("p".repeat(300), "long", 2 * MS))
            .addReports(SidecarTestSupport.ack("shop", "ok", 2 * MS).toBuilder().clearOutcome())
            .build();
    sidecar.reports().ingest(mixed.toByteArray());
    var stats = sidecar.reports().stats();
    assertThat(stats.malformedBatches()).isEqualTo(1);
    assertThat(stats.oversizedBatches()).isEqualTo(1);
    assertThat(stats.learned()).isEqualTo(1);
    assertThat(stats.rejectedDurations()).isEqualTo(2);
    assertThat(stats.rejectedKeys()).isEqualTo(2);
    assertThat(stats.rejectedOutcomes()).isEqualTo(1);
    assertThat(sidecar.predictor().keyStats()).hasSize(1);
    String scrape = sidecar.metrics().scrape();
    assertThat(scrape)
        .contains("harbinger_reports_rejected_total{reason=\"malformed_batch\"} 1.0")
        .contains("harbinger_reports_rejected_total{reason=\"bad_duration\"} 2.0")
        .doesNotContain("shop");
  }

  @Test
  void health_reportsServing() {
    HealthCheckResponse r =
        HealthGrpc.newBlockingStub(channel).check(HealthCheckRequest.getDefaultInstance());
    assertThat(r.getStatus()).isEqualTo(HealthCheckResponse.ServingStatus.SERVING);
  }

  @Test
  void metrics_exposeThePredictorWithoutKeys() throws Exception {
    sidecar.reports().ingest(SidecarTestSupport.threeTypes(40));
    stub.route(RouteRequest.newBuilder().addKeys(key("send_email")).build());
    String scrape = sidecar.metrics().scrape();
    assertThat(scrape)
        .contains("harbinger_predictions_total{outcome=\"predicted\"} 1.0")
        .contains("harbinger_keys_tracked 3.0")
        .contains("harbinger_boundary_seconds{index=\"0\"}")
        .contains("harbinger_reports_learned_total 120.0")
        .contains("harbinger_report_last_published_timestamp_seconds")
        .doesNotContain("reserve_inventory");
    assertThat(Files.exists(dir)).isTrue();
  }

  @Test
  void metrics_followPrometheusConventions_andIncludeJvmProcessAndGrpc() throws Exception {
    String fresh = sidecar.metrics().scrape();
    // Moments that have not happened are absent, not -1.
    assertThat(fresh)
        .doesNotContain("harbinger_snapshot_last_success_timestamp_seconds")
        .doesNotContain("harbinger_report_last_published_timestamp_seconds")
        .doesNotContain("_age_seconds")
        .doesNotContain("harbinger_report_lag_seconds")
        .contains("harbinger_tier_agreement_ratio ")
        .contains("jvm_memory_used_bytes{")
        .contains("jvm_threads_live_threads ")
        .contains("jvm_classes_loaded_classes ")
        .contains("process_cpu_usage ")
        .contains("process_uptime_seconds ")
        .contains("process_files_open_files ");
    assertThat(modeSeries(fresh)).containsOnlyKeys("off", "shadow", "predictive");
    assertThat(modeSeries(fresh).values()).containsOnlyOnce(1.0);

    stub.setMode(SetModeRequest.newBuilder().setMode(RoutingMode.ROUTING_MODE_SHADOW).build());
    long before = System.currentTimeMillis();
    sidecar.reports().ingest(SidecarTestSupport.threeTypes(10));
    stub.snapshot(SnapshotRequest.getDefaultInstance());
    String later = sidecar.metrics().scrape();

    assertThat(modeSeries(later))
        .containsEntry("shadow", 1.0)
        .containsEntry("off", 0.0)
        .containsEntry("predictive", 0.0);
    assertThat(sample(later, "harbinger_snapshot_last_success_timestamp_seconds"))
        .isBetween(before / 1e3 - 1, System.currentTimeMillis() / 1e3 + 1);
    assertThat(sample(later, "harbinger_report_last_published_timestamp_seconds"))
        .isBetween(before / 1e3 - 60, System.currentTimeMillis() / 1e3 + 1);
    assertThat(later)
        .containsPattern(
            "grpc_server_processing_duration_seconds_count\\{[^}]*method=\"SetMode\"[^}]*} 1(\\.0)?\n");
  }

  /** The value of each {@code harbinger_mode} series, by its mode label. */
  private static java.util.Map<String, Double> modeSeries(String scrape) {
    java.util.Map<String, Double> modes = new java.util.TreeMap<>();
    java.util.regex.Matcher m =
        java.util.regex.Pattern.compile("(?m)^harbinger_mode\\{mode=\"(\\w+)\"} (\\S+)$")
            .matcher(scrape);
    while (m.find()) {
      modes.put(m.group(1), Double.parseDouble(m.group(2)));
    }
    return modes;
  }

  private static double sample(String scrape, String name) {
    java.util.regex.Matcher m =
        java.util.regex.Pattern.compile("(?m)^" + name + " (\\S+)$").matcher(scrape);
    assertThat(m.find()).as(name + " in the scrape").isTrue();
    return Double.parseDouble(m.group(1));
  }

  private static int levelIn(List<RouteUpdate> updates, String key) {
    int level = -1;
    for (RouteUpdate u : updates) {
      for (RouteEntry e : u.getEntriesList()) {
        if (e.getKey().equals(key)) {
          level = e.getVerdict() == Verdict.VERDICT_PREDICTED ? e.getLevel() : -1;
        }
      }
    }
    return level;
  }

  private static void assertStatus(Runnable call, Status.Code code, String text) {
    assertThatThrownBy(call::run)
        .isInstanceOf(StatusRuntimeException.class)
        .satisfies(
            e -> {
              Status s = ((StatusRuntimeException) e).getStatus();
              assertThat(s.getCode()).isEqualTo(code);
              assertThat(s.getDescription()).contains(text);
            });
  }

  private static StreamObserver<RouteUpdate> collect(List<RouteUpdate> into) {
    return new StreamObserver<>() {
      @Override
      public void onNext(RouteUpdate value) {
        into.add(value);
      }

      @Override
      public void onError(Throwable t) {}

      @Override
      public void onCompleted() {}
    };
  }
}
