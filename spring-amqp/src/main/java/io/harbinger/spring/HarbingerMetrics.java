package io.harbinger.spring;

import io.harbinger.rabbit.AdapterStats;
import io.harbinger.rabbit.ReportPublisher;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.function.ToDoubleFunction;

/**
 * Harbinger's meters, bound to the application's Micrometer registry when it has one: publishes,
 * default-level fallbacks, reports and their drops, untimed batches and the router's state. No
 * meter carries a key or a job type as a tag (their number is unbounded).
 *
 * <p>Thread-safe: every meter reads a counter when scraped.
 */
final class HarbingerMetrics implements MeterBinder {

  private final HarbingerRuntime runtime;
  private final HarbingerListenerAdvice advice;

  HarbingerMetrics(HarbingerRuntime runtime, HarbingerListenerAdvice advice) {
    this.runtime = runtime;
    this.advice = advice;
  }

  @Override
  public void bindTo(MeterRegistry registry) {
    AdapterStats stats = runtime.stats();
    counter(registry, "harbinger.published", "Messages stamped", s -> s.published(), stats);
    FunctionCounter.builder("harbinger.fallbacks", stats, s -> s.routerFailures())
        .tag("reason", "router_failure")
        .description("Messages sent at the default level")
        .register(registry);
    FunctionCounter.builder("harbinger.fallbacks", stats, s -> s.routerAbsent())
        .tag("reason", "no_router")
        .description("Messages sent at the default level")
        .register(registry);
    FunctionCounter.builder("harbinger.fallbacks", stats, s -> s.invalidLevels())
        .tag("reason", "invalid_level")
        .description("Messages sent at the default level")
        .register(registry);
    counter(
        registry,
        "harbinger.user.id.replaced",
        "Foreign user-ids replaced",
        s -> s.userIdReplaced(),
        stats);
    counter(registry, "harbinger.reports", "Duration reports made", s -> s.reports(), stats);
    counter(registry, "harbinger.reports.censored", "Censored reports", s -> s.censored(), stats);
    counter(
        registry,
        "harbinger.settles.unmatched",
        "Settlements of untracked deliveries",
        s -> s.unmatchedSettles(),
        stats);
    counter(
        registry,
        "harbinger.stamps.unreadable",
        "Deliveries whose x-harbinger stamp could not be read (processed at unknown level)",
        s -> s.unreadableStamps(),
        stats);
    counter(
        registry,
        "harbinger.prefetch.warnings",
        "Prefetch warnings logged",
        s -> s.prefetchWarnings(),
        stats);
    FunctionCounter.builder(
            "harbinger.reports.dropped",
            runtime,
            r -> {
              ReportPublisher p = r.reportPublisher();
              return r.reportsWithoutPublisher() + (p == null ? 0 : p.dropped());
            })
        .description("Reports dropped: no connection, buffer full, or a failed batch")
        .register(registry);
    FunctionCounter.builder("harbinger.listener.batches.untimed", advice, a -> a.untimedBatches())
        .description("Batch-listener invocations not reported")
        .register(registry);
    Gauge.builder(
            "harbinger.router.connected",
            runtime,
            r ->
                r.routerSource().router() != null && r.routerSource().connected().getAsBoolean()
                    ? 1
                    : 0)
        .description("1 while the router has levels to give")
        .register(registry);
  }

  private static void counter(
      MeterRegistry registry,
      String name,
      String description,
      ToDoubleFunction<AdapterStats> f,
      AdapterStats stats) {
    FunctionCounter.builder(name, stats, f).description(description).register(registry);
  }
}
