package io.harbinger.testing;

import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * Finds a broker at the URI the environment names ({@link BrokerKind#uriVariable()}, loopback by
 * default) and checks that it is the major version its kind promises.
 */
final class EnvironmentBrokerLocator implements BrokerLocator {

  private static final String SCRIPT = "scripts/rabbitmq4.sh";

  private String lastFailure = "";

  @Override
  public Optional<TestBroker> locate(BrokerKind kind, Environment environment) {
    String uri = environment.get(kind.uriVariable()).orElse(kind.defaultUri());
    ConnectionFactory factory = new ConnectionFactory();
    try {
      factory.setUri(uri);
    } catch (Exception e) {
      lastFailure =
          kind.uriVariable()
              + " is not an AMQP URI ("
              + TestBroker.redact(uri)
              + "): "
              + e.getMessage();
      return Optional.empty();
    }
    factory.setConnectionTimeout(3_000);
    factory.setAutomaticRecoveryEnabled(false);
    String version;
    try (Connection probe = factory.newConnection("harbinger-it-probe")) {
      Object reported = probe.getServerProperties().get("version");
      version = reported == null ? "unknown" : reported.toString();
    } catch (Exception e) {
      String why = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
      lastFailure = "nothing answers at " + TestBroker.redact(uri) + " (" + why + ")";
      return Optional.empty();
    }
    TestBroker broker = new TestBroker(kind, uri, version, ctlCommand(kind, environment));
    if (broker.majorVersion() != kind.majorVersion()) {
      lastFailure =
          kind.uriVariable()
              + " must point at "
              + kind.displayName()
              + ", but "
              + broker.address()
              + " is RabbitMQ "
              + version;
      return Optional.empty();
    }
    lastFailure = "";
    return Optional.of(broker);
  }

  @Override
  public String lastFailure() {
    return lastFailure;
  }

  private static List<String> ctlCommand(BrokerKind kind, Environment environment) {
    Optional<String> configured = environment.get(kind.ctlVariable());
    if (configured.isPresent()) {
      return Arrays.asList(configured.get().split("\\s+"));
    }
    return switch (kind) {
      case RABBITMQ_3 -> List.of("rabbitmqctl");
      case RABBITMQ_4 ->
          findScript().map(s -> List.of("bash", s.toString(), "ctl")).orElse(List.of());
    };
  }

  /** Finds the provisioning script by walking up from the working directory. */
  private static Optional<Path> findScript() {
    for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
      Path candidate = dir.resolve(SCRIPT);
      if (Files.isRegularFile(candidate)) {
        return Optional.of(candidate);
      }
    }
    return Optional.empty();
  }
}
