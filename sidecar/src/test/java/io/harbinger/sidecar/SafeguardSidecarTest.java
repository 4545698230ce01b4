package io.harbinger.sidecar;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.grpc.ManagedChannel;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.harbinger.predictor.HistogramPredictor;
import io.harbinger.predictor.Keys;
import io.harbinger.predictor.PredictorTuning;
import io.harbinger.proto.v1.GetSafeguardRequest;
import io.harbinger.proto.v1.ReportBatch;
import io.harbinger.proto.v1.RouteEntry;
import io.harbinger.proto.v1.RouteRequest;
import io.harbinger.proto.v1.RouteUpdate;
import io.harbinger.proto.v1.RoutingMode;
import io.harbinger.proto.v1.SafeguardInfo;
import io.harbinger.proto.v1.SidecarGrpc;
import io.harbinger.proto.v1.Verdict;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SafeguardSidecarTest {

  private static final long MS = 1_000_000L;

  @TempDir Path dir;

  private Sidecar sidecar;
  private ManagedChannel channel;
  private SidecarGrpc.SidecarBlockingStub stub;

  private void start(String... overrides) throws Exception {
    start(PredictorTuning.defaults(), overrides);
  }

  /** Starts a sidecar whose predictor has the lab's tuning, which its settings cannot reach. */
  private void start(PredictorTuning tuning, String... overrides) throws Exception {
    String name = InProcessServerBuilder.generateName();
    sidecar =
        Sidecar.start(
            SidecarTestSupport.config(dir, overrides),
            InProcessServerBuilder.forName(name),
            false,
            (config, ticker, mode) -> new HistogramPredictor(config, tuning, ticker, mode));
    channel = InProcessChannelBuilder.forName(name).build();
    stub = SidecarGrpc.newBlockingStub(channel).withDeadlineAfter(Duration.ofSeconds(10));
  }

  @AfterEach
  void stop() {
    if (channel != null) {
      channel.shutdownNow();
    }
    if (sidecar != null) {
      sidecar.close();
    }
  }

  /**
   * No per-key safeguard, demotion or shift run: the lab's hooks that leave the global one alone.
   */
  private static PredictorTuning globalOnly() {
    return PredictorTuning.builder().keyGuard(false).demoteUntrusted(false).shiftRun(0).build();
  }

  private static byte[] inverted(int n) {
    ReportBatch.Builder b = ReportBatch.newBuilder().setReporterId("test").setSequence(2);
    for (int i = 0; i < n; i++) {
      b.addReports(SidecarTestSupport.ack("shop", "reserve_inventory", 2000 * MS));
      b.addReports(SidecarTestSupport.ack("shop", "send_email", 40 * MS));
      b.addReports(SidecarTestSupport.ack("shop", "export_report", 2 * MS));
    }
    return b.build().toByteArray();
  }

  @Test
  void getSafeguard_helpfulLevels_reportsTheGainAndItsInputs() throws Exception {
    start();
    sidecar.reports().ingest(SidecarTestSupport.threeTypes(120));

    SafeguardInfo s = stub.getSafeguard(GetSafeguardRequest.getDefaultInstance());
    assertThat(s.getEnabled()).isTrue();
    assertThat(s.getHolding()).isFalse();
    assertThat(s.getEstimatedGain()).isGreaterThan(0.2);
    assertThat(s.getLoad()).isEqualTo(0.8);
    assertThat(s.getJobSharesList()).hasSize(3);
    assertThat(s.getWorkSharesList().get(2)).isGreaterThan(0.9);
    assertThat(s.getReason()).startsWith("estimated gain");
    assertThat(sidecar.metrics().scrape())
        .contains("harbinger_safeguard_holding 0.0")
        .contains("harbinger_safeguard_work_share_ratio{level=\"2\"}")
        .contains("harbinger_predictions_total{outcome=\"mispredicted\"}");
  }

  @Test
  void watchRoutes_whileTheSafeguardHolds_publishesShadowModeAndTheReason() throws Exception {
    // Per-key gates loosened, no shift run and equal-quantile boundaries, so that only the global
    // safeguard can catch the inversion; untrusted keys at the default level, so that holding is
    // shadow mode.
    start(
        globalOnly(),
        "predictor.max-spread-ratio",
        "10000",
        "predictor.tail-budget",
        "0",
        "predictor.untrusted-last",
        "false");
    sidecar.reports().ingest(SidecarTestSupport.threeTypes(120));
    SafeguardInfo s = invertUntilHolding();
    assertThat(s.getEstimatedGain()).isLessThan(0.02);
    assertThat(s.getReason()).contains("FIFO order");
    assertThat(s.getHeldPredictions()).isZero();
    // A batch lookup routes every key at the default level and counts it.
    assertThat(
            stub.route(
                    RouteRequest.newBuilder().addKeys(Keys.of("shop", "reserve_inventory")).build())
                .getEntries(0)
                .getLevel())
        .isEqualTo(1);
    assertThat(stub.getSafeguard(GetSafeguardRequest.getDefaultInstance()).getHeldPredictions())
        .isEqualTo(1);
    await()
        .atMost(Duration.ofSeconds(5))
        .untilAsserted(
            () -> {
              RouteUpdate full = sidecar.routes().full();
              assertThat(full.getMode()).isEqualTo(RoutingMode.ROUTING_MODE_SHADOW);
              assertThat(full.getSafeguardHolding()).isTrue();
            });
    assertThat(sidecar.metrics().scrape()).contains("harbinger_safeguard_holding 1.0");
  }

  @Test
  void watchRoutes_whileTheSafeguardHoldsWithUntrustedKeysLast_keepsThemLastAndTheRestAtTheDefault()
      throws Exception {
    start(globalOnly(), "predictor.max-spread-ratio", "10000", "predictor.tail-budget", "0");
    sidecar.reports().ingest(SidecarTestSupport.threeTypes(120));
    // Another producer, so that it has no aggregate to borrow from: cold.
    String newcomer = Keys.of("elsewhere", "newcomer");
    ReportBatch once =
        ReportBatch.newBuilder()
            .setReporterId("test")
            .setSequence(1)
            .addReports(SidecarTestSupport.ack("elsewhere", "newcomer", 5 * MS))
            .build();
    sidecar.reports().ingest(once.toByteArray());
    await()
        .atMost(Duration.ofSeconds(5))
        .untilAsserted(
            () -> {
              RouteUpdate full = sidecar.routes().full();
              assertThat(full.getUntrustedLast()).isTrue();
              assertThat(levelOf(full, newcomer)).isEqualTo(2);
            });
    SafeguardInfo s = invertUntilHolding();
    // Shadow mode would move the untrusted key ahead of the work queued last: the table stays
    // predictive, every trusted key at the default level, the untrusted one and unknown keys last.
    await()
        .atMost(Duration.ofSeconds(5))
        .untilAsserted(
            () -> {
              RouteUpdate full = sidecar.routes().full();
              assertThat(full.getMode()).isEqualTo(RoutingMode.ROUTING_MODE_PREDICTIVE);
              assertThat(full.getSafeguardHolding()).isTrue();
              assertThat(full.getUntrustedLast()).isTrue();
              assertThat(levelOf(full, Keys.of("shop", "reserve_inventory"))).isEqualTo(1);
              assertThat(levelOf(full, Keys.of("shop", "export_report"))).isEqualTo(1);
              assertThat(levelOf(full, newcomer)).isEqualTo(2);
            });
  }

  @Test
  void watchRoutes_spreadKeyWithACheapMean_keepsTheDefaultLevelWhileAColdKeyGoesLast()
      throws Exception {
    start();
    sidecar.reports().ingest(SidecarTestSupport.threeTypes(120));
    // 95% at 1 ms, 5% at 30 ms: too spread to trust its median, but its mean is a cost.
    ReportBatch.Builder b = ReportBatch.newBuilder().setReporterId("test").setSequence(3);
    for (int i = 0; i < 100; i++) {
      b.addReports(SidecarTestSupport.ack("media", "thumbnail", (i % 20 == 0 ? 30 : 1) * MS));
    }
    b.addReports(SidecarTestSupport.ack("elsewhere", "newcomer", 5 * MS));
    sidecar.reports().ingest(b.build().toByteArray());
    await()
        .atMost(Duration.ofSeconds(5))
        .untilAsserted(
            () -> {
              RouteUpdate full = sidecar.routes().full();
              assertThat(full.getUntrustedLast()).isTrue();
              assertThat(verdictOf(full, Keys.of("media", "thumbnail")))
                  .isEqualTo(Verdict.VERDICT_SPREAD);
              assertThat(levelOf(full, Keys.of("media", "thumbnail"))).isEqualTo(1);
              assertThat(levelOf(full, Keys.of("elsewhere", "newcomer"))).isEqualTo(2);
            });
  }

  /** Feeds the inversion, 5 rounds at a time, until the safeguard holds (at most 300 rounds). */
  private SafeguardInfo invertUntilHolding() {
    SafeguardInfo s = stub.getSafeguard(GetSafeguardRequest.getDefaultInstance());
    int rounds = 0;
    while (!s.getHolding() && rounds < 300) {
      sidecar.reports().ingest(inverted(5));
      rounds += 5;
      s = stub.getSafeguard(GetSafeguardRequest.getDefaultInstance());
    }
    assertThat(s.getHolding()).as("after %d rounds: %s", rounds, s.getReason()).isTrue();
    return s;
  }

  private static int levelOf(RouteUpdate update, String key) {
    return entryOf(update, key).getLevel();
  }

  private static Verdict verdictOf(RouteUpdate update, String key) {
    return entryOf(update, key).getVerdict();
  }

  private static RouteEntry entryOf(RouteUpdate update, String key) {
    return update.getEntriesList().stream()
        .filter(e -> e.getKey().equals(key))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no entry for " + key + " in " + update));
  }

  @Test
  void load_removedSafeguardSettings_failNamingWhatReplacedThem() {
    assertThatThrownBy(() -> SidecarTestSupport.config(dir, "predictor.safeguard-load", "1.5"))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining(
            "predictor.safeguard-load was removed: the global safeguard estimates the gain at a"
                + " per-worker load of 0.8");
    assertThatThrownBy(() -> SidecarTestSupport.config(dir, "predictor.misprediction-exit", "0.9"))
        .hasMessageContaining("predictor.misprediction-exit was removed");
  }

  /** Short proven jobs, many never-seen keys that carry most of the work, and one long key. */
  private static byte[] undecided(int rounds, int first) {
    ReportBatch.Builder b = ReportBatch.newBuilder().setReporterId("test").setSequence(first + 1);
    for (int r = first; r < first + rounds; r++) {
      for (int i = 0; i < 9; i++) {
        b.addReports(SidecarTestSupport.ack("shop", "reserve_inventory", 2 * MS));
      }
      for (int i = 0; i < 10; i++) {
        b.addReports(SidecarTestSupport.ack("tenant" + r + "-" + i, "import", 500 * MS));
      }
      b.addReports(SidecarTestSupport.ack("shop", "export_report", 2000 * MS));
    }
    return b.build().toByteArray();
  }

  @Test
  void watchRoutes_whileTheTailGuardLifts_publishesTheLongKeyAtTheDefaultLevel() throws Exception {
    // The tail guard judges undecided work at the default level, where the seed paper puts it.
    start(PredictorTuning.builder().tailLimit(2).build(), "predictor.untrusted-last", "false");
    sidecar.reports().ingest(undecided(100, 0));
    String export = Keys.of("shop", "export_report");

    SafeguardInfo s = stub.getSafeguard(GetSafeguardRequest.getDefaultInstance());
    assertThat(s.getTailLifting()).as("%s", s).isTrue();
    assertThat(s.getTailWaitRatio()).isGreaterThan(2);
    assertThat(s.getTailLifts()).isEqualTo(1);
    assertThat(s.getHolding()).isFalse();
    assertThat(s.getReason()).contains("last level's wait");
    // A batch lookup routes the long key at the default level and counts it.
    assertThat(
            stub.route(RouteRequest.newBuilder().addKeys(export).build()).getEntries(0).getLevel())
        .isEqualTo(1);
    assertThat(stub.getSafeguard(GetSafeguardRequest.getDefaultInstance()).getLiftedPredictions())
        .isEqualTo(1);
    await()
        .atMost(Duration.ofSeconds(5))
        .untilAsserted(
            () -> {
              RouteUpdate full = sidecar.routes().full();
              assertThat(full.getTailLifting()).isTrue();
              assertThat(full.getMode()).isEqualTo(RoutingMode.ROUTING_MODE_PREDICTIVE);
              assertThat(full.getEntriesList())
                  .filteredOn(e -> e.getKey().equals(export))
                  .singleElement()
                  .satisfies(e -> assertThat(e.getLevel()).isEqualTo(1));
              assertThat(full.getEntriesList())
                  .filteredOn(e -> e.getKey().equals(Keys.of("shop", "reserve_inventory")))
                  .singleElement()
                  .satisfies(e -> assertThat(e.getLevel()).isZero());
            });
    assertThat(sidecar.metrics().scrape())
        .contains("harbinger_safeguard_tail_lifting 1.0")
        .contains("harbinger_safeguard_tail_wait_ratio");
  }

  @Test
  void load_tailLimit_wasRemovedAndSaysWhatBoundsTheTail() {
    for (String value : new String[] {"0.5", "lots", "2"}) {
      assertThatThrownBy(() -> SidecarTestSupport.config(dir, "predictor.tail-limit", value))
          .isInstanceOf(ConfigException.class)
          .hasMessageContaining(
              "predictor.tail-limit was removed: the tail guard is off; predictor.tail-budget"
                  + " bounds the last level's wait");
    }
  }
}
