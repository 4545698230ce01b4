package io.harbinger.spring;

import io.harbinger.predictor.LearningProgress;
import io.harbinger.predictor.Predictor;
import io.harbinger.rabbit.AdapterStats;
import io.harbinger.rabbit.ReportPublisher;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * Harbinger's part of the actuator's health, independent of the Spring Boot line that shows it: up
 * while the router has levels to give and reports can be published, unknown otherwise, with the
 * counters as details.
 *
 * <p>Harbinger fails open (every message still goes out, at the default level), so it is never
 * down: a missing sidecar must not take the application out of service. With the embedded router,
 * {@code learning} says how far it has learned ({@link LearningProgress}): keys trusted and still
 * learning, whether levels and the safeguard's first estimate exist, and whether messages are
 * reordered yet. Computed on every call. Thread-safe.
 */
final class HarbingerHealth {

  /**
   * One reading.
   *
   * @param up whether the router has levels and reports can be published
   * @param details the details, in a stable order
   */
  record Reading(boolean up, Map<String, Object> details) {}

  private final HarbingerRuntime runtime;

  HarbingerHealth(HarbingerRuntime runtime) {
    this.runtime = runtime;
  }

  Reading read() {
    RouterSource source = runtime.routerSource();
    ReportPublisher publisher = runtime.reportPublisher();
    boolean routing = source.router() != null && source.connected().getAsBoolean();
    boolean reporting = publisher != null;
    AdapterStats stats = runtime.stats();
    Map<String, Object> details = new LinkedHashMap<>();
    details.put("mode", runtime.properties().mode().name().toLowerCase(Locale.ROOT));
    details.put("levels", runtime.properties().levels());
    details.put("router", source.description());
    details.put("routerConnected", routing);
    details.put("learnerConsuming", runtime.learning());
    details.put("reportsPublishing", reporting);
    details.put("published", stats.published());
    details.put("defaultLevelFallbacks", stats.routerFailures() + stats.routerAbsent());
    details.put("reports", stats.reports());
    details.put(
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
      details.put("learning", learning);
    }
    if (!routing) {
      details.put("note", "messages go out at the default level until the router has levels");
    }
    return new Reading(routing && reporting, details);
  }
}
