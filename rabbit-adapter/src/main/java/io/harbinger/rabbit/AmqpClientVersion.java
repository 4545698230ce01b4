package io.harbinger.rabbit;

import com.rabbitmq.client.impl.ClientVersion;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The RabbitMQ Java client versions the adapter supports, checked where an application first uses
 * it (wrapping a channel, starting a report publisher or an embedded router): an older or another
 * major version fails there, naming the supported range, rather than with a {@code
 * NoSuchMethodError} later. The build and the integration tests run against the oldest and the
 * newest ({@code .ci/run}).
 */
final class AmqpClientVersion {

  /** The oldest client tested: the one Spring Boot 3.5's dependency management selects. */
  static final String OLDEST = "5.25.0";

  /** The newest client the integration tests ran against. */
  static final String NEWEST_TESTED = "5.38.0";

  private static final Pattern VERSION = Pattern.compile("(\\d+)\\.(\\d+)(?:\\.(\\d+))?.*");

  private static final String PROBLEM = problem(ClientVersion.VERSION);

  private AmqpClientVersion() {}

  /**
   * Fails when the client on the class path is not supported.
   *
   * @throws IllegalStateException naming the version found and the supported range
   */
  static void require() {
    if (PROBLEM != null) {
      throw new IllegalStateException(PROBLEM);
    }
  }

  /**
   * Returns why a client version is not supported.
   *
   * @param version the client's version, such as {@code "5.25.0"}; may be null or garbage
   * @return the reason, or null when it is supported
   */
  static String problem(String version) {
    Matcher m = version == null ? null : VERSION.matcher(version);
    boolean supported =
        m != null
            && m.matches()
            && Integer.parseInt(m.group(1)) == 5
            && Integer.parseInt(m.group(2)) >= 25;
    return supported
        ? null
        : "Harbinger needs the RabbitMQ Java client (com.rabbitmq:amqp-client) 5.25 or a later 5.x"
            + " (tested with "
            + OLDEST
            + " to "
            + NEWEST_TESTED
            + "), but found "
            + version
            + ": depend on a supported version";
  }
}
