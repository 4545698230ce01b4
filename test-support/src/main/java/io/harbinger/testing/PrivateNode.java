package io.harbinger.testing;

import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;

/**
 * A throwaway RabbitMQ node that one test class owns: for faults that must never touch the shared
 * brokers (resource alarms, a stopped broker).
 *
 * <p>The node gets a unique name ({@code harbinger-it-<random>@localhost}), free AMQP and
 * distribution ports on 127.0.0.1, and a temporary directory for its database, logs, pid file,
 * configuration and Erlang cookie; it shares the machine's epmd, which is harmless because its name
 * is unique. {@link #close()} stops the node and deletes the directory. Starting takes a few
 * seconds, so share one node across the tests of a class:
 *
 * <pre>{@code
 * private static PrivateNode node;
 *
 * @BeforeAll static void startNode() throws Exception { node = PrivateNode.start(); }
 * @AfterAll static void stopNode() { Quietly.close(node); }
 * }</pre>
 *
 * <p>How the node's commands run is a {@link Runtime}: {@link Runtime#host()} runs the machine's
 * own RabbitMQ (3.10.8 on the project's machines). A runtime that prefixes every command with a
 * chroot into the Debian 13 root of {@code scripts/rabbitmq4.sh}, and maps the node's directory
 * into that root, gives 4.0.5 nodes the same way; several nodes started with one {@link
 * Builder#cookie} can then be joined into a cluster with {@link #rabbitmqctl}.
 *
 * <p>Where the runtime's binaries are missing, {@link #start} skips the calling test, or fails it
 * under {@code CI=true}, with one line saying what to install or set ({@link Prerequisite}). A node
 * that cannot start is stopped and its directory deleted before {@link #start} throws, with the
 * tail of its log in the message. A JVM shutdown hook stops nodes a test forgot to close.
 * Thread-safe: every method may be called from any thread; commands run one process each.
 */
public final class PrivateNode implements AutoCloseable {

  /** What a private node needs: a runtime whose binaries are there. */
  static final Prerequisite PREREQUISITE =
      Prerequisite.of(
          "a private RabbitMQ node",
          "Install RabbitMQ (Debian's package puts its binaries in "
              + Runtime.DEFAULT_BIN
              + "), or set "
              + Runtime.BIN_VARIABLE
              + " to the folder holding rabbitmq-server and rabbitmqctl");

  private static final Duration START_TIMEOUT = Duration.ofSeconds(90);
  private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(60);

  private final Runtime runtime;
  private final String nodeName;
  private final Path dir;
  private final int amqpPort;
  private final Map<String, String> environment;
  private final Thread shutdownHook;
  private volatile boolean closed;
  private volatile String version = "unknown";

  private PrivateNode(Builder b) throws IOException {
    runtime = b.runtime;
    nodeName = "harbinger-it-" + UUID.randomUUID().toString().substring(0, 8) + "@localhost";
    dir = runtime.newDirectory();
    amqpPort = freePort();
    int distPort = freePort();
    String inside = runtime.pathInside(dir);
    Path home = dir.resolve("home");
    Files.createDirectories(home);
    Files.createDirectories(dir.resolve("mnesia"));
    Files.createDirectories(dir.resolve("log"));
    if (b.cookie != null) {
      Path cookie = home.resolve(".erlang.cookie");
      Files.writeString(cookie, b.cookie, StandardCharsets.US_ASCII);
      cookie.toFile().setReadable(false, false);
      cookie.toFile().setReadable(true, true);
      cookie.toFile().setWritable(false, false);
    }
    StringBuilder conf =
        new StringBuilder()
            .append("listeners.tcp.local = 127.0.0.1:")
            .append(amqpPort)
            .append('\n')
            .append("loopback_users = none\n");
    b.config.forEach((k, v) -> conf.append(k).append(" = ").append(v).append('\n'));
    Files.writeString(dir.resolve("rabbitmq.conf"), conf.toString());
    Files.writeString(dir.resolve("rabbitmq-env.conf"), "ERL_EPMD_ADDRESS=127.0.0.1\n");
    Files.writeString(dir.resolve("enabled_plugins"), "[].\n");
    Map<String, String> env = new LinkedHashMap<>();
    env.put("HOME", inside + "/home");
    env.put("RABBITMQ_CONF_ENV_FILE", inside + "/rabbitmq-env.conf");
    env.put("RABBITMQ_CONFIG_FILE", inside + "/rabbitmq.conf");
    env.put("RABBITMQ_ENABLED_PLUGINS_FILE", inside + "/enabled_plugins");
    env.put("RABBITMQ_NODENAME", nodeName);
    env.put("RABBITMQ_NODE_IP_ADDRESS", "127.0.0.1");
    env.put("RABBITMQ_NODE_PORT", Integer.toString(amqpPort));
    env.put("RABBITMQ_DIST_PORT", Integer.toString(distPort));
    env.put("RABBITMQ_MNESIA_BASE", inside + "/mnesia");
    env.put("RABBITMQ_LOG_BASE", inside + "/log");
    env.put("RABBITMQ_PID_FILE", inside + "/pid");
    env.put("ERL_EPMD_ADDRESS", "127.0.0.1");
    env.put("RABBITMQ_SERVER_ADDITIONAL_ERL_ARGS", "-kernel inet_dist_use_interface {127,0,0,1}");
    environment = Map.copyOf(env);
    shutdownHook = new Thread(this::stopQuietly, "harbinger-private-node-" + nodeName);
  }

