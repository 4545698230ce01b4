package io.harbinger.sidecar;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.grpc.ManagedChannel;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.harbinger.predictor.Outcome;
import io.harbinger.rabbit.AdapterStats;
import io.harbinger.rabbit.ChannelOptions;
import io.harbinger.rabbit.ClientStats;
import io.harbinger.rabbit.MessageStamper;
import io.harbinger.sidecar.client.SidecarRouter;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Publishes that fall back because the sidecar's table went stale are counted where the other
 * fallbacks are: in the wrapped channels' counters and their one snapshot view, not only by the
 * router.
 */
class StaleRouterFallbacksTest {

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

  @Test
  void stamp_throughARouterWhoseSidecarStopped_countsEachFallbackInAdapterStats() throws Exception {
    String name = InProcessServerBuilder.generateName();
    sidecar =
        Sidecar.start(SidecarTestSupport.config(dir), InProcessServerBuilder.forName(name), false);
    channel = InProcessChannelBuilder.forName(name).build();
    router = SidecarRouter.watch(channel, 3, Duration.ofMillis(300), null);
    await().atMost(Duration.ofSeconds(10)).until(router::isConnected);
    AdapterStats stats = new AdapterStats();
    MessageStamper stamper =
        MessageStamper.create(
            ChannelOptions.builder("shop").router(router).stats(stats).build(), null);
    stamper.stamp("", "jobs", "send_email", 0, null, null);
    assertThat(stats.routerUnavailable()).isZero();

    sidecar.close();
    sidecar = null;
    // The router serves its last table until it is older than the staleness limit.
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> router.route("shop\u001fsend_email").outcome() == Outcome.UNAVAILABLE);
    long before = router.unavailableFallbacks();
    for (int i = 0; i < 10; i++) {
      stamper.stamp("", "jobs", "send_email", 0, null, null);
    }

    assertThat(router.unavailableFallbacks() - before).isEqualTo(10);
    assertThat(stats.routerUnavailable()).isEqualTo(10);
    assertThat(ClientStats.source(stats).get().routerUnavailable()).isEqualTo(10);
    assertThat(stats.published()).isEqualTo(11);
  }
}
