package io.harbinger.sidecar;

import com.sun.net.httpserver.HttpServer;
import io.grpc.ServerInterceptor;
import io.harbinger.predictor.HistogramPredictor;
import io.harbinger.predictor.LearningProgress;
import io.harbinger.predictor.Mode;
import io.harbinger.predictor.Outcome;
import io.harbinger.predictor.PredictorStats;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.binder.grpc.MetricCollectingServerInterceptor;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.FileDescriptorMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import java.util.function.ToDoubleFunction;

/**
 * The sidecar's Prometheus metrics, served at {@code /metrics} by the JDK's HTTP server.
 *
 * <p>Meters read the predictor's counters at scrape time (one {@link HistogramPredictor#stats()}
 * call per scrape, cached for a second), so recording costs the report path nothing. No meter is
 * ever tagged with a key: tags are closed sets (outcome, reason, boundary index, mode). Names
 * follow Prometheus conventions: the mode is one series per mode with value 1 on the current one,
 * ratios end in {@code _ratio}, and a moment is a {@code *_timestamp_seconds} gauge that is absent
 * until it happened (no -1 sentinel). Beside Harbinger's own meters: JVM memory, GC, threads and
 * classes, process CPU, uptime and file descriptors, and the gRPC server's calls.
 */
final class SidecarMetrics implements AutoCloseable {

  private final PrometheusMeterRegistry registry =
      new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private final HistogramPredictor predictor;
  private final AtomicReference<CachedStats> cached = new AtomicReference<>();
  private final AtomicReference<CachedLearning> cachedLearning = new AtomicReference<>();
  private final JvmGcMetrics jvmGc = new JvmGcMetrics();
  private final MetricCollectingServerInterceptor grpcServer =
      new MetricCollectingServerInterceptor(registry);
  private final SnapshotKeeper snapshots;
  private final ReportSubscriber reports;
  private boolean snapshotTimestamp;
  private boolean reportTimestamp;
  private HttpServer http;

