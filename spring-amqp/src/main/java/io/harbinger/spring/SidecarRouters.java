package io.harbinger.spring;

import io.grpc.ChannelCredentials;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.TlsChannelCredentials;
import io.harbinger.sidecar.client.SidecarRouter;
import java.io.IOException;
import java.util.concurrent.TimeUnit;

/**
 * Opens the gRPC channel to the sidecar and watches its route table: the one class of this module
 * that uses the sidecar's client, so that nothing else loads gRPC when the router is embedded.
 *
 * <p>Not instantiable; thread-safe.
 */
final class SidecarRouters {

  static final String CLIENT_CLASS = "io.harbinger.sidecar.client.SidecarRouter";

  private SidecarRouters() {}

  /**
   * Starts watching the sidecar of the settings.
   *
   * @param sidecar the sidecar's address, TLS, token and staleness limit
   * @param levels the levels the queues are declared for
   * @return the router source; the route table arrives in the background, and until then every
   *     message gets the default level
   * @throws IllegalStateException when the trust certificates cannot be read
   */
  static RouterSource watch(HarbingerProperties.Sidecar sidecar, int levels) {
    ChannelCredentials credentials;
    if (sidecar.tls()) {
      try {
        credentials =
            sidecar.trustCertificates() == null
                ? TlsChannelCredentials.create()
                : TlsChannelCredentials.newBuilder()
                    .trustManager(sidecar.trustCertificates().toFile())
                    .build();
      } catch (IOException e) {
        throw new IllegalStateException(
            "harbinger.router.sidecar.trust-certificates: cannot read "
                + sidecar.trustCertificates()
                + ": "
                + e.getMessage(),
            e);
      }
    } else {
      credentials = InsecureChannelCredentials.create();
    }
    ManagedChannel channel = Grpc.newChannelBuilder(sidecar.address(), credentials).build();
    SidecarRouter router =
        SidecarRouter.watch(channel, levels, sidecar.staleAfter(), sidecar.token());
    return new RouterSource(
        router,
        null,
        router::isConnected,
        "sidecar at " + sidecar.address(),
        () -> {
          router.close();
          channel.shutdown();
          if (!channel.awaitTermination(5, TimeUnit.SECONDS)) {
            channel.shutdownNow();
          }
        });
  }
}
