package io.harbinger.sidecar;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.harbinger.predictor.Mode;
import io.harbinger.predictor.PredictorConfig;
import io.harbinger.rabbit.TrustedReporters;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads {@code harbinger.yaml} over the defaults of {@code reference.yaml}, applies overrides from
 * the environment and system properties, and checks everything at once.
 *
 * <p>Every problem is collected (unknown keys, removed settings with what replaced them, wrong
 * types, out-of-range values, missing files) and reported together in one {@link ConfigException},
 * so an operator fixes a file in one pass. The {@code predictor} section holds the ten settings of
 * {@link PredictorConfig}; the predictor's other parameters are fixed. Environment names are
 * derived from the reference paths: {@code grpc.token-file} is {@code HARBINGER_GRPC_TOKEN_FILE}
 * and {@code -Dharbinger.grpc.token-file}.
 */
public final class ConfigLoader {

  private static final Pattern DURATION = Pattern.compile("(\\d+)(ms|s|m|h)");

  /** The largest {@code rabbitmq.max-inbound-message-bytes}: RabbitMQ's own ceiling, 512 MiB. */
  static final int MAX_INBOUND_MESSAGE_BYTES = 512 << 20;

  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

  /**
   * The settings earlier versions read and this one does not, each with what replaced it: a file,
   * variable or property that still sets one is refused with that text, so that it does not go on
   * believing it tunes something. The values quoted are the predictor's fixed ones.
   */
  static final Map<String, String> REMOVED = removed();

  private static Map<String, String> removed() {
    Map<String, String> m = new LinkedHashMap<>();
    m.put("keys.size-bins", "keys.size-bins moved to predictor.size-bins");
    String fixed = " was removed: ";
    m.put(
        "predictor.pooled-decay",
        "predictor.pooled-decay" + fixed + "the pooled histogram keeps 0.9999 per observation");
    m.put(
        "predictor.idle-half-life",
        "predictor.idle-half-life"
            + fixed
            + "a key's history fades by its own observations (predictor.key-decay), not by the"
            + " clock; predictor.stale-after forgets a key idle too long");
    m.put(
        "predictor.max-censored-share",
        "predictor.max-censored-share"
            + fixed
            + "a key with more than 5% censored deliveries is not predicted");
    m.put(
        "predictor.boundary-min-observations",
        "predictor.boundary-min-observations"
            + fixed
            + "the first boundaries are published after 100 observations");
    m.put(
        "predictor.boundary-refresh-every",
        "predictor.boundary-refresh-every"
            + fixed
            + "boundaries are recomputed every 256 observations");
    m.put(
        "predictor.boundary-hysteresis",
        "predictor.boundary-hysteresis"
            + fixed
            + "a boundary moves only when it shifts by more than 10%");
    m.put(
        "predictor.tier-hysteresis",
        "predictor.tier-hysteresis"
            + fixed
            + "a key keeps its level while its estimate stays within 10% of the level's interval");
    m.put(
        "predictor.demote-untrusted",
        "predictor.demote-untrusted"
            + fixed
            + "an untrusted key whose evidence shows it costlier than the middle level always goes"
            + " below it");
    m.put(
        "predictor.key-guard",
        "predictor.key-guard" + fixed + "the per-key safeguard is always on");
    m.put(
        "predictor.misprediction-enter",
        "predictor.misprediction-enter"
            + fixed
            + "the per-key safeguard distrusts a key at 0.8 times the global median's error");
    m.put(
        "predictor.misprediction-exit",
        "predictor.misprediction-exit"
            + fixed
            + "the per-key safeguard trusts a key again below 0.6 times the global median's error");
    m.put(
        "predictor.misprediction-memory",
        "predictor.misprediction-memory"
            + fixed
            + "the per-key safeguard's error averages span 32 observations");
    m.put(
        "predictor.safeguard-margin",
        "predictor.safeguard-margin"
            + fixed
            + "the global safeguard holds FIFO order below an estimated gain of 2%;"
            + " predictor.safeguard turns it off");
    m.put(
        "predictor.safeguard-hysteresis",
        "predictor.safeguard-hysteresis"
            + fixed
            + "the global safeguard releases at an estimated gain of 5%");
    m.put(
        "predictor.safeguard-load",
        "predictor.safeguard-load"
            + fixed
            + "the global safeguard estimates the gain at a per-worker load of 0.8");
    m.put(
        "predictor.safeguard-min-reports",
        "predictor.safeguard-min-reports"
            + fixed
            + "the global safeguard judges from 200 decayed reports");
    m.put(
        "predictor.safeguard-decay",
        "predictor.safeguard-decay"
            + fixed
            + "the global safeguard's counts keep 0.998 per report");
    m.put(
        "predictor.borrow-from-producer",
        "predictor.borrow-from-producer"
            + fixed
            + "a cold key always borrows its producer's trusted estimate");
    m.put(
        "predictor.borrow-from-size",
        "predictor.borrow-from-size"
            + fixed
            + "a key still cold always borrows its size bin's trusted estimate when reports carry"
            + " sizes");
    m.put(
        "predictor.relative-idle",
        "predictor.relative-idle"
            + fixed
            + "staleness is predictor.stale-after alone, the same for every key");
    m.put(
        "predictor.shift-run",
        "predictor.shift-run" + fixed + "the shift run is fixed at 8 observations");
    m.put(
        "predictor.promote-cold-after",
        "predictor.promote-cold-after"
            + fixed
            + "a cold key is not placed above the middle level; for job kinds that recur a few"
            + " times each, set predictor.min-observations: 1, max-spread-ratio: 1000 and"
            + " tail-budget: 1.1");
    m.put(
        "predictor.tail-limit",
        "predictor.tail-limit"
            + fixed
            + "the tail guard is off; predictor.tail-budget bounds the last level's wait");
    return Collections.unmodifiableMap(m);
  }

