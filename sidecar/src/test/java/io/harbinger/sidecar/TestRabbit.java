package io.harbinger.sidecar;

import static org.assertj.core.api.Assertions.fail;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import java.util.UUID;
import org.junit.jupiter.api.Assumptions;

/**
 * The RabbitMQ of the sidecar's integration tests: RABBITMQ_URI, loopback by default; fails under
 * CI=true.
 */
final class TestRabbit {

  static final String DEFAULT_URI = "amqp://guest:guest@127.0.0.1:5672/%2F";

  private TestRabbit() {}

  static ConnectionFactory factory() {
    String uri = System.getenv().getOrDefault("RABBITMQ_URI", DEFAULT_URI);
    ConnectionFactory factory = new ConnectionFactory();
    try {
      factory.setUri(uri);
      factory.setConnectionTimeout(3_000);
      factory.setNetworkRecoveryInterval(200);
      try (Connection probe = factory.newConnection("harbinger-sidecar-it-probe")) {
        return factory;
      }
    } catch (Exception e) {
      String message = "RabbitMQ is not reachable at " + uri + ": " + e;
      if ("true".equalsIgnoreCase(System.getenv("CI"))) {
        fail(message);
      }
      Assumptions.abort(message);
      throw new AssertionError(message);
    }
  }

  /** The AMQP URI of the factory without credentials, as the sidecar's configuration wants it. */
  static String bareUri(ConnectionFactory f) {
    return "amqp://"
        + f.getHost()
        + ":"
        + f.getPort()
        + "/"
        + java.net.URLEncoder.encode(f.getVirtualHost(), java.nio.charset.StandardCharsets.UTF_8);
  }

  static String unique(String prefix) {
    return "harbinger.it." + prefix + "." + UUID.randomUUID().toString().substring(0, 8);
  }

  static void cleanUp(ConnectionFactory factory, String exchange, String... queues) {
    try (Connection c = factory.newConnection();
        Channel ch = c.createChannel()) {
      for (String q : queues) {
        ch.queueDelete(q);
      }
      if (exchange != null) {
        ch.exchangeDelete(exchange);
      }
    } catch (Exception e) {
      // Best effort.
    }
  }
}
