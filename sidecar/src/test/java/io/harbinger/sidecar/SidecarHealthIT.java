package io.harbinger.sidecar;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import io.grpc.ManagedChannel;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.harbinger.testing.PrivateNode;
import io.harbinger.testing.ProgressWait;
import io.harbinger.testing.Quietly;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Health while RabbitMQ goes away and comes back, on a node of the test's own: gRPC health and
 * {@code /ready} say NOT_SERVING while it is unreachable, SERVING once the sidecar has recovered.
 */
class SidecarHealthIT {

  private static PrivateNode node;

  @TempDir Path dir;

  @BeforeAll
  static void startNode() throws Exception {
    node = PrivateNode.start();
  }

  @AfterAll
  static void stopNode() {
    Quietly.close(node);
  }

  private static HttpResponse<String> ready(int port) throws Exception {
    return HttpClient.newHttpClient()
        .send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/ready")).build(),
            HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void rabbitMqStopped_notServing_thenServingAndLearningAfterRecovery() throws Exception {
    SidecarConfig config =
        SidecarTestSupport.config(
            dir,
            "metrics.port",
            "0",
            "rabbitmq.uri",
            node.broker().bareUri(),
            "replica-id",
            "health");
    String name = InProcessServerBuilder.generateName();
    Sidecar sidecar = Sidecar.start(config, InProcessServerBuilder.forName(name), true);
    ManagedChannel channel = InProcessChannelBuilder.forName(name).build();
    HealthGrpc.HealthBlockingStub health = HealthGrpc.newBlockingStub(channel);
    try {
      await()
          .atMost(Duration.ofSeconds(10))
          .until(
              () ->
                  health.check(HealthCheckRequest.getDefaultInstance()).getStatus()
                      == ServingStatus.SERVING);
      assertThat(ready(sidecar.metricsPort()).statusCode()).isEqualTo(200);

      node.stopApp();
      try {
        await()
            .atMost(Duration.ofSeconds(10))
            .until(
                () ->
                    health.check(HealthCheckRequest.getDefaultInstance()).getStatus()
                        == ServingStatus.NOT_SERVING);
        HttpResponse<String> down = ready(sidecar.metricsPort());
        assertThat(down.statusCode()).isEqualTo(503);
        assertThat(down.body()).startsWith("NOT_SERVING: RabbitMQ is unreachable at amqp://");
      } finally {
        node.startApp();
      }

      await()
          .atMost(Duration.ofSeconds(30))
          .until(
              () ->
                  health.check(HealthCheckRequest.getDefaultInstance()).getStatus()
                      == ServingStatus.SERVING);
      assertThat(ready(sidecar.metricsPort()).statusCode()).isEqualTo(200);
      try (Connection c = node.newConnection("harbinger-it-after");
          Channel ch = c.createChannel()) {
        ch.basicPublish(
            config.rabbit().reportsExchange(),
            "",
            new AMQP.BasicProperties.Builder().userId("guest").build(),
            SidecarTestSupport.threeTypes(1));
      }
      ProgressWait.on("reports learned", () -> SidecarTestSupport.learned(sidecar)).untilAtLeast(3);
      assertThat(SidecarTestSupport.learned(sidecar)).isEqualTo(3);
    } finally {
      channel.shutdownNow();
      sidecar.close();
    }
  }
}
