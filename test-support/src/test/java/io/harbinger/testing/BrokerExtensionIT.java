package io.harbinger.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.platform.testkit.engine.EngineTestKit;
import org.junit.platform.testkit.engine.Event;
import org.junit.platform.testkit.engine.Events;

/**
 * The extension on the real brokers: each run names its broker, a missing broker skips its run with
 * the variable to set, and fails it under CI.
 */
class BrokerExtensionIT {

  @AfterEach
  void clearOverrides() {
    System.clearProperty("RABBITMQ4_URI");
    System.clearProperty("RABBITMQ_URI");
    System.clearProperty("CI");
  }

  /** A test class run through the test kit, not by Failsafe (it is nested and not named *IT). */
  static class OnEachBroker {
    @EachBroker
    void declaresAQueue(TestBroker broker) throws Exception {
      String q = TestBroker.unique("ext");
      try (Connection c = broker.newConnection("harbinger-it-ext");
          Channel ch = c.createChannel()) {
        ch.queueDeclare(q, true, false, false, Map.of());
        ch.queueDelete(q);
      }
      assertThat(broker.majorVersion()).isEqualTo(broker.kind().majorVersion());
    }
  }

  /** A class given one broker, the 3.x one by default. */
  @WithBroker
  static class WithDefaultBroker {
    @Test
    void getsTheThreeBroker(TestBroker broker) {
      assertThat(broker.kind()).isEqualTo(BrokerKind.RABBITMQ_3);
    }
  }

  private static Events run(Class<?> testClass) {
    return EngineTestKit.engine("junit-jupiter")
        .selectors(selectClass(testClass))
        .execute()
        .testEvents();
  }

  private static List<String> names(Events events) {
    return events.stream().map(e -> e.getTestDescriptor().getDisplayName()).toList();
  }

  @Test
  void eachBroker_bothReachable_runsOncePerBrokerNamedAfterIt() {
    System.setProperty("CI", "false");
    Events events = run(OnEachBroker.class);
    Environment env = Environment.current();
    TestBroker three =
        new EnvironmentBrokerLocator().locate(BrokerKind.RABBITMQ_3, env).orElse(null);
    TestBroker four =
        new EnvironmentBrokerLocator().locate(BrokerKind.RABBITMQ_4, env).orElse(null);
    assertThat(three).as("a RabbitMQ 3.x broker for this test").isNotNull();
    assertThat(four).as("a RabbitMQ 4.x broker for this test").isNotNull();
    assertThat(names(events.succeeded()))
        .containsExactly("[" + three.label() + "]", "[" + four.label() + "]");
    assertThat(events.failed().count()).isZero();
  }

  @Test
  void eachBroker_fourMissingOutsideCi_skipsThatRunNamingTheVariable() {
    System.setProperty("CI", "false");
    System.setProperty("RABBITMQ4_URI", "amqp://guest:secret@127.0.0.1:1/%2F");
    Events events = run(OnEachBroker.class);
    assertThat(events.succeeded().count()).isEqualTo(1);
    assertThat(events.aborted().count()).isEqualTo(1);
    Event skipped = events.aborted().stream().findFirst().orElseThrow();
    String reason =
        skipped
            .getPayload(org.junit.platform.engine.TestExecutionResult.class)
            .flatMap(org.junit.platform.engine.TestExecutionResult::getThrowable)
            .map(Throwable::getMessage)
            .orElse("");
    assertThat(reason)
        .contains("RabbitMQ 4.x is not available")
        .contains("Set RABBITMQ4_URI")
        .contains("scripts/rabbitmq4.sh start")
        .contains("127.0.0.1:1")
        .doesNotContain("secret");
  }

  @Test
  void eachBroker_fourMissingUnderCi_failsThatRun() {
    System.setProperty("CI", "true");
    System.setProperty("RABBITMQ4_URI", "amqp://127.0.0.1:1/%2F");
    Events events = run(OnEachBroker.class);
    assertThat(events.succeeded().count()).isEqualTo(1);
    assertThat(events.aborted().count()).isZero();
    assertThat(events.failed().count()).isEqualTo(1);
  }

  @Test
  void eachBroker_uriPointsAtTheWrongVersion_saysSo() {
    System.setProperty("CI", "false");
    System.setProperty("RABBITMQ4_URI", BrokerKind.RABBITMQ_3.defaultUri());
    Environment env = Environment.current();
    EnvironmentBrokerLocator locator = new EnvironmentBrokerLocator();
    assertThat(locator.locate(BrokerKind.RABBITMQ_4, env)).isEmpty();
    assertThat(locator.lastFailure())
        .contains("RABBITMQ4_URI must point at RabbitMQ 4.x")
        .contains("is RabbitMQ 3.");
  }

  @Test
  void withBroker_default_givesTheThreeBroker() {
    System.setProperty("CI", "false");
    Events events = run(WithDefaultBroker.class);
    assertThat(events.succeeded().count()).isEqualTo(1);
  }

  @Test
  void rabbitmqctl_eachBroker_drivesItsOwnNode() throws Exception {
    Environment env = Environment.current();
    for (BrokerKind kind : BrokerKind.values()) {
      TestBroker broker = new EnvironmentBrokerLocator().locate(kind, env).orElseThrow();
      String q = TestBroker.unique("ctl");
      try (Connection c = broker.newConnection("harbinger-it-ctl");
          Channel ch = c.createChannel()) {
        ch.queueDeclare(q, true, false, false, Map.of());
        assertThat(broker.rabbitmqctl("list_queues", "-q", "name")).as(broker.label()).contains(q);
        ch.queueDelete(q);
      }
    }
  }

  @Test
  void closeConnectionFromBroker_eachBroker_closesTheNamedConnection() throws Exception {
    Environment env = Environment.current();
    for (BrokerKind kind : BrokerKind.values()) {
      TestBroker broker = new EnvironmentBrokerLocator().locate(kind, env).orElseThrow();
      String name = TestBroker.unique("close");
      com.rabbitmq.client.ConnectionFactory factory = broker.factory();
      factory.setAutomaticRecoveryEnabled(false);
      Connection c = factory.newConnection(name);
      broker.closeConnectionFromBroker(name);
      org.awaitility.Awaitility.await()
          .atMost(java.time.Duration.ofSeconds(10))
          .until(() -> !c.isOpen());
      assertThat(c.getCloseReason().getMessage()).contains("harbinger integration test");
    }
  }
}
