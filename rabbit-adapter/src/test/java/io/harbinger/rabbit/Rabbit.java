package io.harbinger.rabbit;

import static org.assertj.core.api.Assertions.fail;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/** The RabbitMQ broker of the integration tests: found from RABBITMQ_URI, loopback by default. */
final class Rabbit {

  static final String DEFAULT_URI = "amqp://guest:guest@127.0.0.1:5672/%2F";

  private Rabbit() {}

  /**
   * Returns a factory for the test broker; fails under CI=true and skips elsewhere when it is down.
   */
  static ConnectionFactory factory() {
    String uri = System.getenv().getOrDefault("RABBITMQ_URI", DEFAULT_URI);
    ConnectionFactory factory = new ConnectionFactory();
    try {
      factory.setUri(uri);
      factory.setNetworkRecoveryInterval(200);
      factory.setConnectionTimeout(3_000);
      try (Connection probe = factory.newConnection("harbinger-it-probe")) {
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

  /** Returns a name unique to this run. */
  static String unique(String prefix) {
    return "harbinger.it." + prefix + "." + UUID.randomUUID().toString().substring(0, 8);
  }

  static void deleteQueue(Connection connection, String queue) {
    try (Channel ch = connection.createChannel()) {
      ch.queueDelete(queue);
    } catch (Exception e) {
      // Best effort: the queue may never have been declared.
    }
  }

  static void deleteExchange(Connection connection, String exchange) {
    try (Channel ch = connection.createChannel()) {
      ch.exchangeDelete(exchange);
    } catch (Exception e) {
      // Best effort.
    }
  }

  static void close(AutoCloseable closeable) {
    if (closeable == null) {
      return;
    }
    try {
      closeable.close();
    } catch (Exception e) {
      // Best effort.
    }
  }

  static void shutdown(ExecutorService executor) throws InterruptedException {
    executor.shutdownNow();
    executor.awaitTermination(5, TimeUnit.SECONDS);
  }

  /** Runs rabbitmqctl with arguments and returns its output; fails on a non-zero exit. */
  static String rabbitmqctl(String... args) throws IOException, InterruptedException {
    String[] command = new String[args.length + 1];
    command[0] = "rabbitmqctl";
    System.arraycopy(args, 0, command, 1, args.length);
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    String out;
    try (InputStream in = p.getInputStream()) {
      out = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
      throw new IOException("rabbitmqctl " + String.join(" ", args) + " failed: " + out);
    }
    return out;
  }

  /** Closes, from the broker's side, the connection with a given client-provided name. */
  static void closeFromBroker(String connectionName) throws IOException, InterruptedException {
    String list = rabbitmqctl("list_connections", "-q", "pid", "client_properties");
    for (String line : list.split("\n")) {
      if (line.contains("\"" + connectionName + "\"")) {
        String pid = line.trim().split("\\s+")[0];
        rabbitmqctl("close_connection", pid, "harbinger integration test");
        return;
      }
    }
    throw new IOException("no connection named " + connectionName + " in:\n" + list);
  }
}
