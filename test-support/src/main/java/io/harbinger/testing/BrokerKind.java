package io.harbinger.testing;

/**
 * The RabbitMQ brokers that the integration tests run against: a 3.x broker and a 4.x broker.
 *
 * <p>Each kind is found from an environment variable holding an AMQP URI, with a loopback default:
 * {@code RABBITMQ_URI} ({@code amqp://guest:guest@127.0.0.1:5672/%2F}) for 3.x and {@code
 * RABBITMQ4_URI} ({@code amqp://guest:guest@127.0.0.1:5674/%2F}) for 4.x. A Java system property of
 * the same name takes precedence over the environment variable. The command that drives the node
 * ({@code rabbitmqctl} and its arguments) comes from {@code RABBITMQCTL} and {@code RABBITMQ4_CTL};
 * by default the 3.x node is the local {@code rabbitmqctl}'s and the 4.x node is reached through
 * {@code scripts/rabbitmq4.sh ctl}, which runs {@code rabbitmqctl} inside the Debian 13 root that
 * script provisions.
 */
public enum BrokerKind {
  /** A RabbitMQ 3.x broker (3.10.8 on the project's machines). */
  RABBITMQ_3(
      "RabbitMQ 3.x",
      3,
      "RABBITMQ_URI",
      "amqp://guest:guest@127.0.0.1:5672/%2F",
      "RABBITMQCTL",
      "start it with `rabbitmq-server -detached`"),
  /** A RabbitMQ 4.x broker (4.0.5 on the project's machines). */
  RABBITMQ_4(
      "RabbitMQ 4.x",
      4,
      "RABBITMQ4_URI",
      "amqp://guest:guest@127.0.0.1:5674/%2F",
      "RABBITMQ4_CTL",
      "start one with `scripts/rabbitmq4.sh start` (or `docker run --network host rabbitmq:4.0`"
          + " with RABBITMQ4_URI pointing at it)");

  private final String displayName;
  private final int majorVersion;
  private final String uriVariable;
  private final String defaultUri;
  private final String ctlVariable;
  private final String howToStart;

  BrokerKind(
      String displayName,
      int majorVersion,
      String uriVariable,
      String defaultUri,
      String ctlVariable,
      String howToStart) {
    this.displayName = displayName;
    this.majorVersion = majorVersion;
    this.uriVariable = uriVariable;
    this.defaultUri = defaultUri;
    this.ctlVariable = ctlVariable;
    this.howToStart = howToStart;
  }

  /** Returns a short name for messages, such as {@code "RabbitMQ 4.x"}. */
  public String displayName() {
    return displayName;
  }

  /** Returns the major version a broker of this kind must report. */
  public int majorVersion() {
    return majorVersion;
  }

  /** Returns the name of the variable that holds this kind's AMQP URI. */
  public String uriVariable() {
    return uriVariable;
  }

  /** Returns the AMQP URI used when the variable is not set. */
  public String defaultUri() {
    return defaultUri;
  }

  /** Returns the name of the variable that holds the command driving this kind's node. */
  public String ctlVariable() {
    return ctlVariable;
  }

  /** Returns one sentence saying how a developer starts a broker of this kind locally. */
  public String howToStart() {
    return howToStart;
  }
}