  private final Map<String, String> environment;
  private final Properties properties;

  /**
   * Creates a loader reading overrides from the given sources.
   *
   * @param environment environment variables
   * @param properties system properties
   */
  public ConfigLoader(Map<String, String> environment, Properties properties) {
    this.environment = Map.copyOf(environment);
    this.properties = (Properties) properties.clone();
  }

  /**
   * Creates a loader reading overrides from this process's environment and system properties.
   *
   * @return the loader
   */
  public static ConfigLoader fromSystem() {
    return new ConfigLoader(System.getenv(), System.getProperties());
  }

  /**
   * Loads the configuration.
   *
   * @param file the YAML file, or empty for the defaults alone
   * @return the configuration
   * @throws ConfigException listing every problem found
   */
  public SidecarConfig load(Optional<Path> file) throws ConfigException {
    String source = file.map(Path::toString).orElse("defaults");
    ObjectNode merged = reference();
    List<String> problems = new ArrayList<>();
    if (file.isPresent()) {
      JsonNode user = readUser(file.get(), problems);
      if (user != null && !user.isNull() && !user.isMissingNode()) {
        if (!user.isObject()) {
          problems.add("the file must be a YAML mapping of settings, not " + user.getNodeType());
        } else {
          overlay(merged, (ObjectNode) user, "", problems);
        }
      }
    }
    applyOverrides(merged, "", problems);
    refuseRemovedOverrides(problems);
    // Bind even when the file had unknown keys, so that range errors are reported in the same pass.
    SidecarConfig config = bind(new Reader(merged, problems));
    if (!problems.isEmpty()) {
      throw new ConfigException(source, problems);
    }
    return config;
  }

  private static ObjectNode reference() {
    try (InputStream in = ConfigLoader.class.getResourceAsStream("/reference.yaml")) {
      if (in == null) {
        throw new IllegalStateException("reference.yaml is missing from the sidecar jar");
      }
      return (ObjectNode) YAML.readTree(in);
    } catch (IOException e) {
      throw new UncheckedIOException("reference.yaml cannot be read", e);
    }
  }

