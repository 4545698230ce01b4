package io.harbinger.sidecar;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.grpc.ManagedChannel;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.harbinger.predictor.Keys;
import io.harbinger.predictor.Mode;
import io.harbinger.predictor.Outcome;
import io.harbinger.predictor.Prediction;
import io.harbinger.proto.v1.ReportBatch;
import io.harbinger.proto.v1.RoutingMode;
import io.harbinger.proto.v1.SetModeRequest;
import io.harbinger.proto.v1.SidecarGrpc;
import io.harbinger.sidecar.client.SidecarRouter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SidecarRouterTest {

  private static final String FAST = Keys.of("shop", "reserve_inventory");
  private static final String SLOW = Keys.of("shop", "export_report");

  @TempDir Path dir;

  private Sidecar sidecar;
  private ManagedChannel channel;
  private SidecarRouter router;

  @AfterEach
  void stop() {
    if (router != null) {
      router.close();
    }
    if (channel != null) {
      channel.shutdownNow();
    }
    if (sidecar != null) {
      sidecar.close();
    }
  }

  private String startSidecar(String... overrides) throws Exception {
    String name = InProcessServerBuilder.generateName();
    sidecar =
        Sidecar.start(
            SidecarTestSupport.config(dir, overrides), InProcessServerBuilder.forName(name), false);
    return name;
  }

  @Test
  void route_followsTheSidecarsTableAndItsMode() throws Exception {
    String name = startSidecar();
    channel = InProcessChannelBuilder.forName(name).build();
    router = SidecarRouter.watch(channel, 3, Duration.ofSeconds(30), null);
    assertThat(router.route(FAST).level()).isEqualTo(1); // nothing learned yet
    assertThat(router.route(Keys.of("shop", "unknown")).level()).isEqualTo(1);

    // Enough reports for the global safeguard to judge (200 decayed), so untrusted keys go last.
    sidecar.reports().ingest(SidecarTestSupport.threeTypes(200));
    await().atMost(Duration.ofSeconds(5)).until(() -> router.route(FAST).isPredicted());
    assertThat(router.route(FAST).level()).isZero();
    assertThat(router.route(SLOW).level()).isEqualTo(2);
    // A key the table does not hold is routed as the sidecar routes untrusted keys: last.
    await()
        .atMost(Duration.ofSeconds(5))
        .until(() -> router.route(Keys.of("shop", "unknown")).level() == 2);
    assertThat(router.route(Keys.of("shop", "unknown")))
        .extracting(Prediction::level, Prediction::predictedLevel, Prediction::outcome)
        .containsExactly(2, 2, Outcome.COLD);

    SidecarGrpc.newBlockingStub(channel)
        .setMode(SetModeRequest.newBuilder().setMode(RoutingMode.ROUTING_MODE_SHADOW).build());
    await().atMost(Duration.ofSeconds(5)).until(() -> router.route(FAST).mode() == Mode.SHADOW);
    Prediction shadow = router.route(FAST);
    assertThat(shadow.level()).isEqualTo(1);
    assertThat(shadow.predictedLevel()).isZero();
    assertThat(router.route(Keys.of("shop", "unknown")))
        .extracting(Prediction::level, Prediction::predictedLevel)
        .containsExactly(1, 1);
  }

  @Test
  void route_untrustedKeysAtTheDefaultLevel_keepsUnknownKeysThere() throws Exception {
    String name = startSidecar("predictor.untrusted-last", "false");
    channel = InProcessChannelBuilder.forName(name).build();
    router = SidecarRouter.watch(channel, 3, Duration.ofSeconds(30), null);
    sidecar.reports().ingest(SidecarTestSupport.threeTypes(200));
    await().atMost(Duration.ofSeconds(5)).until(() -> router.route(FAST).isPredicted());
    assertThat(router.route(Keys.of("shop", "unknown")))
        .extracting(Prediction::level, Prediction::predictedLevel, Prediction::outcome)
        .containsExactly(1, 1, Outcome.COLD);
  }

  @Test
  void route_untrustedKeyTheSidecarPlacesBelowTheDefault_isRoutedThere() throws Exception {
    String name = startSidecar();
    channel = InProcessChannelBuilder.forName(name).build();
    router = SidecarRouter.watch(channel, 3, Duration.ofSeconds(30), null);
    sidecar.reports().ingest(SidecarTestSupport.threeTypes(40));
    // A new job type seen five times, every time at about 5 s: cold, and placed by its evidence,
    // beyond the top boundary (which the tail budget sets inside the 2 s type's mass).
    ReportBatch.Builder b = ReportBatch.newBuilder().setReporterId("test").setSequence(2);
    for (int i = 0; i < 5; i++) {
      b.addReports(SidecarTestSupport.ack("shop", "new_export", 5000 * SidecarTestSupport.MS));
    }
    sidecar.reports().ingest(b.build().toByteArray());
    String key = Keys.of("shop", "new_export");
    await().atMost(Duration.ofSeconds(5)).until(() -> router.route(key).level() == 2);
    assertThat(router.route(key).outcome()).isEqualTo(Outcome.COLD);
  }

  @Test
  void route_coldKeyWithASizeHint_takesTheSizeRouteOfItsBin() throws Exception {
    String name = startSidecar();
    channel = InProcessChannelBuilder.forName(name).build();
    router = SidecarRouter.watch(channel, 3, Duration.ofSeconds(30), null);
    sidecar.reports().ingest(SidecarTestSupport.threeTypes(200));
    // Sixty kinds of the shop's, ten reports each (all cold): small ones of about 2 ms, large ones
    // of about 2 s. The shop's own aggregate is spread, so only the size bins lend.
    ReportBatch.Builder sized = ReportBatch.newBuilder().setReporterId("sized").setSequence(1);
    for (int kind = 0; kind < 30; kind++) {
      for (int i = 0; i < 10; i++) {
        sized.addReports(
            SidecarTestSupport.ack("shop", "small_" + kind, 2_000_000 + 10_000 * i).toBuilder()
                .setSize(100 + i));
        sized.addReports(
            SidecarTestSupport.ack("shop", "large_" + kind, 2_000_000_000L + 10_000_000L * i)
                .toBuilder()
                .setSize(1_000_000 + i));
      }
    }
    sidecar.reports().ingest(sized.build().toByteArray());
    String thumbnail = Keys.of("shop", "thumbnail");

    await()
        .atMost(Duration.ofSeconds(5))
        .until(() -> router.route(thumbnail, 120).outcome() == Outcome.BORROWED);
    assertThat(router.route(thumbnail, 120))
        .extracting(Prediction::level, Prediction::outcome)
        .containsExactly(0, Outcome.BORROWED);
    assertThat(router.route(thumbnail, 120).estimateNanos()).isBetween(1.5e6, 2.5e6);
    assertThat(router.route(thumbnail, 1_000_050))
        .extracting(Prediction::level, Prediction::outcome)
        .containsExactly(2, Outcome.BORROWED);
    // The sidecar's own verdict agrees with the route it sent.
    assertThat(sidecar.predictor().predict(thumbnail, 120).level()).isZero();
    // A bin nobody's jobs fell in, no hint, or a key with its own estimate: the table as before.
    assertThat(router.route(thumbnail, 5_000_000_000L).outcome()).isEqualTo(Outcome.COLD);
    assertThat(router.route(thumbnail).outcome()).isEqualTo(Outcome.COLD);
    assertThat(router.route(SLOW, 120))
        .extracting(Prediction::level, Prediction::outcome)
        .containsExactly(2, Outcome.PREDICTED);
  }

  @Test
  void route_sidecarGone_keepsTheLastTableThenFallsBackAfterStaleness() throws Exception {
    String name = startSidecar();
    sidecar.reports().ingest(SidecarTestSupport.threeTypes(40));
    channel = InProcessChannelBuilder.forName(name).build();
    router = SidecarRouter.watch(channel, 3, Duration.ofMillis(1500), null);
    await().atMost(Duration.ofSeconds(5)).until(() -> router.route(FAST).isPredicted());

    sidecar.close();
    sidecar = null;
    // Right after the loss the last table still answers.
    assertThat(router.route(FAST).level()).isZero();
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> router.route(FAST).outcome() == Outcome.UNAVAILABLE);
    assertThat(router.route(FAST).level()).isEqualTo(1);
    assertThat(router.unavailableFallbacks()).isPositive();
    assertThat(router.reconnects()).isPositive();
  }

  @Test
  void route_neverBlocks_evenWithoutAnySidecar() {
    channel = InProcessChannelBuilder.forName("nobody-listens-here").build();
    router = SidecarRouter.watch(channel, 5, Duration.ofSeconds(1), null);
    long start = System.nanoTime();
    for (int i = 0; i < 10_000; i++) {
      assertThat(router.route(FAST).level()).isEqualTo(2);
    }
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(2));
  }

  @Test
  void watch_badArguments_areRefused() {
    channel = InProcessChannelBuilder.forName("x").build();
    assertThatThrownBy(() -> SidecarRouter.watch(channel, 11, Duration.ofSeconds(1), null))
        .hasMessage("levels must be in [2, 10]: 11");
    assertThatThrownBy(() -> SidecarRouter.watch(channel, 3, Duration.ZERO, null))
        .hasMessageContaining("staleAfter must be positive");
  }

  @Test
  void token_requiredOnEveryCallButHealth() throws Exception {
    Path token = dir.resolve("token");
    Files.writeString(token, "tok-123\n");
    String name = startSidecar("grpc.token-file", token.toString());
    sidecar.reports().ingest(SidecarTestSupport.threeTypes(40));
    channel = InProcessChannelBuilder.forName(name).build();

    SidecarRouter anonymous = SidecarRouter.watch(channel, 3, Duration.ofSeconds(30), null);
    router = SidecarRouter.watch(channel, 3, Duration.ofSeconds(30), "tok-123");
    try {
      await().atMost(Duration.ofSeconds(5)).until(() -> router.route(FAST).isPredicted());
      assertThat(anonymous.isConnected()).isFalse();
      assertThat(anonymous.route(FAST).outcome()).isEqualTo(Outcome.UNAVAILABLE);
    } finally {
      anonymous.close();
    }
    assertThatThrownBy(
            () ->
                SidecarGrpc.newBlockingStub(channel)
                    .listKeys(io.harbinger.proto.v1.ListKeysRequest.getDefaultInstance()))
        .hasMessageContaining("UNAUTHENTICATED");
    assertThat(
            io.grpc.health.v1.HealthGrpc.newBlockingStub(channel)
                .check(io.grpc.health.v1.HealthCheckRequest.getDefaultInstance())
                .getStatus())
        .isEqualTo(io.grpc.health.v1.HealthCheckResponse.ServingStatus.SERVING);
  }

  @Test
  void watchRoutes_idleStream_carriesHeartbeatsWithTheLastVersion() throws Exception {
    String name = startSidecar("routes.heartbeat-interval", "100ms");
    channel = InProcessChannelBuilder.forName(name).build();
    java.util.Iterator<io.harbinger.proto.v1.RouteUpdate> stream =
        SidecarGrpc.newBlockingStub(channel)
            .withDeadlineAfter(10, java.util.concurrent.TimeUnit.SECONDS)
            .watchRoutes(io.harbinger.proto.v1.WatchRoutesRequest.getDefaultInstance());

    io.harbinger.proto.v1.RouteUpdate first = stream.next();
    io.harbinger.proto.v1.RouteUpdate second = stream.next();
    io.harbinger.proto.v1.RouteUpdate third = stream.next();

    assertThat(first.getFull()).isTrue();
    assertThat(second.getHeartbeat()).isTrue();
    assertThat(third.getHeartbeat()).isTrue();
    assertThat(second.getVersion()).isEqualTo(first.getVersion());
    assertThat(second.getEntriesCount()).isZero();
    assertThat(third.getPublishedAtMicros()).isGreaterThan(first.getPublishedAtMicros());
  }
}
