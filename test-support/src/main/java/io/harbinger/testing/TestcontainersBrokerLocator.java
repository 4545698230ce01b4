package io.harbinger.testing;

import java.io.File;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.RabbitMQContainer;
import org.testcontainers.utility.DockerImageName;

/**
 * Starts RabbitMQ in a container with Testcontainers when no broker answers at the configured URI
 * and a Docker daemon is reachable; registered with {@link java.util.ServiceLoader}, so {@link
 * BrokerExtension} asks it after the URI of {@link BrokerKind#uriVariable()}.
 *
 * <p>Settings (system properties over environment variables, as everywhere in the extension):
 *
 * <ul>
 *   <li>{@code HARBINGER_TESTCONTAINERS}: {@code off} never starts a container.
 *   <li>{@code HARBINGER_TESTCONTAINERS_RABBITMQ3_IMAGE}, {@code
 *       HARBINGER_TESTCONTAINERS_RABBITMQ4_IMAGE}: the images, {@value #RABBITMQ_3_IMAGE} and
 *       {@value #RABBITMQ_4_IMAGE} by default (any image compatible with the official one).
 *   <li>{@code HARBINGER_TESTCONTAINERS_NETWORK}: {@code host} is for machines whose containers may
 *       use only the host's loopback: the container shares the host's network, and the node listens
 *       on 127.0.0.1 on free ports (AMQP, Erlang distribution and an epmd of its own) instead of a
 *       port published by Docker. Elsewhere Testcontainers' own networking applies.
 * </ul>
 *
 * <p>The container is found through Testcontainers (its Ryuk container removes it if the JVM dies;
 * {@code TESTCONTAINERS_RYUK_DISABLED=true} where Ryuk's image cannot be had), and stopped by a
 * shutdown hook when the JVM exits. The node is driven with {@code docker exec <container>
 * rabbitmqctl} when the {@code docker} command is on the path.
 *
 * <p>When a daemon answers but Testcontainers cannot use it, the failure says why in
 * Testcontainers' own words, and for a daemon without its bridge network (as {@code dockerd
 * --bridge=none} runs) names the variables that run the container on the host's network instead. An
 * image that failed to start is not tried again in the same JVM: every later test that needs it is
 * told at once, with the first failure.
 *
 * <p>Instances are used by one thread; the memory of failed starts is shared by the JVM.
 */
public final class TestcontainersBrokerLocator implements BrokerLocator {

  /** The variable that turns the locator off ({@code off}). */
  public static final String ENABLED = "HARBINGER_TESTCONTAINERS";

  /** The variable that puts the container on the host's network ({@code host}). */
  public static final String NETWORK = "HARBINGER_TESTCONTAINERS_NETWORK";

  /** The RabbitMQ 3.x image started by default: the last 3.x series. */
  public static final String RABBITMQ_3_IMAGE = "rabbitmq:3.13.7-management";

  /** The RabbitMQ 4.x image started by default: the version the project tests on. */
  public static final String RABBITMQ_4_IMAGE = "rabbitmq:4.0.5-management";

  /** The failure of a machine without a Docker daemon. */
  static final String NO_DAEMON = "no Docker daemon answers";

  /** Whether Testcontainers can start containers; Testcontainers' own check outside tests. */
  interface Docker {
    /**
     * Returns why containers cannot be started.
     *
     * @return empty when they can; otherwise the reason, {@link #NO_DAEMON} where none answers
     */
    Optional<String> problem();
  }

  /** Starts a container; the real start outside tests. */
  interface Starter {
    /**
     * Starts the container, or throws why not.
     *
     * @param container the container, configured
     */
    void start(RabbitMQContainer container);
  }

  /**
   * Testcontainers' own check, asked only where a daemon may be: {@code DOCKER_HOST} set, a
   * Testcontainers configuration file, Windows, or one of the usual sockets present. Elsewhere
   * there is no daemon to find, and asking Testcontainers would only log its search as an error.
   */
  static final Docker TESTCONTAINERS =
      () -> {
        if (!mayHaveDocker()) {
          return Optional.of(NO_DAEMON);
        }
        try {
          DockerClientFactory.instance().client();
          return Optional.empty();
        } catch (RuntimeException e) {
          return Optional.of(unusable(rootMessage(e)));
        }
      };