  private static JsonNode readUser(Path file, List<String> problems) {
    try {
      String text = Files.readString(file);
      return text.isBlank() ? null : YAML.readTree(text);
    } catch (NoSuchFileException e) {
      problems.add("config file not found: " + file);
    } catch (StreamConstraintsException e) {
      // A limit of the reader, such as 1,000 levels of nesting: it comes without a location.
      problems.add(
          "config file "
              + file
              + " is beyond a limit of the YAML reader: "
              + e.getOriginalMessage());
    } catch (JsonProcessingException e) {
      problems.add(
          "not valid YAML at line "
              + e.getLocation().getLineNr()
              + ", column "
              + e.getLocation().getColumnNr()
              + ": "
              + e.getOriginalMessage());
    } catch (IOException e) {
      problems.add("config file cannot be read: " + file + ": " + e.getMessage());
    }
    return null;
  }

  /** Copies user values over the defaults, reporting keys the reference does not have. */
  private static void overlay(
      ObjectNode target, ObjectNode user, String path, List<String> problems) {
    Iterator<Map.Entry<String, JsonNode>> fields = user.fields();
    while (fields.hasNext()) {
      Map.Entry<String, JsonNode> field = fields.next();
      String name = path + field.getKey();
      JsonNode known = target.get(field.getKey());
      if (known == null && REMOVED.containsKey(name)) {
        problems.add(REMOVED.get(name));
      } else if (known == null) {
        List<String> names = new ArrayList<>();
        target.fieldNames().forEachRemaining(names::add);
        problems.add("unknown key " + name + " (known here: " + String.join(", ", names) + ")");
      } else if (known.isObject()) {
        if (field.getValue().isObject()) {
          overlay((ObjectNode) known, (ObjectNode) field.getValue(), name + ".", problems);
        } else {
          problems.add(name + " must be a mapping of settings");
        }
      } else if (field.getValue().isContainerNode()) {
        problems.add(name + " must be a single value, not a " + field.getValue().getNodeType());
      } else {
        target.set(field.getKey(), field.getValue());
      }
    }
  }

  private void applyOverrides(ObjectNode node, String path, List<String> problems) {
    Iterator<Map.Entry<String, JsonNode>> fields = node.fields();
    List<Map.Entry<String, String>> replacements = new ArrayList<>();
    while (fields.hasNext()) {
      Map.Entry<String, JsonNode> field = fields.next();
      String name = path + field.getKey();
      if (field.getValue().isObject()) {
        applyOverrides((ObjectNode) field.getValue(), name + ".", problems);
        continue;
      }
      String value = environment.get(environmentName(name));
      String property = properties.getProperty("harbinger." + name);
      if (property != null) {
        value = property;
      }
      if (value != null) {
        replacements.add(Map.entry(field.getKey(), value));
      }
    }
    for (Map.Entry<String, String> r : replacements) {
      node.set(r.getKey(), JsonNodeFactory.instance.textNode(r.getValue()));
    }
  }

  /** Reports an environment variable or system property that sets a removed setting. */
  private void refuseRemovedOverrides(List<String> problems) {
    for (Map.Entry<String, String> removed : REMOVED.entrySet()) {
      String env = environmentName(removed.getKey());
      if (environment.containsKey(env)) {
        problems.add("environment variable " + env + ": " + removed.getValue());
      }
      String property = "harbinger." + removed.getKey();
      if (properties.getProperty(property) != null) {
        problems.add("system property " + property + ": " + removed.getValue());
      }
    }
  }

  /**
   * The environment variable of a setting: {@code grpc.token-file} is {@code
   * HARBINGER_GRPC_TOKEN_FILE}.
   */
  static String environmentName(String path) {
    return "HARBINGER_" + path.toUpperCase(Locale.ROOT).replace('.', '_').replace('-', '_');
  }

