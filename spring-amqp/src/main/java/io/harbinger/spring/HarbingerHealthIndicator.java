package io.harbinger.spring;

import io.harbinger.predictor.LearningProgress;
import io.harbinger.predictor.Predictor;
import io.harbinger.rabbit.AdapterStats;
import io.harbinger.rabbit.ReportPublisher;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/**
 * Harbinger's part of the actuator's health: {@code UP} while the router has levels to give and
 * reports can be published, {@code UNKNOWN} otherwise, with the counters as details.
 *
 * <p>Harbinger fails open (every message still goes out, at the default level), so it never reports
 * {@code DOWN}: a missing sidecar must not take the application out of service. With the embedded
 * router, {@code learning} says how far it has learned ({@link LearningProgress}): keys trusted and
 * still learning, whether levels and the safeguard's first estimate exist, and whether messages are
 * reordered yet. The status is computed on every call. Thread-safe.
 */
final class HarbingerHealthIndicator implements HealthIndicator {

  private final HarbingerRuntime runtime;

  HarbingerHealthIndicator(HarbingerRuntime runtime) {
    this.runtime = runtime;
  }

  @Override
  public Health health() {
    RouterSource source = runtime.routerSource();
    ReportPublisher publisher = runtime.reportPublisher();
    boolean routing = source.router() != null && source.connected().getAsBoolean();
    boolean reporting = publisher != null;
    AdapterStats stats = runtime.stats();
    Health.Builder health = routing && reporting ? Health.up() : Health.unknown();
    health
        .withDetail("mode", runtime.properties().mode().name().toLowerCase(java.util.Locale.ROOT))
        .withDetail("levels", runtime.properties().levels())
        .withDetail("router", source.description())
        .withDetail("routerConnected", routing)
        .withDetail("learnerConsuming", runtime.learning())
        .withDetail("reportsPublishing", reporting)
        .withDetail("published", stats.published())
        .withDetail("defaultLevelFallbacks", stats.routerFailures() + stats.routerAbsent())
        .withDetail("reports", stats.reports())
        .withDetail(
            "reportsDropped",
            runtime.reportsWithoutPublisher() + (publisher == null ? 0 : publisher.dropped()));
    Predictor embedded = source.embedded();
    if (embedded != null) {
      LearningProgress p = LearningProgress.of(embedded);
      Map<String, Object> learning = new LinkedHashMap<>();
      learning.put("reordering", p.reordering());
      learning.put("trustedKeys", p.trustedKeys());
      learning.put("learningKeys", p.learningKeys());
      learning.put("untrustedKeys", p.untrustedKeys());
      learning.put("levelsPublished", p.boundaries());
      learning.put("safeguardEstimate", p.safeguardEstimate());
      learning.put("safeguardHolding", p.safeguardHolding());
      learning.put("summary", p.describe());
      health.withDetail("learning", learning);
    }
    if (!routing) {
      health.withDetail("note", "messages go out at the default level until the router has levels");
    }
    return health.build();
  }
}
