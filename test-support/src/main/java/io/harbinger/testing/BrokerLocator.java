package io.harbinger.testing;

import java.util.Optional;

/**
 * A way to obtain a broker of one kind for the integration tests.
 *
 * <p>{@link BrokerExtension} asks the built-in locator first, which connects to the URI the
 * environment names ({@link BrokerKind#uriVariable()}). When that finds nothing, it asks every
 * locator registered with {@link java.util.ServiceLoader} under this interface, in class-path
 * order, so a locator that starts a broker in a container can be added without touching any test. A
 * locator that starts a broker owns it: it stops it when the JVM exits.
 */
public interface BrokerLocator {

  /**
   * Returns a reachable broker of a kind, or empty when this locator has none.
   *
   * @param kind the kind of broker wanted
   * @param environment the variables the tests run with (system properties over environment)
   * @return the broker, reachable at the moment of return, or empty
   */
  Optional<TestBroker> locate(BrokerKind kind, Environment environment);

  /**
   * Returns why the last {@link #locate} found nothing, for the message that names what to set.
   *
   * @return one line, or empty when there is nothing to add
   */
  default String lastFailure() {
    return "";
  }
}