  private SidecarConfig bind(Reader r) {
    String replicaId = r.text("replica-id");
    if (replicaId != null && !replicaId.matches("[A-Za-z0-9._-]{1,64}")) {
      r.problem("replica-id must be 1-64 letters, digits, '.', '_' or '-': " + replicaId);
    }
    String uri = r.text("rabbitmq.uri");
    if (uri != null && !uri.matches("amqps?://[^@]*")) {
      r.problem("rabbitmq.uri must be amqp://host:port/vhost without credentials");
    }
    String password = password(r);
    String username = r.text("rabbitmq.username");
    String exchange = r.text("rabbitmq.reports-exchange");
    Integer prefetch = r.integer("rabbitmq.prefetch", 1, 65_535);
    Integer maxInbound =
        r.integer("rabbitmq.max-inbound-message-bytes", 1 << 20, MAX_INBOUND_MESSAGE_BYTES);
    Duration startupRetry = r.duration("rabbitmq.startup-retry", Duration.ZERO);
    TrustedReporters reporters = trustedReporters(r, username);
    Integer maxKeysPerReporter = r.integer("reports.max-keys-per-reporter", 1, Integer.MAX_VALUE);
    Integer queueMaxLength = r.integer("reports.queue-max-length", 1, Integer.MAX_VALUE);
    Duration queueExpiry = r.duration("reports.queue-expiry", Duration.ofMinutes(1));
    if (queueExpiry != null && queueExpiry.toMillis() > Integer.MAX_VALUE) {
      r.problem("reports.queue-expiry must be at most 596h (2^31 - 1 ms): " + queueExpiry);
    }
    String grpcBind = r.address("grpc.bind-address");
    Integer grpcPort = r.integer("grpc.port", 0, 65_535);
    Optional<Path> cert = r.path("grpc.tls-cert-chain", true);
    Optional<Path> key = r.path("grpc.tls-private-key", true);
    Optional<SidecarConfig.Tls> tls = Optional.empty();
    if (cert.isPresent() != key.isPresent()) {
      r.problem("grpc.tls-cert-chain and grpc.tls-private-key must be set together");
    } else if (cert.isPresent()) {
      tls = Optional.of(new SidecarConfig.Tls(cert.get(), key.get()));
    }
    Optional<Path> tokenFile = r.path("grpc.token-file", true);
    tokenFile.filter(Files::isReadable).ifPresent(f -> readFirstLine(f, "grpc.token-file", r));
    Boolean allowRemote = r.bool("grpc.allow-unauthenticated-remote");
    if (grpcBind != null
        && !isLoopback(grpcBind)
        && tokenFile.isEmpty()
        && Boolean.FALSE.equals(allowRemote)) {
      r.problem(
          "grpc.bind-address "
              + grpcBind
              + " is not a loopback address and grpc.token-file is empty: anyone who reaches the"
              + " port could switch the mode (SetMode) and write snapshots; set grpc.token-file,"
              + " or set grpc.allow-unauthenticated-remote: true to accept that");
    }
    String metricsBind = r.address("metrics.bind-address");
    Integer metricsPort = r.integer("metrics.port", -1, 65_535);
    Mode mode = r.mode("mode");
    String header = r.text("keys.job-type-header");
    if (header != null && (header.isEmpty() || header.startsWith("__"))) {
      r.problem("keys.job-type-header must be a non-empty header name not starting with __");
    }
    PredictorConfig predictor = predictor(r);
    Optional<Path> snapshot = r.path("snapshot.path", false);
    Duration snapshotInterval = r.duration("snapshot.interval", Duration.ofSeconds(1));
    Duration publish = r.duration("routes.publish-interval", Duration.ofMillis(1));
    Duration sweep = r.duration("routes.sweep-interval", Duration.ofMillis(100));
    Duration heartbeat = r.duration("routes.heartbeat-interval", Duration.ofMillis(100));
    if (!problems(r).isEmpty()) {
      return null;
    }
    return new SidecarConfig(
        replicaId,
        new SidecarConfig.Rabbit(
            uri, username, password, exchange, prefetch, maxInbound, startupRetry),
        new SidecarConfig.Reports(reporters, maxKeysPerReporter, queueMaxLength, queueExpiry),
        grpcBind,
        grpcPort,
        tls,
        tokenFile,
        allowRemote,
        metricsBind,
        metricsPort,
        mode,
        header,
        predictor,
        snapshot,
        snapshotInterval,
        publish,
        sweep,
        heartbeat);
  }

