package io.harbinger.testing;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;

/** Best-effort clean-up after a test: each method ignores what is already gone or never was. */
public final class Quietly {

  private Quietly() {}

  /** Closes a resource, ignoring null and any failure. */
  public static void close(AutoCloseable closeable) {
    if (closeable == null) {
      return;
    }
    try {
      closeable.close();
    } catch (Exception e) {
      // Already closed, or its broker is gone.
    }
  }

  /** Stops an executor's threads and waits up to 5 s for them. */
  public static void shutdown(ExecutorService executor) {
    if (executor == null) {
      return;
    }
    executor.shutdownNow();
    try {
      executor.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Deletes a queue on a channel of its own, ignoring a queue that does not exist. */
  public static void deleteQueue(Connection connection, String queue) {
    try (Channel ch = connection.createChannel()) {
      ch.queueDelete(queue);
    } catch (Exception e) {
      // Never declared, or already gone.
    }
  }

  /** Deletes an exchange on a channel of its own, ignoring an exchange that does not exist. */
  public static void deleteExchange(Connection connection, String exchange) {
    try (Channel ch = connection.createChannel()) {
      ch.exchangeDelete(exchange);
    } catch (Exception e) {
      // Never declared, or already gone.
    }
  }

  /**
   * Deletes queues and exchanges on a connection of its own, ignoring the ones that do not exist
   * and a broker that has gone away.
   */
  public static void delete(TestBroker broker, List<String> queues, List<String> exchanges) {
    try (Connection c = broker.newConnection("harbinger-it-cleanup")) {
      queues.forEach(q -> deleteQueue(c, q));
      exchanges.forEach(x -> deleteExchange(c, x));
    } catch (Exception e) {
      // The broker went away: nothing left to clean.
    }
  }
}