  /**
   * Starts a node of the machine's own RabbitMQ with the default configuration.
   *
   * <p>Where the machine has no RabbitMQ binaries, the calling test fails under {@code CI=true} and
   * is skipped elsewhere, with one line naming {@value Runtime#BIN_VARIABLE} ({@link
   * Prerequisite}).
   *
   * @return the running node, accepting AMQP connections
   * @throws IOException when it does not start within 90 s; the node is then already stopped
   */
  public static PrivateNode start() throws IOException {
    return builder().start();
  }

  /**
   * Starts configuring a node.
   *
   * @return a builder for a host node with the default configuration
   */
  public static Builder builder() {
    return new Builder();
  }

  private PrivateNode boot() throws IOException {
    java.lang.Runtime.getRuntime().addShutdownHook(shutdownHook);
    try {
      run(runtime.server(), List.of("-detached"));
      long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
      // rabbitmq-server -detached returns before the node registers with epmd, and await_startup
      // gives up at once on a node it cannot reach: retry until the node answers.
      while (true) {
        try {
          rabbitmqctl("-t", "30", "await_startup");
          break;
        } catch (IOException e) {
          if (System.nanoTime() > deadline) {
            throw e;
          }
          sleep(Duration.ofMillis(300));
        }
      }
      while (!portOpen()) {
        if (System.nanoTime() > deadline) {
          throw new IOException("127.0.0.1:" + amqpPort + " does not accept connections");
        }
        sleep(Duration.ofMillis(100));
      }
      version = rabbitmqctl("-q", "version").strip();
      return this;
    } catch (IOException | RuntimeException e) {
      String tail = logTail();
      stopQuietly();
      throw new IOException(
          "private RabbitMQ node " + nodeName + " did not start: " + e.getMessage() + tail, e);
    }
  }

  /** Returns the node's name, such as {@code harbinger-it-1a2b3c4d@localhost}. */
  public String nodeName() {
    return nodeName;
  }

  /** Returns the node's AMQP port on 127.0.0.1. */
  public int amqpPort() {
    return amqpPort;
  }

  /** Returns the node's AMQP URI, as guest (allowed from any address on this node). */
  public String uri() {
    return "amqp://guest:guest@127.0.0.1:" + amqpPort + "/%2F";
  }

  /**
   * Returns the node as a {@link TestBroker}, so that code written for the shared brokers (users,
   * {@code closeConnectionFromBroker}) works on it too.
   */
  public TestBroker broker() {
    BrokerKind kind = version.startsWith("4.") ? BrokerKind.RABBITMQ_4 : BrokerKind.RABBITMQ_3;
    List<String> ctl = new ArrayList<>(runtime.prefix());
    ctl.add("env");
    environment.forEach((k, v) -> ctl.add(k + "=" + v));
    ctl.add(runtime.ctl());
    ctl.add("-n");
    ctl.add(nodeName);
    return new TestBroker(kind, uri(), version, ctl);
  }

  /** Returns a new connection factory for the node (see {@link TestBroker#factory()}). */
  public ConnectionFactory factory() {
    return broker().factory();
  }

  /**
   * Opens a connection with a client-provided name.
   *
   * @param name the connection's name
   * @return the open connection
   * @throws IOException when the node refuses
   */
  public Connection newConnection(String name) throws IOException {
    try {
      return factory().newConnection(name);
    } catch (TimeoutException e) {
      throw new IOException("connecting to " + nodeName + " timed out", e);
    }
  }

  /**
   * Runs {@code rabbitmqctl} against this node.
   *
   * @param args the arguments, such as {@code list_queues name}
   * @return what it printed
   * @throws IOException when it fails, exits non-zero or takes more than 60 s
   */
  public String rabbitmqctl(String... args) throws IOException {
    List<String> all = new ArrayList<>(List.of("-n", nodeName));
    all.addAll(List.of(args));
    return run(runtime.ctl(), all);
  }

