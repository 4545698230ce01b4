package io.harbinger.sidecar;

import io.grpc.InsecureServerCredentials;
import io.grpc.ServerBuilder;
import io.grpc.ServerCredentials;
import io.grpc.TlsServerCredentials;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.harbinger.predictor.HistogramPredictor;
import io.harbinger.predictor.Ticker;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A running sidecar: the predictor (restored from its snapshot), the report consumer, the route
 * table and its publisher, the gRPC server, the metrics endpoint and the periodic snapshots.
 *
 * <p>Health follows the sidecar's dependencies: every {@value #HEALTH_CHECK_MILLIS} ms the gRPC
 * health service and the {@code /ready} endpoint are set to NOT_SERVING while RabbitMQ is
 * unreachable, the report consumer is down, or reports do not reach the report queue (its binding
 * found lost, or the reports exchange of another type: {@link io.harbinger.rabbit.ReportBinding})
 * (the reason is logged once and shown by {@code /ready}), and to SERVING again once it is back. A
 * sidecar that consumes no reports (embedded in a test) depends on nothing and is SERVING.
 *
 * <p>{@link #close()} shuts down gracefully: it stops consuming reports, stops accepting calls and
 * drains the ones running (up to 30 s), ends the route streams, and saves a final snapshot.
 */
public final class Sidecar implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(Sidecar.class);

  /** How often health is brought up to date with RabbitMQ and the report consumer. */
  static final long HEALTH_CHECK_MILLIS = 500;

  private static final Duration DEFAULT_BINDING_CHECK =
      Duration.ofSeconds(ReportSubscriber.BINDING_CHECK_SECONDS);

  private final SidecarConfig config;
  private final HistogramPredictor predictor;
  private final SnapshotKeeper snapshots;
  private final RouteTable routes;
  private final ReportSubscriber reports;
  private final ScheduledExecutorService routeThread;
  private final ScheduledExecutorService snapshotThread;
  private final SidecarMetrics metrics;
  private final SidecarServer server;
  private final int metricsPort;
  private final boolean consumeReports;
  private final java.util.concurrent.atomic.AtomicBoolean closed =
      new java.util.concurrent.atomic.AtomicBoolean();
  private volatile Optional<String> notReady = Optional.of("starting");

  private Sidecar(
      SidecarConfig config,
      ServerBuilder<?> grpc,
      boolean consumeReports,
      SnapshotKeeper.ColdStart coldStart,
      Duration bindingCheck)
      throws IOException, TimeoutException {
    this.config = config;
    this.consumeReports = consumeReports;
    Clock clock = Clock.systemUTC();
    snapshots =
        new SnapshotKeeper(config.snapshotPath(), config.snapshotContext(), clock, coldStart);
    predictor = snapshots.restore(config.predictor(), Ticker.SYSTEM, config.mode());
    routes = new RouteTable(predictor, clock);
    routeThread = daemonScheduler("harbinger-routes");
    snapshotThread = daemonScheduler("harbinger-snapshots");
    reports = new ReportSubscriber(predictor, routes, clock, config, bindingCheck);
    metrics = new SidecarMetrics(predictor, routes, snapshots, reports);
    routeThread.execute(routes::sweep);
    long publish = config.publishInterval().toMillis();
    routeThread.scheduleWithFixedDelay(
        routes::publishChanges, publish, publish, TimeUnit.MILLISECONDS);
    long sweep = config.sweepInterval().toMillis();
    routeThread.scheduleWithFixedDelay(routes::sweep, sweep, sweep, TimeUnit.MILLISECONDS);
    long heartbeat = config.heartbeatInterval().toMillis();
    routeThread.scheduleWithFixedDelay(
        () -> routes.heartbeat(heartbeat), heartbeat, heartbeat, TimeUnit.MILLISECONDS);
    if (config.snapshotPath().isPresent()) {
      long every = config.snapshotInterval().toMillis();
      snapshotThread.scheduleWithFixedDelay(
          () -> snapshots.saveQuietly(predictor), every, every, TimeUnit.MILLISECONDS);
    }
    Optional<String> token = Optional.empty();
    if (config.tokenFile().isPresent()) {
      token = Optional.of(Files.readAllLines(config.tokenFile().get()).get(0).strip());
    }
    server =
        new SidecarServer(
            grpc.intercept(metrics.grpcServerInterceptor()),
            new SidecarService(predictor, routes, routeThread, snapshots),
            token);
    try {
      server.start();
    } catch (IOException e) {
      closeStarted();
      throw portTaken("gRPC", config.grpcBindAddress(), config.grpcPort(), "grpc.port", e);
    }
    if (!config.tokenFile().isPresent() && !ConfigLoader.isLoopback(config.grpcBindAddress())) {
      LOG.warn(
          "gRPC listens on {} without a bearer token (grpc.allow-unauthenticated-remote): anyone"
              + " who reaches port {} can switch the routing mode and write snapshots",
          config.grpcBindAddress(),
          server.port());
    }
    try {
      metricsPort =
          config.metricsPort() < 0
              ? -1
              : metrics.serve(config.metricsBindAddress(), config.metricsPort(), () -> notReady);
    } catch (IOException e) {
      closeStarted();
      throw portTaken(
          "metrics", config.metricsBindAddress(), config.metricsPort(), "metrics.port", e);
    }
    try {
      if (consumeReports) {
        reports.start();
      }
    } catch (IOException | TimeoutException | RuntimeException e) {
      closeStarted();
      throw e;
    }
    updateHealth();
    snapshotThread.scheduleWithFixedDelay(
        this::updateHealth, HEALTH_CHECK_MILLIS, HEALTH_CHECK_MILLIS, TimeUnit.MILLISECONDS);
    LOG.info(
        "sidecar {} serving gRPC on {} and metrics on {}; mode {}; snapshot {}",
        config.replicaId(),
        server.port(),
        metricsPort,
        predictor.mode(),
        snapshots.restoreStatus());
  }

  /**
   * Starts a sidecar on the configured ports, consuming reports from RabbitMQ.
   *
   * @param config the configuration
   * @return the running sidecar
   * @throws IOException if a port cannot be bound or RabbitMQ cannot be reached
   * @throws TimeoutException if RabbitMQ does not answer in time
   */
  public static Sidecar start(SidecarConfig config) throws IOException, TimeoutException {
    return new Sidecar(
        config, serverBuilder(config), true, HistogramPredictor::new, DEFAULT_BINDING_CHECK);
  }

  /** The Netty server builder of a configuration: its address and port, with TLS when set. */
  static ServerBuilder<?> serverBuilder(SidecarConfig config) throws IOException {
    ServerCredentials credentials = InsecureServerCredentials.create();
    if (config.tls().isPresent()) {
      credentials =
          TlsServerCredentials.create(
              config.tls().get().certChain().toFile(), config.tls().get().privateKey().toFile());
    }
    return NettyServerBuilder.forAddress(
        new InetSocketAddress(config.grpcBindAddress(), config.grpcPort()), credentials);
  }

  private static IOException portTaken(
      String what, String bindAddress, int port, String setting, IOException e) {
    return new IOException(
        "the "
            + what
            + " port "
            + bindAddress
            + ":"
            + port
            + " cannot be bound ("
            + e.getMessage()
            + "): free it, or set "
            + setting
            + " (HARBINGER_"
            + setting.toUpperCase(java.util.Locale.ROOT).replace('.', '_')
            + ")",
        e);
  }

  /**
   * Returns why the sidecar is not ready, or empty while it is: what the gRPC health service and
   * {@code /ready} report.
   *
   * @return the reason, such as "RabbitMQ is unreachable at amqp://127.0.0.1:5672/%2F", or empty
   */
  public Optional<String> notReady() {
    return notReady;
  }

  private void updateHealth() {
    Optional<String> problem = consumeReports ? reports.problem() : Optional.empty();
    if (closed.get()) {
      return;
    }
    Optional<String> before = notReady;
    notReady = problem;
    server.serving(problem.isEmpty());
    if (!problem.equals(before)) {
      if (problem.isPresent()) {
        LOG.warn("not serving: {}", problem.get());
      } else if (before.isPresent() && !before.get().equals("starting")) {
        LOG.info("serving again: {} resolved", before.get());
      }
    }
  }

  private void closeStarted() {
    try {
      server.shutdown();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    routeThread.shutdownNow();
    snapshotThread.shutdownNow();
    metrics.close();
    reports.close();
  }

  /**
   * Starts a sidecar on a given server builder, for example an in-process one; for tests, embedding
   * and benchmarks.
   *
   * @param config the configuration
   * @param grpc the server builder, for example an in-process one
   * @param consumeReports whether to connect to RabbitMQ and consume reports
   * @return the running sidecar
   * @throws IOException if a port cannot be bound or RabbitMQ cannot be reached
   * @throws TimeoutException if RabbitMQ does not answer in time
   */
  public static Sidecar start(SidecarConfig config, ServerBuilder<?> grpc, boolean consumeReports)
      throws IOException, TimeoutException {
    return new Sidecar(
        config, grpc, consumeReports, HistogramPredictor::new, DEFAULT_BINDING_CHECK);
  }

  /**
   * Starts a sidecar whose predictor, when no snapshot is restored, comes from a factory: for tests
   * that need a predictor its settings alone do not describe.
   */
  static Sidecar start(
      SidecarConfig config,
      ServerBuilder<?> grpc,
      boolean consumeReports,
      SnapshotKeeper.ColdStart coldStart)
      throws IOException, TimeoutException {
    return new Sidecar(config, grpc, consumeReports, coldStart, DEFAULT_BINDING_CHECK);
  }

  /** Starts a sidecar that checks its queue's binding at another interval, for tests. */
  static Sidecar start(
      SidecarConfig config, ServerBuilder<?> grpc, boolean consumeReports, Duration bindingCheck)
      throws IOException, TimeoutException {
    return new Sidecar(config, grpc, consumeReports, HistogramPredictor::new, bindingCheck);
  }

  /**
   * Returns the bound gRPC port.
   *
   * @return the port, or -1 in process
   */
  public int grpcPort() {
    return server.port();
  }

  /**
   * Returns the bound metrics port.
   *
   * @return the port, or -1 when metrics are disabled
   */
  public int metricsPort() {
    return metricsPort;
  }

  SidecarServer server() {
    return server;
  }

  HistogramPredictor predictor() {
    return predictor;
  }

  /**
   * Returns how many duration reports the predictor has learned since the sidecar started.
   *
   * @return the count of reports accepted by the predictor
   */
  public long reportsLearned() {
    return predictor.stats().accepted();
  }

  SidecarConfig config() {
    return config;
  }

  /**
   * Returns what the sidecar knows about one key.
   *
   * @param key the key
   * @return its statistics, or empty when it is not tracked
   */
  public Optional<io.harbinger.predictor.KeyStats> keyStats(String key) {
    return predictor.keyStats(key);
  }

  /**
   * Returns how far the sidecar's predictor has learned: keys trusted and still learning, whether
   * levels and the safeguard's first estimate exist, and whether it reorders yet. {@code /ready}
   * and the {@code harbinger_keys}, {@code harbinger_reordering} and {@code
   * harbinger_safeguard_estimated} gauges show the same.
   *
   * @return the progress now
   */
  public io.harbinger.predictor.LearningProgress learning() {
    return io.harbinger.predictor.LearningProgress.of(predictor);
  }

  RouteTable routes() {
    return routes;
  }

  ReportSubscriber reports() {
    return reports;
  }

  SidecarMetrics metrics() {
    return metrics;
  }

  SnapshotKeeper snapshots() {
    return snapshots;
  }

  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    LOG.info("sidecar {} shutting down", config.replicaId());
    reports.close();
    try {
      // Route streams never end by themselves: end them first so that the server can drain the
      // other calls.
      routeThread.submit(routes::closeWatchers).get(5, TimeUnit.SECONDS);
    } catch (Exception e) {
      LOG.debug("closing watchers: {}", e.toString());
    }
    try {
      server.shutdown();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    routeThread.shutdownNow();
    snapshotThread.shutdownNow();
    snapshots.saveQuietly(predictor);
    metrics.close();
  }

  private static ScheduledExecutorService daemonScheduler(String name) {
    return Executors.newSingleThreadScheduledExecutor(
        r -> {
          Thread t = new Thread(r, name);
          t.setDaemon(true);
          return t;
        });
  }
}
