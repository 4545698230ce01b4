package io.harbinger.spring;

import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Spring Boot versions the starter supports: 3.5 and later 3.x, and 4.x, tested on 3.5.7, 4.0.7
 * and 4.1.2. An older line (whose packages and Spring AMQP differ) fails at start with a message
 * naming the range, rather than with a {@code NoSuchMethodError} later; a later 4.x minor version,
 * not yet tested, starts with a warning.
 */
final class SpringBootLine {

  /** The Spring Boot versions CI runs the starter's Boot-context tests on. */
  static final String TESTED = "3.5.7, 4.0.7 and 4.1.2";

  private static final Logger LOG = LoggerFactory.getLogger(SpringBootLine.class);
  private static final Pattern VERSION = Pattern.compile("(\\d+)\\.(\\d+)(?:\\..*)?");

  private SpringBootLine() {}

  /**
   * Fails when a Spring Boot version is not supported, and warns when it is newer than tested.
   *
   * @param version the running Spring Boot's version, such as {@code "4.0.7"}; may be null when the
   *     jar has no version in its manifest, which passes
   * @throws IllegalStateException naming the version and the supported range
   */
  static void require(String version) {
    String problem = problem(version);
    if (problem != null) {
      throw new IllegalStateException(problem);
    }
    if (untested(version)) {
      LOG.warn(
          "Harbinger's Spring Boot starter is tested on Spring Boot {}, not yet on {}; report a problem"
              + " with the version",
          TESTED,
          version);
    }
  }

  /**
   * Returns why a Spring Boot version is not supported.
   *
   * @param version a version, or null (unknown, allowed)
   * @return the reason, or null when it is supported
   */
  static String problem(String version) {
    if (version == null) {
      return null;
    }
    Matcher m = VERSION.matcher(version);
    boolean supported = false;
    if (m.matches()) {
      int major = Integer.parseInt(m.group(1));
      int minor = Integer.parseInt(m.group(2));
      supported = (major == 3 && minor >= 5) || major == 4;
    }
    return supported
        ? null
        : "Harbinger's Spring Boot starter needs Spring Boot 3.5 or a later 3.x, or 4.x (tested on "
            + TESTED
            + "), but runs on Spring Boot "
            + version
            + ": use a supported Spring Boot, or the RabbitMQ client integration"
            + " (io.harbinger:harbinger-rabbitmq) directly";
  }

  private static boolean untested(String version) {
    if (version == null) {
      return false;
    }
    Matcher m = VERSION.matcher(version);
    return m.matches()
        && (Integer.parseInt(m.group(1)) == 4 && Integer.parseInt(m.group(2)) > 1
            || Integer.parseInt(m.group(1)) == 3 && Integer.parseInt(m.group(2)) > 5);
  }
}
