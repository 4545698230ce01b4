package io.harbinger.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.platform.testkit.engine.EngineTestKit;
import org.junit.platform.testkit.engine.Events;

/**
 * The Testcontainers path for real: with nothing at the configured URI and a Docker daemon
 * reachable, the extension starts RabbitMQ 4 in a container and the test runs on it.
 *
 * <p>Needs a Docker daemon. Without one the test is skipped with one line, and fails under {@code
 * CI=true} or {@code HARBINGER_TESTCONTAINERS_REQUIRED=true} (scripts/compose-smoke.sh sets both,
 * with the local image and host networking of a loopback-only machine). Tagged {@code docker},
 * which {@code ./mvnw verify} leaves out; the step that has a daemon includes it with {@code
 * -Dharbinger.it.excludedGroups=}.
 */
@Tag("docker")
class TestcontainersBrokerLocatorIT {

  private static final Prerequisite DOCKER =
      Prerequisite.of(
          "a Docker daemon",
          "Start one (DOCKER_HOST names a daemon elsewhere), or leave this test out (tag docker,"
              + " left out by default: -Dharbinger.it.excludedGroups= includes it)");

  @BeforeEach
  void dockerOrSkip() {
    boolean required =
        Environment.current()
            .get("HARBINGER_TESTCONTAINERS_REQUIRED")
            .map("true"::equalsIgnoreCase)
            .orElse(false);
    Optional<String> problem = TestcontainersBrokerLocator.TESTCONTAINERS.problem();
    if (required) {
      assertThat(problem).as("a Docker daemon (HARBINGER_TESTCONTAINERS_REQUIRED=true)").isEmpty();
    }
    DOCKER.require(problem.isEmpty(), problem.orElse(""));
    // Nothing answers here, so the extension's built-in locator finds nothing.
    System.setProperty("RABBITMQ4_URI", "amqp://guest:guest@127.0.0.1:1/%2F");
    System.setProperty("CI", "true");
  }

  @AfterEach
  void clearOverrides() {
    System.clearProperty("RABBITMQ4_URI");
    System.clearProperty("CI");
  }

  /** Run through the test kit, not by Failsafe (it is nested and not named *IT). */
  static class OnFourOnly {
    @EachBroker(BrokerKind.RABBITMQ_4)
    void declaresAndListsAQueue(TestBroker broker) throws Exception {
      String q = TestBroker.unique("container");
      try (Connection c = broker.newConnection("harbinger-it-container");
          Channel ch = c.createChannel()) {
        ch.queueDeclare(q, true, false, false, Map.of());
        assertThat(broker.rabbitmqctl("list_queues", "-q", "name")).contains(q);
        ch.queueDelete(q);
      }
      assertThat(broker.majorVersion()).isEqualTo(4);
      assertThat(broker.address()).doesNotEndWith(":1");
    }
  }

  @Test
  void eachBroker_nothingAtTheUriAndDockerUp_runsOnABrokerStartedInAContainer() {
    Events events =
        EngineTestKit.engine("junit-jupiter")
            .selectors(selectClass(OnFourOnly.class))
            .execute()
            .testEvents();

    events.failed().stream()
        .forEach(
            e ->
                System.out.println(
                    "failed: "
                        + e.getPayload(org.junit.platform.engine.TestExecutionResult.class)
                            .flatMap(org.junit.platform.engine.TestExecutionResult::getThrowable)
                            .map(Throwable::toString)
                            .orElse("")));
    assertThat(events.failed().count()).isZero();
    assertThat(events.succeeded().count()).isEqualTo(1);
    String name =
        events.succeeded().stream().findFirst().orElseThrow().getTestDescriptor().getDisplayName();
    assertThat(name).startsWith("[RabbitMQ 4.").doesNotContain("127.0.0.1:1]");
    System.out.println("[broker] the container broker: " + name);
  }
}
