package io.harbinger.spring;

import io.harbinger.micrometer.HarbingerClientMetrics;
import io.harbinger.micrometer.HarbingerTimers;
import io.harbinger.rabbit.ClientStats;
import io.harbinger.rabbit.ReportSink;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;

/**
 * Harbinger's meters, bound to the application's Micrometer registry when it has one: the client
 * meters every Harbinger client has ({@link HarbingerClientMetrics}, {@code harbinger.client.*},
 * over the runtime's {@link ClientStats}), and three that only the Spring integration counts. No
 * meter carries a key or a job type as a tag (their number is unbounded).
 *
 * <p>The report publisher and the embedded router start at the application's first connection,
 * after the registry binds its meters, so their meters read them through suppliers and show 0 until
 * they run.
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

  /**
   * Returns the runtime's client counters as the client meters read them.
   *
   * @return a source over the runtime's channel counters, report publisher and, with the embedded
   *     router, that router
   */
  ClientStats.Source source() {
    ClientStats.Source source =
        ClientStats.source(runtime.stats()).reports(runtime::reportPublisher);
    return runtime.routerSource().embedded() == null
        ? source
        : source.router(runtime::embeddedRouter);
  }

  @Override
  public void bindTo(MeterRegistry registry) {
    new HarbingerClientMetrics(source()).bindTo(registry);
    runtime.observeReports(
        new HarbingerTimers(registry, runtime.properties().levels(), ReportSink.NO_OP));
    FunctionCounter.builder(
            "harbinger.client.reports.unsent", runtime, r -> r.reportsWithoutPublisher())
        .description(
            "Reports dropped because no report publisher ran (before the first connection, or it"
                + " could not start)")
        .register(registry);
    FunctionCounter.builder(
            "harbinger.client.listener.batches.untimed", advice, a -> a.untimedBatches())
        .description("Batch-listener invocations not reported")
        .register(registry);
    Gauge.builder(
            "harbinger.client.router.connected",
            runtime,
            r ->
                r.routerSource().router() != null && r.routerSource().connected().getAsBoolean()
                    ? 1
                    : 0)
        .description("1 while the router has levels to give")
        .register(registry);
  }
}
