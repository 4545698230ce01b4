package io.harbinger.broker;

import io.grpc.Server;
import io.grpc.ServerBuilder;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.protobuf.services.HealthStatusManager;
import io.grpc.protobuf.services.ProtoReflectionServiceV1;
import java.io.IOException;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Serves a {@link MessageBroker} over gRPC with the health and reflection services, and runs its
 * timers: lease and TTL expiry every 100 ms, aging at the configured interval.
 *
 * <p>The server is built from a caller's {@link ServerBuilder}, so tests pass an in-process
 * builder. {@link #close} shuts down gracefully: stop accepting calls, wait up to 30 s, then cancel
 * what is left.
 */
public final class BrokerServer implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(BrokerServer.class);
  private static final Duration MAINTENANCE_INTERVAL = Duration.ofMillis(100);
  private static final Duration GRACE = Duration.ofSeconds(30);

  private final MessageBroker broker;
  private final Server server;
  private final HealthStatusManager health = new HealthStatusManager();
  private final ScheduledExecutorService timers;

  /**
   * Builds (does not start) a server.
   *
   * @param builder a server builder (Netty on a port, or in-process)
   * @param broker the broker to serve
   */
  public BrokerServer(ServerBuilder<?> builder, MessageBroker broker) {
    this.broker = Objects.requireNonNull(broker, "broker");
    this.server =
        builder
            .addService(new BrokerService(broker))
            .addService(health.getHealthService())
            .addService(ProtoReflectionServiceV1.newInstance())
            .build();
    this.timers =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "harbinger-broker-timers");
              t.setDaemon(true);
              return t;
            });
  }

  /**
   * Starts serving and the timers.
   *
   * @return this server
   * @throws IOException if the server cannot bind
   */
  public BrokerServer start() throws IOException {
    server.start();
    long maintenanceMillis = MAINTENANCE_INTERVAL.toMillis();
    timers.scheduleAtFixedRate(
        guarded(broker::maintain), maintenanceMillis, maintenanceMillis, TimeUnit.MILLISECONDS);
    long agingMillis = broker.config().scheduler().agingInterval().toMillis();
    timers.scheduleAtFixedRate(
        guarded(broker::age), agingMillis, agingMillis, TimeUnit.MILLISECONDS);
    health.setStatus("", ServingStatus.SERVING);
    health.setStatus("harbinger.v1.Broker", ServingStatus.SERVING);
    return this;
  }

  private static Runnable guarded(Runnable task) {
    return () -> {
      try {
        task.run();
      } catch (RuntimeException e) {
        LOG.error("broker timer task failed", e);
      }
    };
  }

  /**
   * Returns the port the server listens on, or -1 for in-process servers.
   *
   * @return the port
   */
  public int port() {
    return server.getPort();
  }

  /** Returns the broker. */
  public MessageBroker broker() {
    return broker;
  }

  /**
   * Blocks until the server terminates.
   *
   * @throws InterruptedException if interrupted
   */
  public void awaitTermination() throws InterruptedException {
    server.awaitTermination();
  }

  /**
   * Shuts down: stop accepting calls, wait up to 30 s for running calls, then cancel them. An
   * interrupt cancels the calls at once and is kept on the thread.
   */
  @Override
  public void close() {
    health.enterTerminalState();
    timers.shutdownNow();
    server.shutdown();
    try {
      if (!server.awaitTermination(GRACE.toMillis(), TimeUnit.MILLISECONDS)) {
        server.shutdownNow();
        server.awaitTermination(5, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      server.shutdownNow();
      Thread.currentThread().interrupt();
    }
  }
}
