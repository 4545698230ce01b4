package io.harbinger.sidecar.demo;

import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import org.junit.jupiter.api.Assumptions;

/**
 * Skips the demo test on a developer machine without RabbitMQ; under CI=true the demo itself fails
 * instead.
 */
final class DemoRabbit {

  private DemoRabbit() {}

  static void requireBroker() {
    ConnectionFactory f = new ConnectionFactory();
    try {
      f.setUri(
          System.getenv().getOrDefault("RABBITMQ_URI", "amqp://guest:guest@127.0.0.1:5672/%2F"));
      try (Connection c = f.newConnection()) {
        return;
      }
    } catch (Exception e) {
      Assumptions.abort("RabbitMQ is not reachable: " + e);
    }
  }
}