  SidecarMetrics(
      HistogramPredictor predictor,
      RouteTable routes,
      SnapshotKeeper snapshots,
      ReportSubscriber reports) {
    this.predictor = predictor;
    this.snapshots = snapshots;
    this.reports = reports;
    for (Outcome o : Outcome.values()) {
      counter(
          "harbinger_predictions",
          "Predictions made, by outcome (predicted or the fallback reason).",
          s -> s.predictions().get(o),
          "outcome",
          o.name().toLowerCase(Locale.ROOT));
    }
    counter("harbinger_observations_learned", "Durations learned.", PredictorStats::accepted);
    counter(
        "harbinger_observations_censored",
        "Censored deliveries recorded.",
        PredictorStats::censored);
    counter("harbinger_keys_evicted", "Keys evicted to admit new ones.", PredictorStats::evictions);
    counter(
        "harbinger_keys_overflow_observations",
        "Observations of keys that found no room (not tracked).",
        PredictorStats::untracked);
    counter(
        "harbinger_boundary_publications",
        "Times new level boundaries were published.",
        PredictorStats::boundaryPublications);
    gauge("harbinger_keys_tracked", "Keys tracked now.", s -> s.keys());
    learningGauge(
        "harbinger_keys",
        "Keys by learning state: trusted (routed by their own estimate), learning (too few"
            + " observations, or no levels yet), untrusted (enough observations, but falling back).",
        LearningProgress::trustedKeys,
        "state",
        "trusted");
    learningGauge(
        "harbinger_keys",
        "Keys by learning state: trusted (routed by their own estimate), learning (too few"
            + " observations, or no levels yet), untrusted (enough observations, but falling back).",
        LearningProgress::learningKeys,
        "state",
        "learning");
    learningGauge(
        "harbinger_keys",
        "Keys by learning state: trusted (routed by their own estimate), learning (too few"
            + " observations, or no levels yet), untrusted (enough observations, but falling back).",
        LearningProgress::untrustedKeys,
        "state",
        "untrusted");
    learningGauge(
        "harbinger_reordering",
        "1 while learned levels reorder messages (levels published, a key trusted, predictive"
            + " mode, the safeguard not holding).",
        p -> p.reordering() ? 1 : 0);
    learningGauge(
        "harbinger_safeguard_estimated",
        "1 once the global safeguard has its first estimate.",
        p -> p.safeguardEstimate() ? 1 : 0);
    gauge(
        "harbinger_tier_agreement_ratio",
        "Share of the last 512 scored reports whose duration fell in the predicted level (NaN before any).",
        s -> s.drift().windowAgreement());
    gauge(
        "harbinger_log2_error",
        "EWMA of |log2(predicted / actual)|, in octaves (NaN before any).",
        s -> s.drift().log2ErrorEwma());
    gauge(
        "harbinger_drift_alert",
        "1 while the drift alert is latched.",
        s -> s.drift().alert() ? 1 : 0);
    gauge(
        "harbinger_safeguard_holding",
        "1 while the global safeguard holds routing in FIFO order (in shadow mode: would hold).",
        s -> s.safeguard().holding() ? 1 : 0);
    gauge(
        "harbinger_safeguard_estimated_gain_ratio",
        "Estimated share of FIFO's mean wait the current levels save (NaN while unknown).",
        s -> s.safeguard().estimatedGain());
    gauge(
        "harbinger_safeguard_reports",
        "Decayed weight of the reports the safeguard's estimate comes from.",
        s -> s.safeguard().reports());
    counter(
        "harbinger_safeguard_holds",
        "Times the global safeguard started holding FIFO order.",
        s -> s.safeguard().holds());
    counter(
        "harbinger_key_rebases",
        "Keys whose history a run of one-sided observations replaced (a change of regime).",
        PredictorStats::rebases);
    counter(
        "harbinger_safeguard_held_predictions",
        "Predictions the global safeguard sent to the default level in predictive mode.",
        PredictorStats::safeguardHeld);
    gauge(
        "harbinger_safeguard_tail_wait_ratio",
        "Estimated mean wait of the last level holding 1% of the jobs over FIFO's (NaN while off).",
        s -> s.safeguard().tailWaitRatio());
    gauge(
        "harbinger_safeguard_tail_lifting",
        "1 while the tail guard routes keys placed below the default level at it.",
        s -> s.safeguard().lifting() ? 1 : 0);
    counter(
        "harbinger_safeguard_tail_lifts",
        "Times the tail guard started lifting.",
        s -> s.safeguard().lifts());
    counter(
        "harbinger_safeguard_lifted_predictions",
        "Predictions the tail guard routed at the default level instead of below it.",
        PredictorStats::tailLifted);
    for (int l = 0; l < predictor.levels(); l++) {
      int level = l;
      Gauge.builder(
              "harbinger_safeguard_job_share_ratio",
              this,
              m -> share(m.stats().safeguard().jobShares(), level))
          .description("Decayed share of reported jobs by the level their key is assigned.")
          .tags("level", Integer.toString(level))
          .register(registry);
      Gauge.builder(
              "harbinger_safeguard_work_share_ratio",
              this,
              m -> share(m.stats().safeguard().workShares(), level))
          .description("Decayed share of reported work (actual durations) by their key's level.")
          .tags("level", Integer.toString(level))
          .register(registry);
    }
    for (int j = 0; j < predictor.levels() - 1; j++) {
      int index = j;
      Gauge.builder(
              "harbinger_boundary_seconds",
              predictor,
              p -> p.boundaries().map(b -> b.nanos(index) / 1e9).orElse(Double.NaN))
          .description("Current level boundaries (NaN until published).")
          .tag("index", Integer.toString(index))
          .register(registry);
    }
    for (Mode m : Mode.values()) {
      Gauge.builder("harbinger_mode", predictor, p -> p.mode() == m ? 1 : 0)
          .description("Routing mode: 1 on the series of the current mode, 0 on the others.")
          .tag("mode", m.name().toLowerCase(Locale.ROOT))
          .register(registry);
    }
    Gauge.builder("harbinger_untrusted_last", routes, r -> r.sinking() ? 1 : 0)
        .description(
            "1 while keys without a cost of their own are routed at the last level"
                + " (predictor.untrusted-last, once the safeguard has judged).")
        .register(registry);
    Gauge.builder("harbinger_route_watchers", routes, RouteTable::watchers)
        .description("Open WatchRoutes streams.")
        .register(registry);
    Gauge.builder("harbinger_route_table_keys", routes, RouteTable::size)
        .description("Keys in the route table.")
        .register(registry);
    FunctionCounter.builder("harbinger_route_updates", routes, RouteTable::changesPublished)
        .description("Route updates pushed to watchers.")
        .register(registry);
    FunctionCounter.builder("harbinger_snapshot_failures", snapshots, SnapshotKeeper::failures)
        .description("Snapshot saves that failed.")
        .register(registry);
    Gauge.builder(
            "harbinger_snapshot_restore_rejected", snapshots, k -> k.restoreRejected() ? 1 : 0)
        .description(
            "1 when the snapshot found at start was refused (see"
                + " harbinger_snapshot_rolled_back for whether the previous one was used).")
        .register(registry);
    Gauge.builder("harbinger_snapshot_rolled_back", snapshots, k -> k.rolledBack() ? 1 : 0)
        .description("1 when the state came from the previous snapshot, <path>.prev.")
        .register(registry);
    reports.registerMetrics(registry);
    new JvmMemoryMetrics().bindTo(registry);
    jvmGc.bindTo(registry);
    new JvmThreadMetrics().bindTo(registry);
    new ClassLoaderMetrics().bindTo(registry);
    new ProcessorMetrics().bindTo(registry);
    new UptimeMetrics().bindTo(registry);
    new FileDescriptorMetrics().bindTo(registry);
  }

