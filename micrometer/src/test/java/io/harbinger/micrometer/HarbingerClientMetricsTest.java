package io.harbinger.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.harbinger.predictor.Mode;
import io.harbinger.predictor.Outcome;
import io.harbinger.predictor.Prediction;
import io.harbinger.predictor.Router;
import io.harbinger.rabbit.AdapterFixtures;
import io.harbinger.rabbit.AdapterStats;
import io.harbinger.rabbit.ChannelOptions;
import io.harbinger.rabbit.ClientStats;
import io.harbinger.rabbit.DeliveryTimer;
import io.harbinger.rabbit.HarbingerHeaders;
import io.harbinger.rabbit.MessageStamper;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.Map;
import org.junit.jupiter.api.Test;

class HarbingerClientMetricsTest {

  private final AdapterStats stats = new AdapterStats();
  private final ChannelOptions options = ChannelOptions.builder("shop").stats(stats).build();
  private final MessageStamper stamper = MessageStamper.create(options, null);
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

  private double counter(String name, String... tags) {
    return registry.get(name).tags(tags).functionCounter().count();
  }

  @Test
  void adapterCounters_areReadLiveFromTheOneSnapshotView() {
    new HarbingerClientMetrics(ClientStats.source(stats)).bindTo(registry);

    stamper.stamp("", "jobs", "a", 1, null, "bob");
    stamper.stamp("", "jobs", "a", 1, null, null);
    DeliveryTimer timer = DeliveryTimer.create(options);
    timer.handlerDone(
        timer.begin(
            1, false, "shop", null, null, Map.of(HarbingerHeaders.STAMP, "v9;x=1"), null, true),
        true);

    assertThat(counter("harbinger.client.published")).isEqualTo(2);
    assertThat(counter("harbinger.client.fallbacks", "reason", "no_router")).isEqualTo(2);
    assertThat(counter("harbinger.client.fallbacks", "reason", "router_failure")).isZero();
    assertThat(counter("harbinger.client.user.id.replaced")).isEqualTo(1);
    assertThat(counter("harbinger.client.reports")).isEqualTo(1);
    assertThat(counter("harbinger.client.stamps.unreadable")).isEqualTo(1);
    assertThat(counter("harbinger.client.published"))
        .isEqualTo(ClientStats.source(stats).get().published());
  }

  @Test
  void staleRouterFallbacks_areAFallbackReasonOfTheirOwn() {
    Router stale =
        new Router() {
          @Override
          public Prediction route(String key) {
            return Prediction.fallback(1, Outcome.UNAVAILABLE, Mode.PREDICTIVE);
          }

          @Override
          public int levels() {
            return 3;
          }
        };
    MessageStamper staleStamper =
        MessageStamper.create(
            ChannelOptions.builder("shop").stats(stats).router(stale).build(), null);
    PrometheusMeterRegistry prometheus = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    new HarbingerClientMetrics(ClientStats.source(stats)).bindTo(prometheus);

    for (int i = 0; i < 3; i++) {
      staleStamper.stamp("", "jobs", "a", 1, null, null);
    }

    assertThat(prometheus.scrape())
        .contains("harbinger_client_fallbacks_total{reason=\"router_unavailable\"} 3.0")
        .contains("harbinger_client_fallbacks_total{reason=\"router_failure\"} 0.0");
  }

  @Test
  void lanesConsumersHeldDeliveries_areAGaugeWithItsHighWaterMark() {
    new HarbingerClientMetrics(ClientStats.source(stats)).bindTo(registry);

    AdapterFixtures.laneHeldChanged(stats, 3);
    AdapterFixtures.laneHeldChanged(stats, -1);
    AdapterFixtures.laneHandedOff(stats, 2_000_000);

    assertThat(registry.get("harbinger.client.lanes.held").gauge().value()).isEqualTo(2);
    assertThat(registry.get("harbinger.client.lanes.held.max").gauge().value()).isEqualTo(3);
    assertThat(counter("harbinger.client.lanes.handoffs")).isEqualTo(1);
    assertThat(stats.laneHeldMeanMillis()).isEqualTo(2.0);
  }

  @Test
  void pullingLanesConsumersCalls_areCountersOfTheirOwn() {
    new HarbingerClientMetrics(ClientStats.source(stats)).bindTo(registry);

    AdapterFixtures.laneGet(stats);
    AdapterFixtures.laneGet(stats);
    AdapterFixtures.laneEmptyGet(stats);
    AdapterFixtures.laneTakenAhead(stats);

    assertThat(counter("harbinger.client.lanes.gets")).isEqualTo(2);
    assertThat(counter("harbinger.client.lanes.gets.empty")).isEqualTo(1);
    assertThat(counter("harbinger.client.lanes.taken.ahead")).isEqualTo(1);
  }

  @Test
  void partsTheSourceLacks_registerNoMeters() {
    new HarbingerClientMetrics(ClientStats.source(stats)).bindTo(registry);

    assertThat(registry.find("harbinger.client.reports.sent").meters()).isEmpty();
    assertThat(registry.find("harbinger.client.reports.buffered").meters()).isEmpty();
    assertThat(registry.find("harbinger.client.router.consuming").meters()).isEmpty();
    assertThat(registry.find("harbinger.client.router.reports.rejected").meters()).isEmpty();
    assertThat(registry.getMeters())
        .allSatisfy(m -> assertThat(m.getId().getTags()).hasSizeLessThan(2));
  }

  @Test
  void partsThatStartLater_registerTheirMetersAndReadZeroUntilThen() {
    new HarbingerClientMetrics(ClientStats.source(stats).reports(() -> null).router(() -> null))
        .bindTo(registry);

    assertThat(counter("harbinger.client.reports.sent")).isZero();
    assertThat(counter("harbinger.client.reports.dropped")).isZero();
    assertThat(registry.get("harbinger.client.reports.buffered").gauge().value()).isZero();
    assertThat(registry.get("harbinger.client.router.consuming").gauge().value()).isZero();
    assertThat(counter("harbinger.client.router.reports.rejected", "reason", "bad_key")).isZero();
    assertThat(ClientStats.source(stats).reports(() -> null).get().reporting()).isEmpty();
  }

  @Test
  void lateParts_needASupplier() {
    assertThatThrownBy(
            () ->
                ClientStats.source(stats)
                    .reports(
                        (java.util.function.Supplier<io.harbinger.rabbit.ReportPublisher>) null))
        .hasMessage("publisher");
  }

  @Test
  void prometheusNames_followItsConventions() {
    PrometheusMeterRegistry prometheus = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    new HarbingerClientMetrics(ClientStats.source(stats)).bindTo(prometheus);
    stamper.stamp("", "jobs", "a", 1, null, null);

    assertThat(prometheus.scrape())
        .contains("harbinger_client_published_total 1.0")
        .contains("harbinger_client_fallbacks_total{reason=\"no_router\"} 1.0")
        .contains("harbinger_client_stamps_unreadable_total 0.0")
        .doesNotContain("shop");
  }

  @Test
  void binder_needsASource() {
    assertThatThrownBy(() -> new HarbingerClientMetrics(null)).hasMessage("source");
  }

  @Test
  void meters_outliveTheBinderAndItsSource() {
    new HarbingerClientMetrics(ClientStats.source(stats)).bindTo(registry);
    for (int i = 0; i < 3; i++) {
      System.gc();
    }
    stamper.stamp("", "jobs", "a", 1, null, null);

    assertThat(counter("harbinger.client.published")).isEqualTo(1);
  }
}