  /** Images that failed to start in this JVM, with why: not tried again. */
  private static final Map<String, String> FAILED_STARTS = new ConcurrentHashMap<>();

  /** The sockets Testcontainers and the common Docker distributions use, under the home folder. */
  private static final List<String> HOME_SOCKETS =
      List.of(
          ".docker/run/docker.sock",
          ".docker/desktop/docker.sock",
          ".colima/default/docker.sock",
          ".colima/docker.sock",
          ".rd/docker.sock",
          ".orbstack/run/docker.sock");

  private final Docker docker;
  private final Starter starter;
  private String lastFailure = "";

  /** Creates the locator that {@link java.util.ServiceLoader} registers. */
  public TestcontainersBrokerLocator() {
    this(TESTCONTAINERS, RabbitMQContainer::start);
  }

  TestcontainersBrokerLocator(Docker docker, Starter starter) {
    this.docker = docker;
    this.starter = starter;
  }

  /**
   * Returns why Testcontainers cannot use a daemon that may be there, with the way out where it is
   * known.
   *
   * @param cause Testcontainers' own message
   * @return one sentence for the failure line
   */
  static String unusable(String cause) {
    String reason = "Docker answers, but Testcontainers cannot start containers (" + cause + ")";
    if (cause.toLowerCase(Locale.ROOT).contains("bridge")) {
      reason +=
          "; on a daemon without its bridge network (dockerd --bridge=none) set"
              + " HARBINGER_TESTCONTAINERS_NETWORK=host, TESTCONTAINERS_RYUK_DISABLED=true and"
              + " TESTCONTAINERS_HOST_OVERRIDE=127.0.0.1 to run the broker on the host's network";
    }
    return reason;
  }

  /**
   * Returns the variable naming the image of a kind.
   *
   * @param kind the kind
   * @return {@code HARBINGER_TESTCONTAINERS_RABBITMQ3_IMAGE} or {@code ..._RABBITMQ4_IMAGE}
   */
  public static String imageVariable(BrokerKind kind) {
    return "HARBINGER_TESTCONTAINERS_RABBITMQ" + kind.majorVersion() + "_IMAGE";
  }

  /**
   * Returns the image started for a kind unless {@link #imageVariable} names another.
   *
   * @param kind the kind
   * @return the official image of that major version
   */
  public static String defaultImage(BrokerKind kind) {
    return switch (kind) {
      case RABBITMQ_3 -> RABBITMQ_3_IMAGE;
      case RABBITMQ_4 -> RABBITMQ_4_IMAGE;
    };
  }

  @Override
  public Optional<TestBroker> locate(BrokerKind kind, Environment environment) {
    if (environment.get(ENABLED).map("off"::equalsIgnoreCase).orElse(false)) {
      lastFailure = ENABLED + "=off, so none is started in a container";
      return Optional.empty();
    }
    String image = environment.get(imageVariable(kind)).orElse(defaultImage(kind));
    boolean hostNetwork = environment.get(NETWORK).map("host"::equalsIgnoreCase).orElse(false);
    String attempt = image + (hostNetwork ? " on the host's network" : "");
    String failed = FAILED_STARTS.get(attempt);
    if (failed != null) {
      lastFailure = failed + " (not tried again in this JVM)";
      return Optional.empty();
    }
    Optional<String> problem = dockerProblem();
    if (problem.isPresent()) {
      lastFailure =
          problem.get()
              + (problem.get().equals(NO_DAEMON) ? " either" : "")
              + ", so "
              + image
              + " was not started in a container";
      return Optional.empty();
    }
    RabbitMQContainer container =
        new RabbitMQContainer(DockerImageName.parse(image).asCompatibleSubstituteFor("rabbitmq"));
    int hostPort = -1;
    if (hostNetwork) {
      try {
        hostPort = freePort();
        // Nothing is published on the host's network: Testcontainers must not wait for mappings.
        container.setExposedPorts(List.of());
        container.withNetworkMode("host").withEnv(loopbackNode(hostPort, freePort(), freePort()));
      } catch (IOException e) {
        lastFailure = "no free loopback port for a broker in a container: " + e.getMessage();
        return Optional.empty();
      }
    }
    try {
      starter.start(container);
    } catch (RuntimeException e) {
      container.stop();
      lastFailure = "Docker answers, but " + image + " did not start: " + rootMessage(e);
      FAILED_STARTS.put(attempt, lastFailure);
      return Optional.empty();
    }
    Runtime.getRuntime()
        .addShutdownHook(new Thread(container::stop, "harbinger-broker-container-stop"));
    String host = hostNetwork ? "127.0.0.1" : container.getHost();
    int port = hostNetwork ? hostPort : container.getAmqpPort();
    String uri =
        "amqp://"
            + container.getAdminUsername()
            + ":"
            + container.getAdminPassword()
            + "@"
            + host
            + ":"
            + port
            + "/%2F";
    // The same connection and version check as for a broker the environment names.
    EnvironmentBrokerLocator check = new EnvironmentBrokerLocator();
    Optional<TestBroker> reached =
        check.locate(kind, Environment.of(Map.of(kind.uriVariable(), uri)));
    if (reached.isEmpty()) {
      container.stop();
      lastFailure = "the broker started from " + image + " is not usable: " + check.lastFailure();
      return Optional.empty();
    }
    lastFailure = "";
    return Optional.of(new TestBroker(kind, uri, reached.get().version(), ctlCommand(container)));
  }

