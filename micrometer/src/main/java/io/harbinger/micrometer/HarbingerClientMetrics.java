package io.harbinger.micrometer;

import io.harbinger.predictor.LearningProgress;
import io.harbinger.rabbit.ClientStats;
import io.harbinger.rabbit.IngestStats;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.Objects;
import java.util.function.ToDoubleFunction;
import java.util.function.ToLongFunction;

/**
 * Binds Harbinger's client-side counters ({@link ClientStats}) to a Micrometer registry: what the
 * wrapped channels stamped and reported, and, where the source has them, the report publisher's and
 * the embedded router's counters.
 *
 * <p>Example:
 *
 * <pre>{@code
 * new HarbingerClientMetrics(ClientStats.source(options.stats()).reports(publisher))
 *     .bindTo(registry);
 * // Prometheus: harbinger_client_published_total, harbinger_client_fallbacks_total{reason=...},
 * // harbinger_client_reports_dropped_total, harbinger_client_reports_buffered, ...
 * }</pre>
 *
 * <p>Every meter is a function counter or gauge that reads one snapshot when the registry asks, so
 * recording costs the publish path nothing. The meters hold the source strongly (Micrometer holds a
 * meter's state object weakly, and nothing else need keep this binder or its source). No meter
 * carries a key, a job type or a queue as a tag: tags are closed sets (reason, result). Meters of a
 * part the source lacks (no report publisher, no embedded router) are not registered; a part the
 * source will have once it starts ({@link ClientStats.Source#reports(java.util.function.Supplier)})
 * reads 0 until then.
 *
 * <p>Thread-safe.
 */
public final class HarbingerClientMetrics implements MeterBinder {

  private final ClientStats.Source source;

  /**
   * Creates the binder.
   *
   * @param source the process's counters
   */
  public HarbingerClientMetrics(ClientStats.Source source) {
    this.source = Objects.requireNonNull(source, "source");
  }

  @Override
  public void bindTo(MeterRegistry registry) {
    counter(registry, "harbinger.client.published", "Messages stamped", ClientStats::published);
    fallback(registry, "router_failure", ClientStats::routerFailures);
    fallback(registry, "no_router", ClientStats::routerAbsent);
    fallback(registry, "invalid_level", ClientStats::invalidLevels);
    fallback(registry, "router_unavailable", ClientStats::routerUnavailable);
    counter(
        registry,
        "harbinger.client.user.id.replaced",
        "Caller user-id values replaced by the connection's user",
        ClientStats::userIdReplaced);
    counter(registry, "harbinger.client.reports", "Duration reports made", ClientStats::reports);
    counter(
        registry,
        "harbinger.client.reports.censored",
        "Censored reports: redeliveries whose earlier attempt never settled",
        ClientStats::censored);
    counter(
        registry,
        "harbinger.client.settles.unmatched",
        "Settlements of deliveries the wrapper was not tracking",
        ClientStats::unmatchedSettles);
    counter(
        registry,
        "harbinger.client.report.sink.failures",
        "Reports lost because the report sink threw",
        ClientStats::sinkFailures);
    counter(
        registry,
        "harbinger.client.prefetch.warnings",
        "Prefetch warnings logged",
        ClientStats::prefetchWarnings);
    counter(
        registry,
        "harbinger.client.stamps.unreadable",
        "Deliveries whose x-harbinger stamp could not be read (processed at unknown level)",
        ClientStats::unreadableStamps);
    counter(
        registry,
        "harbinger.client.size.hints.invalid",
        "Messages whose x-size-hint header held no non-negative integer (body length used)",
        ClientStats::invalidSizeHints);
    counter(
        registry,
        "harbinger.client.lanes.handoffs",
        "Deliveries lanes consumers handed to the application",
        ClientStats::laneHandoffs);
    counter(
        registry,
        "harbinger.client.lanes.gets",
        "basic.get calls of pulling lanes consumers that took a message",
        ClientStats::laneGets);
    counter(
        registry,
        "harbinger.client.lanes.gets.empty",
        "basic.get calls of pulling lanes consumers that found their lane empty",
        ClientStats::laneEmptyGets);
    counter(
        registry,
        "harbinger.client.lanes.taken.ahead",
        "Messages pulling lanes consumers took ahead while the application ran a job",
        ClientStats::laneTakenAhead);
    Gauge.builder("harbinger.client.lanes.held", source, s -> source.get().laneHeld())
        .description("Deliveries lanes consumers hold, received but not yet handed on")
        .register(registry);
    Gauge.builder("harbinger.client.lanes.held.max", source, s -> source.get().laneHeldMax())
        .description("The most deliveries lanes consumers held at once")
        .register(registry);
    if (source.hasReporting()) {
      bindReporting(registry);
    }
    if (source.hasRouting()) {
      bindRouting(registry);
    }
  }

