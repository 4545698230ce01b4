package io.harbinger.sidecar;

import io.grpc.BindableService;
import io.grpc.Server;
import io.grpc.ServerBuilder;
import io.grpc.ServerInterceptors;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.protobuf.services.HealthStatusManager;
import io.grpc.protobuf.services.ProtoReflectionServiceV1;
import io.harbinger.proto.v1.SidecarGrpc;
import java.io.IOException;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * The sidecar's gRPC server: {@code harbinger.v1.Sidecar}, gRPC health and reflection, with an
 * optional bearer token.
 *
 * <p>Takes a {@link ServerBuilder} so that tests pass an in-process builder and the process passes
 * a Netty one (with TLS when configured). Shutdown stops accepting calls, waits up to 30 seconds
 * for running ones, then cancels them.
 */
public final class SidecarServer {

  private final Server server;
  private final HealthStatusManager health = new HealthStatusManager();

  SidecarServer(ServerBuilder<?> builder, BindableService sidecar, Optional<String> token) {
    BindableService service = sidecar;
    builder.addService(
        token
            .map(t -> ServerInterceptors.intercept(service, new BearerTokenInterceptor(t)))
            .orElseGet(service::bindService));
    builder.addService(health.getHealthService());
    builder.addService(
        token
            .map(
                t ->
                    ServerInterceptors.intercept(
                        ProtoReflectionServiceV1.newInstance(), new BearerTokenInterceptor(t)))
            .orElseGet(() -> ProtoReflectionServiceV1.newInstance().bindService()));
    server = builder.build();
  }

  /**
   * Starts serving; the health service says NOT_SERVING until {@link #serving} says otherwise.
   *
   * @return this server
   * @throws IOException if the port cannot be bound
   */
  public SidecarServer start() throws IOException {
    server.start();
    serving(false);
    return this;
  }

  /**
   * Sets what the health service reports, for the whole server and for {@code
   * harbinger.v1.Sidecar}.
   *
   * @param ready true for SERVING, false for NOT_SERVING
   */
  public void serving(boolean ready) {
    ServingStatus status = ready ? ServingStatus.SERVING : ServingStatus.NOT_SERVING;
    health.setStatus("", status);
    health.setStatus(SidecarGrpc.SERVICE_NAME, status);
  }

  /**
   * Returns the port the server listens on.
   *
   * @return the port, or -1 for an in-process server
   */
  public int port() {
    return server.getPort();
  }

  /** Returns the addresses the server listens on. */
  java.util.List<? extends java.net.SocketAddress> listenAddresses() {
    return server.getListenSockets();
  }

  /**
   * Stops accepting calls, waits up to 30 seconds for running ones, then cancels what remains.
   *
   * @throws InterruptedException if interrupted while waiting
   */
  public void shutdown() throws InterruptedException {
    health.enterTerminalState();
    server.shutdown();
    if (!server.awaitTermination(30, TimeUnit.SECONDS)) {
      server.shutdownNow();
      server.awaitTermination(5, TimeUnit.SECONDS);
    }
  }
}
