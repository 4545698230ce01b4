package io.harbinger.testing;

import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A reachable RabbitMQ broker for one integration test: its URI, its version, connections to it,
 * and the command that drives its node.
 *
 * <p>Instances are immutable and safe to share between threads; {@link #factory()} returns a new
 * factory on every call.
 */
public final class TestBroker {

  private final BrokerKind kind;
  private final String uri;
  private final String version;
  private final List<String> ctlCommand;

  /**
   * Creates a broker description; locators call this once they have connected.
   *
   * @param kind the kind of broker
   * @param uri the AMQP URI, with credentials
   * @param version the version the broker reports in its server properties, such as {@code 4.0.5}
   * @param ctlCommand the command, with leading arguments, that runs {@code rabbitmqctl} against
   *     this broker's node; empty when the node cannot be driven
   */
  public TestBroker(BrokerKind kind, String uri, String version, List<String> ctlCommand) {
    this.kind = Objects.requireNonNull(kind, "kind");
    this.uri = Objects.requireNonNull(uri, "uri");
    this.version = Objects.requireNonNull(version, "version");
    this.ctlCommand = List.copyOf(ctlCommand);
  }

  /** Returns the kind of this broker. */
  public BrokerKind kind() {
    return kind;
  }

  /** Returns the AMQP URI, credentials included. */
  public String uri() {
    return uri;
  }

  /** Returns the version the broker reports, such as {@code 3.10.8}. */
  public String version() {
    return version;
  }

  /** Returns the major version the broker reports, or -1 when it does not parse. */
  public int majorVersion() {
    int dot = version.indexOf('.');
    try {
      return Integer.parseInt(dot < 0 ? version : version.substring(0, dot));
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  /** Returns the host and port, such as {@code 127.0.0.1:5674}. */
  public String address() {
    URI parsed = URI.create(uri);
    return parsed.getHost() + ":" + (parsed.getPort() < 0 ? 5672 : parsed.getPort());
  }

  /** Returns a label for test output, such as {@code RabbitMQ 4.0.5 at 127.0.0.1:5674}. */
  public String label() {
    return "RabbitMQ " + version + " at " + address();
  }

  /**
   * Returns a new connection factory for this broker, with fast network recovery (200 ms) and a 3 s
   * connection timeout.
   */
  public ConnectionFactory factory() {
    ConnectionFactory factory = new ConnectionFactory();
    try {
      factory.setUri(uri);
    } catch (Exception e) {
      throw new IllegalStateException("invalid AMQP URI " + redacted() + ": " + e.getMessage(), e);
    }
    factory.setNetworkRecoveryInterval(200);
    factory.setConnectionTimeout(3_000);
    return factory;
  }

  /**
   * Opens a connection with a client-provided name, which {@link #closeConnectionFromBroker} finds.
   *
   * @param name the connection's name
   * @return the open connection
   * @throws IOException when the broker refuses
   */
  public Connection newConnection(String name) throws IOException {
    try {
      return factory().newConnection(name);
    } catch (TimeoutException e) {
      throw new IOException("connecting to " + label() + " timed out", e);
    }
  }

  /**
   * Returns the URI without credentials, as the sidecar's configuration takes it ({@code
   * amqp://host:port/vhost}).
   */
  public String bareUri() {
    ConnectionFactory f = factory();
    return "amqp://"
        + f.getHost()
        + ":"
        + f.getPort()
        + "/"
        + URLEncoder.encode(f.getVirtualHost(), StandardCharsets.UTF_8);
  }

  /** Returns the URI with its password replaced by {@code ***}, for messages. */
  public String redacted() {
    return redact(uri);
  }

  static String redact(String uri) {
    return uri.replaceAll("//([^:/@]*):[^@/]*@", "//$1:***@");
  }

  /** Returns whether this broker's node can be driven with {@link #rabbitmqctl}. */
  public boolean controllable() {
    return !ctlCommand.isEmpty();
  }

  /**
   * Runs {@code rabbitmqctl} against this broker's node and returns its output.
   *
   * @param args the arguments, such as {@code list_queues name}
   * @return what the command printed (standard output and error)
   * @throws IOException when the command fails, exits non-zero, or takes more than 60 s
   * @throws IllegalStateException when the node cannot be driven (see {@link #controllable()})
   */
  public String rabbitmqctl(String... args) throws IOException, InterruptedException {
    if (ctlCommand.isEmpty()) {
      throw new IllegalStateException(
          "no rabbitmqctl command for " + label() + ": set " + kind.ctlVariable());
    }
    List<String> command = new ArrayList<>(ctlCommand);
    command.addAll(List.of(args));
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    String out;
    try (InputStream in = p.getInputStream()) {
      out = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    if (!p.waitFor(60, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new IOException(String.join(" ", command) + " did not finish within 60 s");
    }
    if (p.exitValue() != 0) {
      throw new IOException(
          String.join(" ", command) + " failed with exit code " + p.exitValue() + ": " + out);
    }
    return out;
  }

  /**
   * Closes, from the broker's side, the connection with a given client-provided name, as a broker
   * restart or an operator would.
   *
   * @param connectionName the name given to {@link #newConnection(String)}
   * @throws IOException when no such connection is listed or rabbitmqctl fails
   */
  public void closeConnectionFromBroker(String connectionName)
      throws IOException, InterruptedException {
    String list = rabbitmqctl("list_connections", "-q", "pid", "client_properties");
    for (String line : list.split("\n")) {
      if (line.contains("\"" + connectionName + "\"")) {
        String pid = line.trim().split("\\s+")[0];
        rabbitmqctl("close_connection", pid, "harbinger integration test");
        return;
      }
    }
    throw new IOException(
        "no connection named " + connectionName + " on " + label() + ":\n" + list);
  }

  /**
   * Creates a user with a unique name and a random password on this broker, with permissions on the
   * broker's virtual host; close it to delete the user.
   *
   * @param prefix what the user is for, such as {@code bob}; letters, digits and '-'
   * @param configure the configure permission, a regular expression such as {@code ".*"}
   * @param write the write permission
   * @param read the read permission
   * @return the user
   * @throws IOException when rabbitmqctl fails (the half-created user is deleted)
   */
  public TemporaryUser addUser(String prefix, String configure, String write, String read)
      throws IOException, InterruptedException {
    if (prefix == null || !prefix.matches("[A-Za-z0-9-]{1,32}")) {
      throw new IllegalArgumentException("prefix must be 1-32 letters, digits or '-': " + prefix);
    }
    String name = "harbinger-it-" + prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
    String password = UUID.randomUUID().toString();
    TemporaryUser user = new TemporaryUser(this, name, password);
    try {
      rabbitmqctl("add_user", name, password);
      rabbitmqctl(
          "set_permissions", "-p", factory().getVirtualHost(), name, configure, write, read);
    } catch (IOException | RuntimeException | InterruptedException e) {
      user.close();
      throw e;
    }
    return user;
  }

  /**
   * Returns a queue or exchange name unique to this run, such as {@code harbinger.it.pub.1a2b3c4d}.
   *
   * @param prefix what the name is for
   * @return the name
   */
  public static String unique(String prefix) {
    return "harbinger.it." + prefix + "." + UUID.randomUUID().toString().substring(0, 8);
  }

  @Override
  public String toString() {
    return label();
  }
}