  private void bindReporting(MeterRegistry registry) {
    reporting(
        registry,
        "harbinger.client.reports.sent",
        "Reports confirmed and routed to a queue",
        r -> r.sent());
    reporting(
        registry,
        "harbinger.client.reports.unroutable",
        "Reports confirmed but routed to no queue: nothing bound to the reports exchange",
        r -> r.unroutable());
    reporting(
        registry,
        "harbinger.client.reports.dropped",
        "Reports dropped: buffer full, publisher closed or batch failed",
        r -> r.dropped());
    FunctionCounter.builder(
            "harbinger.client.report.batches", source, s -> readReporting(r -> r.batches()))
        .description("Report batches, by result")
        .tag("result", "confirmed")
        .register(registry);
    FunctionCounter.builder(
            "harbinger.client.report.batches", source, s -> readReporting(r -> r.failedBatches()))
        .description("Report batches, by result")
        .tag("result", "failed")
        .register(registry);
    Gauge.builder(
            "harbinger.client.reports.buffered", source, s -> readReporting(r -> r.buffered()))
        .description("Reports waiting in the publisher's buffer")
        .register(registry);
    Gauge.builder(
            "harbinger.client.reporter.blocked",
            source,
            s -> readReporting(r -> r.blocked() ? 1 : 0))
        .description("1 while RabbitMQ blocks the report connection")
        .register(registry);
    Gauge.builder(
            "harbinger.client.reporter.identity.refused",
            source,
            s -> readReporting(r -> r.identityRefused() ? 1 : 0))
        .description("1 once RabbitMQ refused the report batches' user-id")
        .register(registry);
  }

  private void bindRouting(MeterRegistry registry) {
    routing(
        registry,
        "harbinger.client.router.lookup.failures",
        "Router lookups that failed and went to the default level",
        r -> r.lookupFailures());
    Gauge.builder(
            "harbinger.client.router.consuming",
            source,
            s -> readRouting(r -> r.consuming() ? 1 : 0))
        .description("1 while the embedded router's report consumer is up")
        .register(registry);
    bindLearning(registry);
    ingest(
        registry,
        "harbinger.client.router.report.batches",
        "Report batches read",
        b -> b.batches());
    ingest(
        registry,
        "harbinger.client.router.reports.learned",
        "Acknowledged durations learned",
        IngestStats::learned);
    ingest(
        registry,
        "harbinger.client.router.reports.censored",
        "Censored observations learned",
        IngestStats::censored);
    ingest(
        registry,
        "harbinger.client.router.reports.not.learned",
        "Nacks and rejects (counted, never learned)",
        IngestStats::notLearned);
    rejected(registry, "malformed_batch", IngestStats::malformedBatches);
    rejected(registry, "oversized_batch", IngestStats::oversizedBatches);
    rejected(registry, "bad_outcome", IngestStats::rejectedOutcomes);
    rejected(registry, "bad_key", IngestStats::rejectedKeys);
    rejected(registry, "bad_duration", IngestStats::rejectedDurations);
    rejected(registry, "untracked_key", IngestStats::untracked);
    rejected(registry, "untrusted_batch", IngestStats::untrustedBatches);
    rejected(registry, "forged_report", IngestStats::forgedReports);
    rejected(registry, "reporter_key_limit", IngestStats::reporterKeyLimit);
    rejected(registry, "bad_dropped_count", IngestStats::rejectedDropCounts);
  }

