package io.harbinger.rabbit;

import io.harbinger.predictor.LearningProgress;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * One read-only snapshot of what Harbinger's client side counted in a process: the wrapped
 * channels' counters ({@link AdapterStats}), and where the process has them, its {@link
 * ReportPublisher}'s and its {@link EmbeddedRouter}'s. Metrics integrations read this one view.
 *
 * <p>Example:
 *
 * <pre>{@code
 * ClientStats.Source source =
 *     ClientStats.source(options.stats()).reports(publisher).router(router);
 * ClientStats now = source.get();
 * long atDefault =
 *     now.routerFailures() + now.routerAbsent() + now.invalidLevels() + now.routerUnavailable();
 * long lost = now.reporting().map(ClientStats.Reporting::dropped).orElse(0L);
 * }</pre>
 *
 * <p>Every count only increases over a process's life; the gauges ({@code laneHeld}, {@code
 * buffered}, {@code blocked}, {@code identityRefused}, {@code consuming}) are the state at the
 * snapshot.
 *
 * @param published messages stamped ({@link AdapterStats#published()})
 * @param routerFailures publishes at the default level because the router threw or answered null
 * @param routerAbsent publishes at the default level because no router was configured
 * @param invalidLevels publishes at the default level because the router answered a level out of
 *     range
 * @param routerUnavailable publishes at the default level because the router had no current answer
 *     (a sidecar router without a table, or with one older than its staleness limit)
 * @param userIdReplaced caller {@code user-id} values replaced by the connection's user
 * @param reports duration reports handed to the report sink, censored ones included
 * @param censored censored reports: redeliveries whose earlier attempt never settled
 * @param unmatchedSettles settlements of delivery tags the wrapper was not tracking
 * @param sinkFailures reports lost because the report sink threw
 * @param prefetchWarnings prefetch warnings logged, at most one per queue
 * @param unreadableStamps deliveries whose {@code x-harbinger} stamp could not be read in full
 * @param invalidSizeHints messages whose {@code x-size-hint} header held no non-negative integer
 * @param laneHandoffs deliveries that lanes consumers handed to their applications
 * @param laneHeld deliveries lanes consumers hold now, received but not yet handed on (a gauge)
 * @param laneHeldMax the most deliveries lanes consumers held at once
 * @param laneGets {@code basic.get} calls of pulling lanes consumers that took a message
 * @param laneEmptyGets {@code basic.get} calls of pulling lanes consumers that found the lane empty
 * @param laneTakenAhead messages pulling lanes consumers took ahead while their application ran a
 *     job
 * @param reporting the report publisher's counters, when the process has one
 * @param routing the embedded router's counters, when the process has one
 */
public record ClientStats(
    long published,
    long routerFailures,
    long routerAbsent,
    long invalidLevels,
    long routerUnavailable,
    long userIdReplaced,
    long reports,
    long censored,
    long unmatchedSettles,
    long sinkFailures,
    long prefetchWarnings,
    long unreadableStamps,
    long invalidSizeHints,
    long laneHandoffs,
    long laneHeld,
    long laneHeldMax,
    long laneGets,
    long laneEmptyGets,
    long laneTakenAhead,
    Optional<Reporting> reporting,
    Optional<Routing> routing) {

  /** Checks the optional parts are given (as empty when absent). */
  public ClientStats {
    Objects.requireNonNull(reporting, "reporting");
    Objects.requireNonNull(routing, "routing");
  }

  /**
   * A {@link ReportPublisher}'s counters.
   *
   * @param sent reports in batches RabbitMQ confirmed and routed to a queue
   * @param unroutable reports in batches RabbitMQ confirmed but routed to no queue (nothing bound
   *     to the reports exchange)
   * @param dropped reports dropped: buffer full, publisher closed, or their batch failed
   * @param batches batches RabbitMQ confirmed and routed to a queue
   * @param failedBatches batches refused, or lost with their channel before a confirm
   * @param buffered reports waiting in the buffer now
   * @param blocked whether RabbitMQ blocks the report connection now (a resource alarm)
   * @param identityRefused whether RabbitMQ refused the batches' {@code user-id}
   */
  public record Reporting(
      long sent,
      long unroutable,
      long dropped,
      long batches,
      long failedBatches,
      int buffered,
      boolean blocked,
      boolean identityRefused) {}

  /**
   * An {@link EmbeddedRouter}'s counters.
   *
   * @param lookupFailures lookups that failed and went to the default level
   * @param consuming whether its report consumer is registered and its connection open now
   * @param ingest what it did with the reports it read
   */
  public record Routing(long lookupFailures, boolean consuming, IngestStats ingest) {

    /** Checks the ingestion counters are given. */
    public Routing {
      Objects.requireNonNull(ingest, "ingest");
    }
  }

  /**
   * Starts a source of snapshots over a process's counters.
   *
   * @param stats the counters of its wrapped channels (the {@link ChannelOptions#stats()} they
   *     share)
   * @return a source with no report publisher and no embedded router
   */
  public static Source source(AdapterStats stats) {
    return new Source(Objects.requireNonNull(stats, "stats"), null, null);
  }

  /**
   * Takes snapshots of one process's counters; immutable, so each {@code with} step returns a new
   * source. Thread-safe: reading the counters never blocks a publish.
   */
  public static final class Source implements Supplier<ClientStats> {

    private final AdapterStats stats;
    private final Supplier<? extends ReportPublisher> publisher;
    private final Supplier<? extends EmbeddedRouter> router;

    private Source(
        AdapterStats stats,
        Supplier<? extends ReportPublisher> publisher,
        Supplier<? extends EmbeddedRouter> router) {
      this.stats = stats;
      this.publisher = publisher;
      this.router = router;
    }

    /**
     * Returns a source that also reads a report publisher.
     *
     * @param value the process's report publisher
     * @return the new source
     */
    public Source reports(ReportPublisher value) {
      Objects.requireNonNull(value, "publisher");
      return new Source(stats, () -> value, router);
    }

    /**
     * Returns a source that also reads a report publisher that starts later, such as one a
     * framework starts at the application's first connection.
     *
     * @param current answers the process's report publisher, or null while it has none; asked at
     *     every snapshot
     * @return the new source; its snapshots lack {@link ClientStats#reporting()} while {@code
     *     current} answers null
     */
    public Source reports(Supplier<? extends ReportPublisher> current) {
      return new Source(stats, Objects.requireNonNull(current, "publisher"), router);
    }

    /**
     * Returns a source that also reads an embedded router.
     *
     * @param value the process's embedded router
     * @return the new source
     */
    public Source router(EmbeddedRouter value) {
      Objects.requireNonNull(value, "router");
      return new Source(stats, publisher, () -> value);
    }

    /**
     * Returns a source that also reads an embedded router that starts later.
     *
     * @param current answers the process's embedded router, or null while it has none; asked at
     *     every snapshot
     * @return the new source; its snapshots lack {@link ClientStats#routing()} while {@code
     *     current} answers null
     */
    public Source router(Supplier<? extends EmbeddedRouter> current) {
      return new Source(stats, publisher, Objects.requireNonNull(current, "router"));
    }

    /**
     * Returns whether snapshots carry a report publisher's counters.
     *
     * @return true when {@link #reports} was given one or a supplier of one (whose snapshots may
     *     still lack them while it answers null)
     */
    public boolean hasReporting() {
      return publisher != null;
    }

    /**
     * Returns whether snapshots carry an embedded router's counters.
     *
     * @return true when {@link #router} was given one or a supplier of one
     */
    public boolean hasRouting() {
      return router != null;
    }

    /**
     * Returns how far the embedded router's predictor has learned: keys trusted and still learning,
     * levels, the safeguard's first estimate, and whether it reorders yet. Not part of {@link
     * #get()}: it walks the predictor's keys, so read it at a scrape's pace.
     *
     * @return the progress, or empty while the source has no embedded router
     */
    public Optional<LearningProgress> learning() {
      EmbeddedRouter r = router == null ? null : router.get();
      return r == null ? Optional.empty() : Optional.of(LearningProgress.of(r.predictor()));
    }

    /**
     * Takes a snapshot now.
     *
     * @return the counters
     */
    @Override
    public ClientStats get() {
      ReportPublisher p = publisher == null ? null : publisher.get();
      Optional<Reporting> reporting =
          p == null
              ? Optional.empty()
              : Optional.of(
                  new Reporting(
                      p.sent(),
                      p.unroutable(),
                      p.dropped(),
                      p.batches(),
                      p.failedBatches(),
                      p.buffered(),
                      p.blocked(),
                      p.identityRefused()));
      EmbeddedRouter r = router == null ? null : router.get();
      Optional<Routing> routing =
          r == null
              ? Optional.empty()
              : Optional.of(new Routing(r.failures(), r.consuming(), r.ingestStats()));
      return new ClientStats(
          stats.published(),
          stats.routerFailures(),
          stats.routerAbsent(),
          stats.invalidLevels(),
          stats.routerUnavailable(),
          stats.userIdReplaced(),
          stats.reports(),
          stats.censored(),
          stats.unmatchedSettles(),
          stats.sinkFailures(),
          stats.prefetchWarnings(),
          stats.unreadableStamps(),
          stats.invalidSizeHints(),
          stats.laneHandoffs(),
          stats.laneHeld(),
          stats.laneHeldMax(),
          stats.laneGets(),
          stats.laneEmptyGets(),
          stats.laneTakenAhead(),
          reporting,
          routing);
    }
  }
}
