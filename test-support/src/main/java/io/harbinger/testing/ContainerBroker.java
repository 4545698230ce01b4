package io.harbinger.testing;

import java.io.IOException;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.ServiceLoader;

/**
 * A RabbitMQ 4 for a command that found none at its URI, such as {@code ./harbinger demo}: started
 * by the locators registered with {@link ServiceLoader} (in this module, {@link
 * TestcontainersBrokerLocator}, as for the tests), printed as one AMQP URI line on standard output,
 * and held until standard input closes; the container stops when this process exits.
 *
 * <p>Usage: {@code ContainerBroker URI}, where URI is where the command looked. Exit codes: 0 after
 * standard input closed, 1 when no broker could be started, after one line on standard error that
 * says what to start and how.
 */
public final class ContainerBroker {

  private ContainerBroker() {}

  /**
   * Starts the broker and holds it.
   *
   * @param args the URI where the command looked for a broker, for the message
   * @throws IOException when standard input cannot be read
   */
  public static void main(String[] args) throws IOException {
    String looked = args.length > 0 ? TestBroker.redact(args[0]) : "RABBITMQ_URI";
    Environment environment = Environment.current();
    List<String> failures = new ArrayList<>();
    for (BrokerLocator locator : ServiceLoader.load(BrokerLocator.class)) {
      Optional<TestBroker> broker = locator.locate(BrokerKind.RABBITMQ_4, environment);
      if (broker.isPresent()) {
        System.out.println(broker.get().uri());
        System.out.flush();
        System.err.println("[harbinger] no RabbitMQ at " + looked + ": using " + broker.get());
        System.in.transferTo(OutputStream.nullOutputStream());
        return;
      }
      if (!locator.lastFailure().isEmpty()) {
        failures.add(locator.lastFailure());
      }
    }
    System.err.println(
        "RabbitMQ is not reachable at "
            + looked
            + (failures.isEmpty() ? "" : " and " + String.join("; ", failures))
            + ": start it with `rabbitmq-server -detached` (or start Docker, and a broker is run in a"
            + " container), or set RABBITMQ_URI to your broker");
    System.exit(1);
  }
}