  /** The reporters to trust: the setting, or the sidecar's own user when it is empty. */
  private static TrustedReporters trustedReporters(Reader r, String username) {
    String raw = r.text("reports.trusted-reporters");
    if (raw == null) {
      return null;
    }
    try {
      if (raw.isBlank()) {
        return username == null ? null : TrustedReporters.of(username);
      }
      return TrustedReporters.parse(raw);
    } catch (IllegalArgumentException e) {
      r.problem("reports.trusted-reporters: " + e.getMessage());
      return null;
    }
  }

  /** Whether an address (literal or name) is a loopback address. */
  static boolean isLoopback(String address) {
    try {
      return InetAddress.getByName(address).isLoopbackAddress();
    } catch (UnknownHostException e) {
      return false;
    }
  }

  private static List<String> problems(Reader r) {
    return r.problems;
  }

  private String password(Reader r) {
    Optional<Path> file = r.path("rabbitmq.password-file", true);
    if (file.isPresent() && Files.isReadable(file.get())) {
      return readFirstLine(file.get(), "rabbitmq.password-file", r);
    }
    String fromEnv = environment.get("HARBINGER_RABBITMQ_PASSWORD");
    return fromEnv != null ? fromEnv : "guest";
  }

  private static String readFirstLine(Path file, String setting, Reader r) {
    try {
      List<String> lines = Files.readAllLines(file);
      if (lines.isEmpty() || lines.get(0).isBlank()) {
        r.problem(setting + " " + file + " is empty");
        return null;
      }
      return lines.get(0).strip();
    } catch (IOException e) {
      r.problem(setting + " " + file + " cannot be read: " + e.getMessage());
      return null;
    }
  }

  private static PredictorConfig predictor(Reader r) {
    PredictorConfig.Builder b = PredictorConfig.builder();
    r.with(
        "predictor.levels",
        () -> r.integer("predictor.levels", PredictorConfig.MIN_LEVELS, PredictorConfig.MAX_LEVELS),
        b::levels);
    r.with("predictor.key-decay", () -> r.number("predictor.key-decay"), b::keyDecay);
    r.with(
        "predictor.stale-after",
        () -> r.duration("predictor.stale-after", Duration.ZERO),
        b::staleAfter);
    r.with(
        "predictor.min-observations",
        () -> r.integer("predictor.min-observations", 1, Integer.MAX_VALUE),
        b::minObservations);
    r.with(
        "predictor.max-spread-ratio",
        () -> r.number("predictor.max-spread-ratio"),
        b::maxSpreadRatio);
    r.with(
        "predictor.max-keys",
        () -> r.integer("predictor.max-keys", PredictorConfig.MIN_MAX_KEYS, Integer.MAX_VALUE),
        b::maxKeys);
    r.with("predictor.size-bins", () -> r.bool("predictor.size-bins"), b::sizeBins);
    r.with("predictor.safeguard", () -> r.bool("predictor.safeguard"), b::safeguard);
    r.with("predictor.tail-budget", () -> r.number("predictor.tail-budget"), b::tailBudget);
    r.with("predictor.untrusted-last", () -> r.bool("predictor.untrusted-last"), b::untrustedLast);
    try {
      return b.build();
    } catch (IllegalArgumentException e) {
      r.problem("predictor: " + e.getMessage());
      return null;
    }
  }

  /** Reads typed values from the merged tree, collecting problems instead of throwing. */
  private static final class Reader {
    private final ObjectNode root;
    private final List<String> problems;

    Reader(ObjectNode root, List<String> problems) {
      this.root = root;
      this.problems = problems;
    }

    void problem(String message) {
      problems.add(message);
    }

    <T> void with(String name, java.util.function.Supplier<T> value, Consumer<T> setter) {
      int before = problems.size();
      T v = value.get();
      if (problems.size() == before && v != null) {
        setter.accept(v);
      }
    }

    private JsonNode node(String path) {
      JsonNode n = root;
      for (String part : path.split("\\.")) {
        n = n.path(part);
      }
      return n;
    }