  /**
   * Raises or clears a memory alarm on this node: while raised, RabbitMQ blocks every connection
   * that publishes.
   *
   * @param raised true to raise the alarm (memory watermark 0), false to clear it
   * @throws IOException when rabbitmqctl fails
   */
  public void memoryAlarm(boolean raised) throws IOException {
    rabbitmqctl("set_vm_memory_high_watermark", raised ? "0" : "0.4");
  }

  /**
   * Stops the RabbitMQ application, leaving the Erlang node up: every connection is closed and new
   * ones are refused until {@link #startApp()}.
   *
   * @throws IOException when rabbitmqctl fails
   */
  public void stopApp() throws IOException {
    rabbitmqctl("stop_app");
  }

  /**
   * Starts the RabbitMQ application again after {@link #stopApp()} and waits until it accepts
   * connections.
   *
   * @throws IOException when it does not come back within 90 s
   */
  public void startApp() throws IOException {
    rabbitmqctl("start_app");
    rabbitmqctl("-t", "60", "await_startup");
    long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
    while (!portOpen()) {
      if (System.nanoTime() > deadline) {
        throw new IOException("127.0.0.1:" + amqpPort + " does not accept connections");
      }
      sleep(Duration.ofMillis(100));
    }
  }

  /** Stops the node and deletes its directory; safe to call twice. */
  @Override
  public void close() {
    stopQuietly();
    try {
      java.lang.Runtime.getRuntime().removeShutdownHook(shutdownHook);
    } catch (IllegalStateException e) {
      // The JVM is already shutting down; the hook runs or ran.
    }
  }

  @Override
  public String toString() {
    return "private RabbitMQ " + version + " node " + nodeName + " at 127.0.0.1:" + amqpPort;
  }

  private synchronized void stopQuietly() {
    if (closed) {
      return;
    }
    closed = true;
    Optional<ProcessHandle> process = processFromPidFile();
    try {
      run(runtime.ctl(), List.of("-n", nodeName, "stop"));
    } catch (IOException | RuntimeException e) {
      process.ifPresent(ProcessHandle::destroyForcibly);
    }
    // rabbitmqctl stop returns once the node has halted, a moment before its process is gone.
    process.ifPresent(
        p -> {
          try {
            p.onExit().get(10, TimeUnit.SECONDS);
          } catch (Exception e) {
            p.destroyForcibly();
          }
        });
    deleteDirectory();
  }

  /** Returns the node's operating-system process, while its pid file exists. */
  Optional<ProcessHandle> processFromPidFile() {
    try {
      Path pid = dir.resolve("pid");
      if (Files.isRegularFile(pid)) {
        return ProcessHandle.of(Long.parseLong(Files.readString(pid).strip()));
      }
    } catch (IOException | RuntimeException e) {
      // No pid file yet, or not a number.
    }
    return Optional.empty();
  }

  /** Returns the node's directory on the host. */
  Path directory() {
    return dir;
  }

  private void deleteDirectory() {
    try (Stream<Path> files = Files.walk(dir)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException | UncheckedIOException e) {
      // Left in the temporary directory.
    }
  }

  private String logTail() {
    try (Stream<Path> logs = Files.list(dir.resolve("log"))) {
      StringBuilder s = new StringBuilder();
      for (Path log : logs.filter(p -> p.toString().endsWith(".log")).toList()) {
        List<String> lines = Files.readAllLines(log);
        s.append(System.lineSeparator()).append("--- last lines of ").append(log);
        for (String line : lines.subList(Math.max(0, lines.size() - 30), lines.size())) {
          s.append(System.lineSeparator()).append(line);
        }
      }
      return s.toString();
    } catch (IOException | UncheckedIOException e) {
      return "";
    }
  }