  @Override
  public String lastFailure() {
    return lastFailure;
  }

  private Optional<String> dockerProblem() {
    try {
      return docker.problem();
    } catch (RuntimeException e) {
      return Optional.of(unusable(rootMessage(e)));
    }
  }

  /** Forgets the failed starts of this JVM; for tests. */
  static void forgetFailedStarts() {
    FAILED_STARTS.clear();
  }

  /** Returns whether anything on this machine points at a Docker daemon. */
  private static boolean mayHaveDocker() {
    Environment environment = Environment.current();
    if (environment.get("DOCKER_HOST").isPresent()
        || System.getProperty("os.name", "").startsWith("Windows")) {
      return true;
    }
    List<Path> candidates = new ArrayList<>();
    candidates.add(Path.of("/var/run/docker.sock"));
    candidates.add(Path.of("/run/docker.sock"));
    environment.get("XDG_RUNTIME_DIR").ifPresent(d -> candidates.add(Path.of(d, "docker.sock")));
    String home = System.getProperty("user.home", "");
    if (!home.isEmpty()) {
      candidates.add(Path.of(home, ".testcontainers.properties"));
      HOME_SOCKETS.forEach(socket -> candidates.add(Path.of(home, socket)));
    }
    return candidates.stream().anyMatch(Files::exists);
  }

  /** The environment that puts a node on 127.0.0.1 with its own ports and epmd. */
  private static Map<String, String> loopbackNode(int amqp, int dist, int epmd) {
    return Map.of(
        "RABBITMQ_NODENAME",
        "harbinger-it-" + UUID.randomUUID().toString().substring(0, 8) + "@localhost",
        "RABBITMQ_NODE_IP_ADDRESS",
        "127.0.0.1",
        "RABBITMQ_NODE_PORT",
        Integer.toString(amqp),
        "RABBITMQ_DIST_PORT",
        Integer.toString(dist),
        "ERL_EPMD_PORT",
        Integer.toString(epmd),
        "ERL_EPMD_ADDRESS",
        "127.0.0.1",
        "RABBITMQ_SERVER_ADDITIONAL_ERL_ARGS",
        "-kernel inet_dist_use_interface {127,0,0,1}");
  }

  private static List<String> ctlCommand(RabbitMQContainer container) {
    return onPath("docker")
        ? List.of("docker", "exec", container.getContainerId(), "rabbitmqctl")
        : List.of();
  }

  private static boolean onPath(String command) {
    String path = System.getenv("PATH");
    if (path == null) {
      return false;
    }
    for (String dir : path.split(File.pathSeparator)) {
      if (new File(dir, command).canExecute()) {
        return true;
      }
    }
    return false;
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  private static String rootMessage(Throwable e) {
    Throwable root = e;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    return root.getMessage() == null ? root.toString() : root.getMessage();
  }
}
