package io.harbinger.sidecar.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.grpc.stub.StreamObserver;
import io.harbinger.predictor.Keys;
import io.harbinger.predictor.Outcome;
import io.harbinger.predictor.Prediction;
import io.harbinger.proto.v1.RouteEntry;
import io.harbinger.proto.v1.RouteUpdate;
import io.harbinger.proto.v1.RoutingMode;
import io.harbinger.proto.v1.SidecarGrpc;
import io.harbinger.proto.v1.SizeRoute;
import io.harbinger.proto.v1.Verdict;
import io.harbinger.proto.v1.WatchRoutesRequest;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A sidecar that stops answering but keeps its streams open (a hung or stopped process): the
 * router's staleness counts from the last message it received, connected or not.
 */
class SidecarRouterStalenessTest {

  private static final String FAST = Keys.of("shop", "reserve_inventory");

  private final AtomicLong nanos = new AtomicLong(1_000_000_000L);
  private final AtomicInteger watches = new AtomicInteger();
  private final List<StreamObserver<RouteUpdate>> streams = new CopyOnWriteArrayList<>();
  private Server server;
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
    if (server != null) {
      server.shutdownNow();
    }
  }

  private static RouteUpdate table(long version) {
    return RouteUpdate.newBuilder()
        .setFull(true)
        .setVersion(version)
        .setLevels(3)
        .setDefaultLevel(1)
        .setMode(RoutingMode.ROUTING_MODE_PREDICTIVE)
        .addEntries(
            RouteEntry.newBuilder()
                .setKey(FAST)
                .setLevel(0)
                .setVerdict(Verdict.VERDICT_PREDICTED)
                .setEstimateNanos(2e6))
        .build();
  }

  /** A sidecar that sends the table on every watch, then only what the test sends. */
  private void startFakeSidecar() throws Exception {
    String name = InProcessServerBuilder.generateName();
    server =
        InProcessServerBuilder.forName(name)
            .addService(
                new SidecarGrpc.SidecarImplBase() {
                  @Override
                  public void watchRoutes(
                      WatchRoutesRequest request, StreamObserver<RouteUpdate> observer) {
                    watches.incrementAndGet();
                    streams.add(observer);
                    observer.onNext(table(watches.get()));
                  }
                })
            .build()
            .start();
    channel = InProcessChannelBuilder.forName(name).build();
    router = new SidecarRouter(channel, 3, Duration.ofSeconds(5), nanos::get, "test", null);
    router.start();
    await().atMost(Duration.ofSeconds(5)).until(() -> router.route(FAST).isPredicted());
  }

  @Test
  void route_streamOpenButSilentPastTheLimit_fallsBack_andTheStreamIsReopened() throws Exception {
    startFakeSidecar();
    assertThat(router.isConnected()).isTrue();

    nanos.addAndGet(Duration.ofSeconds(6).toNanos()); // the sidecar is stopped: nothing arrives

    assertThat(router.route(FAST).outcome()).isEqualTo(Outcome.UNAVAILABLE);
    assertThat(router.route(FAST).level()).isEqualTo(1);
    assertThat(router.isConnected()).isFalse();
    assertThat(router.unavailableFallbacks()).isPositive();
    // The watchdog cancels the silent stream; the new stream's table makes the router fresh again.
    await().atMost(Duration.ofSeconds(10)).until(() -> watches.get() >= 2);
    await().atMost(Duration.ofSeconds(5)).until(() -> router.route(FAST).isPredicted());
    assertThat(router.staleCancels()).isPositive();
  }

  @Test
  void route_heartbeatsKeepAQuietSidecarFresh() throws Exception {
    startFakeSidecar();
    RouteUpdate beat =
        RouteUpdate.newBuilder()
            .setHeartbeat(true)
            .setVersion(1)
            .setLevels(3)
            .setDefaultLevel(1)
            .setMode(RoutingMode.ROUTING_MODE_PREDICTIVE)
            .build();
    for (int i = 0; i < 4; i++) {
      nanos.addAndGet(Duration.ofSeconds(3).toNanos());
      streams.get(0).onNext(beat);
      long expected = nanos.get();
      await().atMost(Duration.ofSeconds(5)).until(() -> router.lastMessageNanos() == expected);
    }

    assertThat(router.route(FAST).isPredicted()).isTrue();
    assertThat(router.version()).isEqualTo(1);
    assertThat(watches.get()).isEqualTo(1);
  }

  @Test
  void route_sizeRoutes_garbageIgnored_completeListReplacesTheLast() throws Exception {
    startFakeSidecar();
    String cold = Keys.of("shop", "thumbnail");
    RouteUpdate.Builder change =
        table(2).toBuilder()
            .setFull(false)
            .clearEntries()
            .addSizeRoutes(SizeRoute.newBuilder().setBin(6).setLevel(0).setEstimateNanos(2e6))
            .addSizeRoutes(SizeRoute.newBuilder().setBin(70).setLevel(0))
            .addSizeRoutes(SizeRoute.newBuilder().setBin(-1).setLevel(0))
            .addSizeRoutes(SizeRoute.newBuilder().setBin(7).setLevel(9))
            .addSizeRoutes(SizeRoute.newBuilder().setBin(8).setLevel(-2));
    streams.get(0).onNext(change.build());
    await().atMost(Duration.ofSeconds(5)).until(() -> router.version() == 2);

    assertThat(router.route(cold, 100))
        .extracting(Prediction::level, Prediction::outcome)
        .containsExactly(0, Outcome.BORROWED);
    assertThat(router.route(cold, 200).outcome()).isEqualTo(Outcome.COLD);
    assertThat(router.route(cold, 300).outcome()).isEqualTo(Outcome.COLD);
    assertThat(router.route(cold, -5).outcome()).isEqualTo(Outcome.COLD);
    assertThat(router.route(FAST, 100).outcome()).isEqualTo(Outcome.PREDICTED);

    // The next update lends nothing by size: its empty list replaces the last.
    streams.get(0).onNext(table(3).toBuilder().setFull(false).clearEntries().build());
    await().atMost(Duration.ofSeconds(5)).until(() -> router.version() == 3);
    assertThat(router.route(cold, 100).outcome()).isEqualTo(Outcome.COLD);
  }
}