  private String run(String binary, List<String> args) throws IOException {
    List<String> command = new ArrayList<>(runtime.prefix());
    command.add("env");
    environment.forEach((k, v) -> command.add(k + "=" + v));
    command.add(binary);
    command.addAll(args);
    Process p =
        new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
    String out;
    try (InputStream in = p.getInputStream()) {
      out = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    try {
      if (!p.waitFor(COMMAND_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new IOException(binary + " " + args + " did not finish within 60 s");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      p.destroyForcibly();
      throw new IOException("interrupted while running " + binary, e);
    }
    if (p.exitValue() != 0) {
      throw new IOException(
          binary + " " + args + " failed with exit code " + p.exitValue() + ": " + out.strip());
    }
    return out;
  }

  private boolean portOpen() {
    try (java.net.Socket s = new java.net.Socket(InetAddress.getLoopbackAddress(), amqpPort)) {
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  private static void sleep(Duration d) throws IOException {
    try {
      Thread.sleep(d.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while waiting for the node", e);
    }
  }

  /**
   * How a node's commands run: a prefix (empty on the host, {@code chroot ROOT} for a root of its
   * own), the two binaries, and where node directories live as seen from inside.
   */
  public interface Runtime {

    /**
     * The variable naming the folder of the host's {@code rabbitmq-server} and {@code rabbitmqctl}.
     */
    String BIN_VARIABLE = "HARBINGER_RABBITMQ_BIN";

    /** The folder of the host's RabbitMQ binaries when {@value #BIN_VARIABLE} is not set. */
    String DEFAULT_BIN = "/usr/lib/rabbitmq/bin";

    /** Returns the words put before {@code env ... rabbitmq-server}, empty on the host. */
    List<String> prefix();

    /** Returns the {@code rabbitmq-server} binary, as seen through the prefix. */
    String server();

    /** Returns the {@code rabbitmqctl} binary, as seen through the prefix. */
    String ctl();

    /**
     * Creates an empty directory for one node, on the host's file system.
     *
     * @return its host path
     * @throws IOException when it cannot be created
     */
    Path newDirectory() throws IOException;

    /**
     * Returns a host path as the node's commands see it (the same path on the host, the path below
     * the root for a chroot).
     *
     * @param hostPath a directory made by {@link #newDirectory()}
     * @return the path through the prefix
     */
    String pathInside(Path hostPath);

    /**
     * Returns why this runtime cannot start a node on this machine, such as a missing binary; empty
     * when it can, or when it cannot tell before trying.
     */
    default Optional<String> unavailable() {
      return Optional.empty();
    }

    /**
     * Returns the machine's own RabbitMQ, run directly from the folder {@value #BIN_VARIABLE}
     * names, {@value #DEFAULT_BIN} by default (Debian's; not through the Debian wrappers in {@code
     * /usr/sbin}, which switch to the {@code rabbitmq} user and its home). A generic Unix
     * installation's {@code sbin} folder works too. No root is needed: everything the node writes
     * is in its own directory.
     */
    static Runtime host() {
      Path bin = Path.of(Environment.current().get(BIN_VARIABLE).orElse(DEFAULT_BIN));
      return new Runtime() {
        @Override
        public List<String> prefix() {
          return List.of();
        }

        @Override
        public String server() {
          return bin.resolve("rabbitmq-server").toString();
        }

        @Override
        public String ctl() {
          return bin.resolve("rabbitmqctl").toString();
        }

        @Override
        public Path newDirectory() throws IOException {
          return Files.createTempDirectory("harbinger-node-");
        }

        @Override
        public String pathInside(Path hostPath) {
          return hostPath.toAbsolutePath().toString();
        }

        @Override
        public Optional<String> unavailable() {
          for (String binary : List.of(server(), ctl())) {
            if (!Files.isExecutable(Path.of(binary))) {
              return Optional.of("no executable " + binary);
            }
          }
          return Optional.empty();
        }
      };
    }
  }

  /** Configures a {@link PrivateNode}; not thread-safe. */
  public static final class Builder {
    private Runtime runtime = Runtime.host();
    private String cookie;
    private final Map<String, String> config = new LinkedHashMap<>();

    private Builder() {}

    /**
     * Sets how the node's commands run.
     *
     * @param value the runtime, {@link Runtime#host()} by default
     * @return this builder
     */
    public Builder runtime(Runtime value) {
      runtime = Objects.requireNonNull(value, "runtime");
      return this;
    }

    /**
     * Sets the Erlang cookie, so that several nodes can be clustered; a fresh one by default.
     *
     * @param value 20 or more letters
     * @return this builder
     */
    public Builder cookie(String value) {
      if (value == null || !value.matches("[A-Za-z]{20,}")) {
        throw new IllegalArgumentException("cookie must be 20 or more letters: " + value);
      }
      cookie = value;
      return this;
    }

    /**
     * Adds a line to the node's {@code rabbitmq.conf}.
     *
     * @param key a setting, such as {@code max_message_size}
     * @param value its value
     * @return this builder
     */
    public Builder config(String key, String value) {
      config.put(Objects.requireNonNull(key, "key"), Objects.requireNonNull(value, "value"));
      return this;
    }

    /**
     * Starts the node; where the runtime cannot run here ({@link Runtime#unavailable()}), fails the
     * calling test under {@code CI=true} and skips it elsewhere.
     *
     * @return the running node
     * @throws IOException when it does not start within 90 s; the node is then already stopped
     */
    public PrivateNode start() throws IOException {
      Optional<String> unavailable = runtime.unavailable();
      PREREQUISITE.require(unavailable.isEmpty(), unavailable.orElse(""));
      return new PrivateNode(this).boot();
    }
  }
}
