package io.harbinger.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.opentest4j.TestAbortedException;
import org.testcontainers.containers.RabbitMQContainer;

class TestcontainersBrokerLocatorTest {

  @Test
  void serviceLoader_findsTheContainerLocator() {
    List<String> locators =
        ServiceLoader.load(BrokerLocator.class).stream().map(p -> p.type().getName()).toList();
    assertThat(locators).contains(TestcontainersBrokerLocator.class.getName());
  }

  @Test
  void locate_noDocker_saysSoAndNamesTheImageItWouldStart() {
    TestcontainersBrokerLocator locator =
        new TestcontainersBrokerLocator(
            () -> Optional.of(TestcontainersBrokerLocator.NO_DAEMON),
            TestcontainersBrokerLocatorTest::neverStarted);
    assertThat(locator.locate(BrokerKind.RABBITMQ_4, Environment.of(Map.of()))).isEmpty();
    assertThat(locator.lastFailure())
        .isEqualTo(
            "no Docker daemon answers either, so rabbitmq:4.0.5-management was not started in a"
                + " container");
  }

  @Test
  void locate_dockerProbeThrows_saysWhyInItsOwnWords() {
    TestcontainersBrokerLocator locator =
        new TestcontainersBrokerLocator(
            () -> {
              throw new IllegalStateException("no socket");
            },
            TestcontainersBrokerLocatorTest::neverStarted);
    assertThat(locator.locate(BrokerKind.RABBITMQ_3, Environment.of(Map.of()))).isEmpty();
    assertThat(locator.lastFailure())
        .isEqualTo(
            "Docker answers, but Testcontainers cannot start containers (no socket), so"
                + " rabbitmq:3.13.7-management was not started in a container");
  }

  @Test
  void locate_daemonWithoutItsBridgeNetwork_namesTheCauseAndTheVariablesThatAvoidIt() {
    TestcontainersBrokerLocator locator =
        new TestcontainersBrokerLocator(
            () ->
                Optional.of(
                    TestcontainersBrokerLocator.unusable(
                        "Status 404: {\"message\":\"network bridge not found\"}")),
            TestcontainersBrokerLocatorTest::neverStarted);
    assertThat(locator.locate(BrokerKind.RABBITMQ_4, Environment.of(Map.of()))).isEmpty();
    assertThat(locator.lastFailure())
        .contains("network bridge not found")
        .contains("HARBINGER_TESTCONTAINERS_NETWORK=host")
        .contains("TESTCONTAINERS_RYUK_DISABLED=true")
        .contains("TESTCONTAINERS_HOST_OVERRIDE=127.0.0.1")
        .doesNotContain("no Docker daemon");
  }

  @Test
  void locate_imageThatFailedToStart_isNotTriedAgainInTheJvm() {
    TestcontainersBrokerLocator.forgetFailedStarts();
    AtomicInteger starts = new AtomicInteger();
    TestcontainersBrokerLocator locator =
        new TestcontainersBrokerLocator(
            Optional::empty,
            container -> {
              starts.incrementAndGet();
              throw new IllegalStateException("Container startup failed: image not found");
            });
    Environment env =
        Environment.of(
            Map.of(TestcontainersBrokerLocator.imageVariable(BrokerKind.RABBITMQ_4), "none:1"));
    try {
      assertThat(locator.locate(BrokerKind.RABBITMQ_4, env)).isEmpty();
      assertThat(locator.lastFailure())
          .isEqualTo(
              "Docker answers, but none:1 did not start: Container startup failed: image not found");
      assertThat(
              new TestcontainersBrokerLocator(
                      Optional::empty, container -> starts.incrementAndGet())
                  .locate(BrokerKind.RABBITMQ_4, env))
          .isEmpty();
      assertThat(starts).hasValue(1);
      assertThat(locator.locate(BrokerKind.RABBITMQ_4, env)).isEmpty();
      assertThat(locator.lastFailure()).endsWith("image not found (not tried again in this JVM)");
      assertThat(starts).hasValue(1);
    } finally {
      TestcontainersBrokerLocator.forgetFailedStarts();
    }
  }

  private static void neverStarted(RabbitMQContainer container) {
    throw new AssertionError("a container was started");
  }

  @Test
  void locate_turnedOff_neverAsksDocker() {
    TestcontainersBrokerLocator locator =
        new TestcontainersBrokerLocator(
            () -> {
              throw new AssertionError("Docker asked although the locator is off");
            },
            TestcontainersBrokerLocatorTest::neverStarted);
    assertThat(
            locator.locate(
                BrokerKind.RABBITMQ_4,
                Environment.of(Map.of(TestcontainersBrokerLocator.ENABLED, "off"))))
        .isEmpty();
    assertThat(locator.lastFailure()).contains("HARBINGER_TESTCONTAINERS=off");
  }

  @Test
  void extension_noBrokerAndNoDocker_oneLineNamesTheVariableAndWhatToStart() {
    BrokerExtension.Brokers brokers =
        new BrokerExtension.Brokers(
            Environment.of(
                Map.of(
                    "RABBITMQ4_URI",
                    "amqp://guest:secret@127.0.0.1:1/%2F",
                    TestcontainersBrokerLocator.ENABLED,
                    "off")));
    String message = brokers.find(BrokerKind.RABBITMQ_4).missing();
    assertThat(message)
        .doesNotContain("\n")
        .doesNotContain("secret")
        .contains("Set RABBITMQ4_URI")
        .contains("scripts/rabbitmq4.sh start")
        .contains("or start Docker");
  }

  @Test
  void extension_brokerMissing_printsOneLineHoweverManyTestsNeedIt() {
    List<String> out = new ArrayList<>();
    BrokerExtension.Brokers brokers =
        new BrokerExtension.Brokers(
            Environment.of(
                Map.of(
                    "RABBITMQ4_URI",
                    "amqp://guest:secret@127.0.0.1:1/%2F",
                    TestcontainersBrokerLocator.ENABLED,
                    "off")),
            new HashSet<>(),
            out::add);
    for (int test = 0; test < 3; test++) {
      assertThatThrownBy(() -> brokers.find(BrokerKind.RABBITMQ_4).require())
          .isInstanceOf(TestAbortedException.class)
          .hasMessageStartingWith("RabbitMQ 4.x is not available (nothing answers at ");
    }
    assertThat(out)
        .singleElement()
        .asString()
        .startsWith("[skip] RabbitMQ 4.x is not available (nothing answers at amqp://guest:***@")
        .contains("HARBINGER_TESTCONTAINERS=off")
        .contains("Set RABBITMQ4_URI to the AMQP URI of one")
        .endsWith("The tests that need it are skipped; with CI=true they fail.");
  }
}