  /**
   * Returns the interceptor that times the gRPC server's calls ({@code grpc_server_*}: requests
   * received, responses sent and processing duration, by service, method and status code).
   */
  ServerInterceptor grpcServerInterceptor() {
    return grpcServer;
  }

  /**
   * Registers the timestamp gauges whose moment has come: a timestamp that was never set is absent
   * from the scrape rather than a sentinel (Prometheus conventions: {@code *_timestamp_seconds}).
   */
  private void registerTimestamps() {
    if (!snapshotTimestamp && snapshots.lastSaveMillis() >= 0) {
      Gauge.builder(
              "harbinger_snapshot_last_success_timestamp_seconds",
              snapshots,
              k -> k.lastSaveMillis() / 1e3)
          .description("When the last successful snapshot finished, in Unix seconds.")
          .register(registry);
      snapshotTimestamp = true;
    }
    if (!reportTimestamp && reports.newestPublishedMicros() > 0) {
      Gauge.builder(
              "harbinger_report_last_published_timestamp_seconds",
              reports,
              r -> r.newestPublishedMicros() / 1e6)
          .description(
              "Publish time of the newest report learned, in Unix seconds: time() minus it is the"
                  + " report lag.")
          .register(registry);
      reportTimestamp = true;
    }
  }

  private void counter(
      String name, String help, ToDoubleFunction<PredictorStats> value, String... tags) {
    FunctionCounter.builder(name, this, m -> value.applyAsDouble(m.stats()))
        .description(help)
        .tags(tags)
        .register(registry);
  }

  private static double share(java.util.List<Double> shares, int level) {
    return level < shares.size() ? shares.get(level) : Double.NaN;
  }

  private void gauge(String name, String help, ToDoubleFunction<PredictorStats> value) {
    Gauge.builder(name, this, m -> value.applyAsDouble(m.stats()))
        .description(help)
        .register(registry);
  }

  private void learningGauge(
      String name, String help, ToDoubleFunction<LearningProgress> value, String... tags) {
    Gauge.builder(name, this, m -> value.applyAsDouble(m.learning()))
        .description(help)
        .tags(tags)
        .register(registry);
  }

  /** Returns how far the predictor has learned, read at most once a second (it walks the keys). */
  LearningProgress learning() {
    long now = System.nanoTime();
    CachedLearning c = cachedLearning.get();
    if (c == null || now - c.atNanos > Duration.ofSeconds(1).toNanos()) {
      c = new CachedLearning(LearningProgress.of(predictor), now);
      cachedLearning.set(c);
    }
    return c.progress;
  }

  private PredictorStats stats() {
    long now = System.nanoTime();
    CachedStats c = cached.get();
    if (c == null || now - c.atNanos > Duration.ofSeconds(1).toNanos()) {
      c = new CachedStats(predictor.stats(), now);
      cached.set(c);
    }
    return c.stats;
  }

  /** Returns the scrape text, for tests and the HTTP handler. */
  synchronized String scrape() {
    registerTimestamps();
    return registry.scrape();
  }

  /**
   * Serves {@code /metrics} and {@code /ready} on an address and port; 0 picks a free port. {@code
   * /ready} answers 200 {@code SERVING} while {@code notReady} is empty, and 503 {@code
   * NOT_SERVING: <reason>} otherwise, on its first line; the second says how far the predictor has
   * learned ({@link LearningProgress#describe()}). Returns the bound port.
   */
  int serve(String address, int port, Supplier<Optional<String>> notReady) throws IOException {
    http = HttpServer.create(new InetSocketAddress(address, port), 0);
    http.createContext(
        "/ready",
        exchange -> {
          Optional<String> problem = notReady.get();
          byte[] body =
              (problem.map(p -> "NOT_SERVING: " + p).orElse("SERVING")
                      + "\n"
                      + learning().describe()
                      + "\n")
                  .getBytes(StandardCharsets.UTF_8);
          exchange.getResponseHeaders().add("Content-Type", "text/plain; charset=utf-8");
          exchange.sendResponseHeaders(problem.isPresent() ? 503 : 200, body.length);
          try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
          }
        });
    http.createContext(
        "/metrics",
        exchange -> {
          byte[] body = scrape().getBytes(StandardCharsets.UTF_8);
          exchange
              .getResponseHeaders()
              .add("Content-Type", "text/plain; version=0.0.4; charset=utf-8");
          exchange.sendResponseHeaders(200, body.length);
          try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
          }
        });
    http.start();
    return http.getAddress().getPort();
  }

  /** Returns the address {@code /metrics} listens on, or null when not serving. */
  InetSocketAddress address() {
    return http == null ? null : http.getAddress();
  }

  @Override
  public void close() {
    if (http != null) {
      http.stop(0);
    }
    jvmGc.close();
    registry.close();
  }

  private record CachedStats(PredictorStats stats, long atNanos) {}

  private record CachedLearning(LearningProgress progress, long atNanos) {}
}