  /** How far the embedded router has learned, read at most once a second (it walks the keys). */
  private void bindLearning(MeterRegistry registry) {
    LearningReader learning = new LearningReader(source);
    Gauge.builder("harbinger.client.keys", learning, l -> l.read(LearningProgress::trustedKeys))
        .description("Keys the embedded router routes by their own estimate")
        .tag("state", "trusted")
        .register(registry);
    Gauge.builder("harbinger.client.keys", learning, l -> l.read(LearningProgress::learningKeys))
        .description(
            "Keys still learning (fewer observations than min-observations, or no levels yet)")
        .tag("state", "learning")
        .register(registry);
    Gauge.builder("harbinger.client.keys", learning, l -> l.read(LearningProgress::untrustedKeys))
        .description("Keys with enough observations that fall back (spread, misprediction)")
        .tag("state", "untrusted")
        .register(registry);
    Gauge.builder("harbinger.client.reordering", learning, l -> l.read(p -> p.reordering() ? 1 : 0))
        .description("1 while learned levels reorder messages")
        .register(registry);
    Gauge.builder(
            "harbinger.client.safeguard.estimated",
            learning,
            l -> l.read(p -> p.safeguardEstimate() ? 1 : 0))
        .description("1 once the global safeguard has its first estimate")
        .register(registry);
    Gauge.builder(
            "harbinger.client.safeguard.holding",
            learning,
            l -> l.read(p -> p.safeguardHolding() ? 1 : 0))
        .description("1 while the global safeguard holds FIFO order")
        .register(registry);
  }

  /** Reads the source's learning progress, cached for a second, 0 while there is none. */
  private static final class LearningReader {
    private static final long MAX_AGE_NANOS = 1_000_000_000L;
    private final ClientStats.Source source;
    private LearningProgress last;
    private long readAt;

    LearningReader(ClientStats.Source source) {
      this.source = source;
    }

    synchronized double read(ToDoubleFunction<LearningProgress> f) {
      long now = System.nanoTime();
      if (last == null || now - readAt > MAX_AGE_NANOS) {
        last = source.learning().orElse(null);
        readAt = now;
      }
      return last == null ? 0 : f.applyAsDouble(last);
    }
  }

  private void counter(
      MeterRegistry registry, String name, String help, ToLongFunction<ClientStats> f) {
    FunctionCounter.builder(name, source, s -> f.applyAsLong(source.get()))
        .description(help)
        .register(registry);
  }

  private void fallback(MeterRegistry registry, String reason, ToLongFunction<ClientStats> f) {
    FunctionCounter.builder("harbinger.client.fallbacks", source, s -> f.applyAsLong(source.get()))
        .description("Messages sent at the default level, by reason")
        .tag("reason", reason)
        .register(registry);
  }

  private void reporting(
      MeterRegistry registry, String name, String help, ToDoubleFunction<ClientStats.Reporting> f) {
    FunctionCounter.builder(name, source, s -> readReporting(f))
        .description(help)
        .register(registry);
  }

  private void routing(
      MeterRegistry registry, String name, String help, ToDoubleFunction<ClientStats.Routing> f) {
    FunctionCounter.builder(name, source, s -> readRouting(f)).description(help).register(registry);
  }

  private void ingest(
      MeterRegistry registry, String name, String help, ToLongFunction<IngestStats> f) {
    FunctionCounter.builder(name, source, s -> readRouting(r -> f.applyAsLong(r.ingest())))
        .description(help)
        .register(registry);
  }

  private void rejected(MeterRegistry registry, String reason, ToLongFunction<IngestStats> f) {
    FunctionCounter.builder(
            "harbinger.client.router.reports.rejected",
            source,
            s -> readRouting(r -> f.applyAsLong(r.ingest())))
        .description("Reports or batches the embedded router refused, by reason")
        .tag("reason", reason)
        .register(registry);
  }

  /** Reads a report publisher's value from a snapshot, 0 while the source's publisher is absent. */
  private double readReporting(ToDoubleFunction<ClientStats.Reporting> f) {
    return source.get().reporting().map(f::applyAsDouble).orElse(0.0);
  }

  /** Reads an embedded router's value from a snapshot, 0 while the source's router is absent. */
  private double readRouting(ToDoubleFunction<ClientStats.Routing> f) {
    return source.get().routing().map(f::applyAsDouble).orElse(0.0);
  }
}