    String text(String path) {
      JsonNode n = node(path);
      if (!n.isValueNode() || n.isNull()) {
        problems.add(path + " must be set");
        return null;
      }
      return n.asText();
    }

    Integer integer(String path, int min, int max) {
      String raw = text(path);
      if (raw == null) {
        return null;
      }
      try {
        int v = Integer.parseInt(raw.strip());
        if (v < min || v > max) {
          String range =
              max == Integer.MAX_VALUE ? "at least " + min : "in [" + min + ", " + max + "]";
          problems.add(path + " must be " + range + ": " + v);
          return null;
        }
        return v;
      } catch (NumberFormatException e) {
        problems.add(path + " must be a whole number: " + raw);
        return null;
      }
    }

    Double number(String path) {
      String raw = text(path);
      if (raw == null) {
        return null;
      }
      try {
        double v = Double.parseDouble(raw.strip());
        if (!Double.isFinite(v)) {
          problems.add(path + " must be a finite number: " + raw);
          return null;
        }
        return v;
      } catch (NumberFormatException e) {
        problems.add(path + " must be a number: " + raw);
        return null;
      }
    }

    Boolean bool(String path) {
      String raw = text(path);
      if (raw == null) {
        return null;
      }
      return switch (raw.strip().toLowerCase(Locale.ROOT)) {
        case "true" -> true;
        case "false" -> false;
        default -> {
          problems.add(path + " must be true or false: " + raw);
          yield null;
        }
      };
    }

    Duration duration(String path, Duration min) {
      String raw = text(path);
      if (raw == null) {
        return null;
      }
      Matcher m = DURATION.matcher(raw.strip());
      if (!m.matches()) {
        problems.add(path + " must be a duration such as 100ms, 60s, 10m or 1h: " + raw);
        return null;
      }
      Duration d;
      try {
        long amount = Long.parseLong(m.group(1));
        d =
            switch (m.group(2)) {
              case "ms" -> Duration.ofMillis(amount);
              case "s" -> Duration.ofSeconds(amount);
              case "m" -> Duration.ofMinutes(amount);
              default -> Duration.ofHours(amount);
            };
        // Every duration is used in nanoseconds somewhere: it must fit in a long of them.
        d.toNanos();
      } catch (NumberFormatException | ArithmeticException e) {
        problems.add(path + " is too long (at most 292 years, 2562047h): " + raw);
        return null;
      }
      if (d.compareTo(min) < 0 && !d.isZero()) {
        problems.add(path + " must be at least " + min.toMillis() + "ms: " + raw);
        return null;
      }
      if (d.isZero() && !min.isZero()) {
        problems.add(path + " must be positive: " + raw);
        return null;
      }
      return d;
    }

    String address(String path) {
      String raw = text(path);
      if (raw == null) {
        return null;
      }
      String a = raw.strip();
      if (a.isEmpty() || !a.matches("[A-Za-z0-9.:%_-]+")) {
        problems.add(path + " must be an IP address or host name, such as 127.0.0.1: " + raw);
        return null;
      }
      try {
        InetAddress.getByName(a);
      } catch (UnknownHostException e) {
        problems.add(
            path
                + " must be an IP address or a name of this host, and "
                + raw
                + " resolves to none");
        return null;
      }
      return a;
    }

    Mode mode(String path) {
      String raw = text(path);
      if (raw == null) {
        return null;
      }
      try {
        return Mode.valueOf(raw.strip().toUpperCase(Locale.ROOT));
      } catch (IllegalArgumentException e) {
        problems.add(path + " must be off, shadow or predictive: " + raw);
        return null;
      }
    }

    Optional<Path> path(String path, boolean mustExist) {
      String raw = text(path);
      if (raw == null || raw.isBlank()) {
        return Optional.empty();
      }
      Path p = Path.of(raw.strip());
      if (mustExist && !Files.isReadable(p)) {
        problems.add(path + " names a file that does not exist or cannot be read: " + p);
      }
      return Optional.of(p);
    }
  }
}
