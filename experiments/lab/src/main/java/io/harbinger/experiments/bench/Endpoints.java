package io.harbinger.experiments.bench;

import com.rabbitmq.client.ConnectionFactory;
import java.net.URI;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Where the external services are: RabbitMQ and Redis, and optionally a running sidecar and a
 * running Harbinger broker for the arms to use instead of the ones they start in this JVM.
 *
 * <p>The RabbitMQ user and password may come apart from the URI ({@code RABBITMQ_USERNAME}, {@code
 * RABBITMQ_PASSWORD}), so that a password with {@code @}, {@code /} or {@code %} needs no URI
 * encoding; they take precedence over the URI's.
 *
 * @param rabbitmq the AMQP URI, such as {@code amqp://guest:guest@127.0.0.1:5672/%2F}
 * @param rabbitmqUsername the user, overriding the URI's
 * @param rabbitmqPassword the password, overriding the URI's
 * @param redis the Redis URI, such as {@code redis://127.0.0.1:6379}
 * @param sidecar the {@code host:port} of a running sidecar for the {@code rabbitmq-sidecar} arm
 * @param sidecarReportsExchange the reports exchange that sidecar learns from
 * @param broker the {@code host:port} of a running Harbinger broker for the broker arm
 */
record Endpoints(
    URI rabbitmq,
    Optional<String> rabbitmqUsername,
    Optional<String> rabbitmqPassword,
    URI redis,
    Optional<String> sidecar,
    String sidecarReportsExchange,
    Optional<String> broker) {

  /** The RabbitMQ URI used when {@code RABBITMQ_URI} is not set. */
  static final String DEFAULT_RABBITMQ = "amqp://guest:guest@127.0.0.1:5672/%2F";

  /** The Redis URI used when {@code REDIS_URI} is not set. */
  static final String DEFAULT_REDIS = "redis://127.0.0.1:6379";

  /** The exchange a sidecar learns from unless configured otherwise (its reference.yaml). */
  static final String DEFAULT_REPORTS_EXCHANGE = "harbinger.reports";

  Endpoints {
    Objects.requireNonNull(rabbitmq, "rabbitmq");
    Objects.requireNonNull(rabbitmqUsername, "rabbitmqUsername");
    Objects.requireNonNull(rabbitmqPassword, "rabbitmqPassword");
    Objects.requireNonNull(redis, "redis");
    Objects.requireNonNull(sidecar, "sidecar");
    Objects.requireNonNull(sidecarReportsExchange, "sidecarReportsExchange");
    Objects.requireNonNull(broker, "broker");
    sidecar.ifPresent(a -> checkAddress("the sidecar address", a));
    broker.ifPresent(a -> checkAddress("the broker address", a));
  }

  /**
   * Returns the endpoints of the loopback services with nothing external: what tests use.
   *
   * @param rabbitmq the AMQP URI
   * @param redis the Redis URI
   */
  Endpoints(URI rabbitmq, URI redis) {
    this(
        rabbitmq,
        Optional.empty(),
        Optional.empty(),
        redis,
        Optional.empty(),
        DEFAULT_REPORTS_EXCHANGE,
        Optional.empty());
  }

  /**
   * Returns the endpoints from this process's environment.
   *
   * @return the endpoints
   * @see #fromEnvironment(Map)
   */
  static Endpoints fromEnvironment() {
    return fromEnvironment(System.getenv());
  }

  /**
   * Returns the endpoints from environment variables: {@code RABBITMQ_URI}, {@code
   * RABBITMQ_USERNAME}, {@code RABBITMQ_PASSWORD}, {@code REDIS_URI} (loopback by default), and
   * {@code HARBINGER_SIDECAR_ADDRESS}, {@code HARBINGER_SIDECAR_REPORTS_EXCHANGE}, {@code
   * HARBINGER_BROKER_ADDRESS} (none by default). Blank values count as unset.
   *
   * @param env the variables
   * @return the endpoints
   * @throws IllegalArgumentException naming the variable whose value is not usable
   */
  static Endpoints fromEnvironment(Map<String, String> env) {
    return new Endpoints(
        uri(env, "RABBITMQ_URI", DEFAULT_RABBITMQ),
        value(env, "RABBITMQ_USERNAME"),
        value(env, "RABBITMQ_PASSWORD"),
        uri(env, "REDIS_URI", DEFAULT_REDIS),
        value(env, "HARBINGER_SIDECAR_ADDRESS"),
        value(env, "HARBINGER_SIDECAR_REPORTS_EXCHANGE").orElse(DEFAULT_REPORTS_EXCHANGE),
        value(env, "HARBINGER_BROKER_ADDRESS"));
  }

  /**
   * Returns these endpoints with a sidecar and a broker address replaced where given.
   *
   * @param sidecarAddress the sidecar's {@code host:port}, or null to keep the current one
   * @param brokerAddress the broker's {@code host:port}, or null to keep the current one
   * @return the endpoints
   */
  Endpoints withExternal(String sidecarAddress, String brokerAddress) {
    return new Endpoints(
        rabbitmq,
        rabbitmqUsername,
        rabbitmqPassword,
        redis,
        sidecarAddress == null ? sidecar : Optional.of(sidecarAddress),
        sidecarReportsExchange,
        brokerAddress == null ? broker : Optional.of(brokerAddress));
  }

  /**
   * Returns these endpoints with another RabbitMQ, such as a 4.x broker beside the 3.x one.
   *
   * @param rabbitmqUri the AMQP URI, or null to keep the current one
   * @return the endpoints
   * @throws IllegalArgumentException when the value is not an {@code amqp://} or {@code amqps://}
   *     URI
   */
  Endpoints withRabbitMq(String rabbitmqUri) {
    if (rabbitmqUri == null) {
      return this;
    }
    URI parsed = uri(Map.of("--rabbitmq-uri", rabbitmqUri), "--rabbitmq-uri", DEFAULT_RABBITMQ);
    if (!"amqp".equals(parsed.getScheme()) && !"amqps".equals(parsed.getScheme())) {
      throw new IllegalArgumentException(
          "--rabbitmq-uri must be an amqp:// or amqps:// URI: " + redacted(rabbitmqUri));
    }
    return new Endpoints(
        parsed, rabbitmqUsername, rabbitmqPassword, redis, sidecar, sidecarReportsExchange, broker);
  }

  /**
   * Returns a connection factory for RabbitMQ: the URI, then the user and password given apart.
   *
   * @return a new factory with a 3 s connection timeout
   * @throws IllegalArgumentException when the URI is not an AMQP URI (without its password)
   */
  ConnectionFactory rabbitFactory() {
    ConnectionFactory factory = new ConnectionFactory();
    try {
      factory.setUri(rabbitmq);
    } catch (Exception e) {
      throw new IllegalArgumentException(
          "RABBITMQ_URI must be an AMQP URI such as amqp://127.0.0.1:5672/%2F: "
              + redacted(rabbitmq)
              + " ("
              + e.getMessage()
              + ")",
          e);
    }
    rabbitmqUsername.ifPresent(factory::setUsername);
    rabbitmqPassword.ifPresent(factory::setPassword);
    factory.setConnectionTimeout(3_000);
    return factory;
  }

  /**
   * Returns a URI with its password replaced by {@code ***}, for messages.
   *
   * @param uri the URI
   * @return the text of the URI without its password
   */
  static String redacted(URI uri) {
    return uri.toString().replaceAll("//([^:/@]*):[^@/]*@", "//$1:***@");
  }

  private static URI uri(Map<String, String> env, String name, String fallback) {
    String raw = value(env, name).orElse(fallback);
    try {
      return URI.create(raw);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          name
              + " must be a URI (percent-encode a password with @, / or %, or set it in"
              + " RABBITMQ_PASSWORD instead): "
              + e.getMessage().replace(raw, redacted(raw)),
          e);
    }
  }

  private static String redacted(String raw) {
    return raw.replaceAll("//([^:/@]*):[^@]*@", "//$1:***@");
  }

  private static Optional<String> value(Map<String, String> env, String name) {
    String v = env.get(name);
    return v == null || v.isBlank() ? Optional.empty() : Optional.of(v.strip());
  }

  private static void checkAddress(String what, String address) {
    int colon = address.lastIndexOf(':');
    boolean ok = colon > 0 && colon < address.length() - 1;
    if (ok) {
      try {
        int port = Integer.parseInt(address.substring(colon + 1));
        ok = port >= 1 && port <= 65_535;
      } catch (NumberFormatException e) {
        ok = false;
      }
    }
    if (!ok) {
      throw new IllegalArgumentException(
          what + " must be host:port with a port in [1, 65535]: " + address);
    }
  }
}
