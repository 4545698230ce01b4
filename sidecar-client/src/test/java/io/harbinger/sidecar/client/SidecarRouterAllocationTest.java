package io.harbinger.sidecar.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.grpc.stub.StreamObserver;
import io.harbinger.predictor.Keys;
import io.harbinger.proto.v1.RouteEntry;
import io.harbinger.proto.v1.RouteUpdate;
import io.harbinger.proto.v1.RoutingMode;
import io.harbinger.proto.v1.SidecarGrpc;
import io.harbinger.proto.v1.Verdict;
import io.harbinger.proto.v1.WatchRoutesRequest;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The allocation guard of routing by the sidecar's table: with 10,000 keys in the table, routing a
 * known key is a map read of a verdict made once per table, and allocates nothing. The JVM's
 * per-thread allocation counter is exact; the smallest of several rounds after a warm-up counts.
 */
class SidecarRouterAllocationTest {

  private static final int KEYS = 10_000;
  private static final int ROUNDS = 5;
  private static final int PER_ROUND = 200_000;

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

  private static RouteUpdate table() {
    RouteUpdate.Builder u =
        RouteUpdate.newBuilder()
            .setFull(true)
            .setVersion(1)
            .setLevels(3)
            .setDefaultLevel(1)
            .setMode(RoutingMode.ROUTING_MODE_PREDICTIVE);
    for (int k = 0; k < KEYS; k++) {
      u.addEntries(
          RouteEntry.newBuilder()
              .setKey(Keys.of("shop", "job-" + k))
              .setLevel(k % 3)
              .setVerdict(Verdict.VERDICT_PREDICTED)
              .setEstimateNanos(1e6 * (1 + k % 50)));
    }
    return u.build();
  }

  @Test
  void routingAKnownKey_allocatesNothing() throws Exception {
    String name = InProcessServerBuilder.generateName();
    server =
        InProcessServerBuilder.forName(name)
            .addService(
                new SidecarGrpc.SidecarImplBase() {
                  @Override
                  public void watchRoutes(
                      WatchRoutesRequest request, StreamObserver<RouteUpdate> observer) {
                    observer.onNext(table());
                  }
                })
            .build()
            .start();
    channel = InProcessChannelBuilder.forName(name).build();
    router = new SidecarRouter(channel, 3, Duration.ofMinutes(5), System::nanoTime, "test", null);
    router.start();
    String[] keys = new String[64];
    for (int i = 0; i < keys.length; i++) {
      keys[i] = Keys.of("shop", "job-" + (i * 151 % KEYS));
    }
    await().atMost(Duration.ofSeconds(10)).until(() -> router.route(keys[0]).isPredicted());
    assertThat(router.route(keys[1]).level()).isEqualTo((151 % KEYS) % 3);

    com.sun.management.ThreadMXBean threads =
        (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    long sink = 0;
    for (int i = 0; i < PER_ROUND; i++) {
      sink += router.route(keys[i & 63]).level();
    }
    long perRoute = Long.MAX_VALUE;
    for (int round = 0; round < ROUNDS; round++) {
      long before = threads.getCurrentThreadAllocatedBytes();
      for (int i = 0; i < PER_ROUND; i++) {
        sink += router.route(keys[i & 63]).level();
      }
      perRoute =
          Math.min(perRoute, (threads.getCurrentThreadAllocatedBytes() - before) / PER_ROUND);
    }
    System.out.printf("allocation per route by the sidecar's table: %d B (%d)%n", perRoute, sink);
    assertThat(perRoute).isZero();
  }
}
