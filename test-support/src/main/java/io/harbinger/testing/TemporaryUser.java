package io.harbinger.testing;

import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import java.io.IOException;
import java.util.Objects;
import java.util.concurrent.TimeoutException;

/**
 * A RabbitMQ user that one test created on a broker, with a unique name, and deletes when closed:
 * for tests that need an identity other than guest.
 *
 * <p>Create one with {@link TestBroker#addUser}; close it in {@code finally} or with
 * try-with-resources. Immutable and thread-safe.
 *
 * @param broker the broker the user lives on
 * @param name the user's unique name, such as {@code harbinger-it-bob-1a2b3c4d}
 * @param password the user's password
 */
public record TemporaryUser(TestBroker broker, String name, String password)
    implements AutoCloseable {

  /** Checks the values. */
  public TemporaryUser {
    Objects.requireNonNull(broker, "broker");
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(password, "password");
  }

  /** Returns a connection factory for the broker that authenticates as this user. */
  public ConnectionFactory factory() {
    ConnectionFactory f = broker.factory();
    f.setUsername(name);
    f.setPassword(password);
    return f;
  }

  /**
   * Opens a connection as this user with a client-provided name.
   *
   * @param connectionName the connection's name
   * @return the open connection
   * @throws IOException when the broker refuses
   */
  public Connection newConnection(String connectionName) throws IOException {
    try {
      return factory().newConnection(connectionName);
    } catch (TimeoutException e) {
      throw new IOException("connecting to " + broker.label() + " as " + name + " timed out", e);
    }
  }

  /** Deletes the user, ignoring one that is already gone. */
  @Override
  public void close() {
    try {
      broker.rabbitmqctl("delete_user", name);
    } catch (IOException | RuntimeException e) {
      // Already deleted, or the broker is gone.
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public String toString() {
    return "TemporaryUser[" + name + " on " + broker.label() + "]";
  }
}
