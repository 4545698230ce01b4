package io.harbinger.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.testkit.engine.EngineTestKit;
import org.junit.platform.testkit.engine.Event;
import org.junit.platform.testkit.engine.Events;

/**
 * The extension on the real brokers: each run names its broker; a broker that is missing skips the
 * runs that need it, with one line per JVM naming the variable to set, and fails them under {@code
 * CI=true}.
 *
 * <p>The missing broker is made missing here, by pointing its variable at a closed port, so both
 * paths are tested on any machine. The tests that need a real broker take it from the extension
 * they test, and so are skipped (or fail under CI) where it is missing, like any other test.
 */
class BrokerExtensionIT {

  @BeforeEach
  void noContainers() {
    // These tests are about brokers that are missing: none may be started in a container instead.
    System.setProperty(TestcontainersBrokerLocator.ENABLED, "off");
  }

  @AfterEach
  void clearOverrides() {
    System.clearProperty("RABBITMQ4_URI");
    System.clearProperty("RABBITMQ_URI");
    System.clearProperty("CI");
    System.clearProperty(TestcontainersBrokerLocator.ENABLED);
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

  /** A class whose three tests all need the 4.x broker. */
  @WithBroker(BrokerKind.RABBITMQ_4)
  static class WithFourBroker {
    @Test
    void first(TestBroker broker) {}

    @Test
    void second(TestBroker broker) {}

    @EachBroker(BrokerKind.RABBITMQ_4)
    void third(TestBroker broker) {}
  }

  /** What a run of the test kit did, and what it printed. */
  private record Run(Events events, List<String> lines) {
    List<String> linesStartingWith(String prefix) {
      return lines.stream().filter(l -> l.startsWith(prefix)).toList();
    }
  }

  /** Runs a class through the test kit, capturing what it prints on standard output. */
  private static Run run(Class<?> testClass) {
    PrintStream original = System.out;
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
    Events events;
    try {
      events =
          EngineTestKit.engine("junit-jupiter")
              .selectors(selectClass(testClass))
              .execute()
              .testEvents();
    } finally {
      System.setOut(original);
    }
    return new Run(events, captured.toString(StandardCharsets.UTF_8).lines().toList());
  }

  private static List<String> names(Events events) {
    return events.stream().map(e -> e.getTestDescriptor().getDisplayName()).toList();
  }

  private static String reason(Event event) {
    return event
        .getPayload(TestExecutionResult.class)
        .flatMap(TestExecutionResult::getThrowable)
        .map(Throwable::getMessage)
        .orElse("");
  }

  /** Returns a loopback port that nothing listens on. */
  private static int closedPort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  /** Returns an AMQP URI, with a password in it, at a loopback port that nothing listens on. */
  private static String nowhere() throws IOException {
    return "amqp://guest:secret@127.0.0.1:" + closedPort() + "/%2F";
  }

  private static Event only(Events events) {
    List<Event> list = events.list();
    assertThat(list).hasSize(1);
    return list.get(0);
  }

  @Test
  @WithBroker
  void eachBroker_fourMissingOutsideCi_runsOnThreeAndSkipsFourWithOneLine(TestBroker three)
      throws Exception {
    int port = closedPort();
    System.setProperty("CI", "false");
    System.setProperty("RABBITMQ4_URI", "amqp://guest:secret@127.0.0.1:" + port + "/%2F");

    Run run = run(OnEachBroker.class);

    assertThat(names(run.events().succeeded())).containsExactly("[" + three.label() + "]");
    assertThat(run.events().failed().count()).isZero();
    Event skipped = only(run.events().aborted());
    assertThat(skipped.getTestDescriptor().getDisplayName())
        .isEqualTo("[RabbitMQ 4.x (not available)]");
    assertThat(reason(skipped))
        .startsWith("RabbitMQ 4.x is not available (nothing answers at ")
        .contains("127.0.0.1:" + port)
        .contains("Set RABBITMQ4_URI to the AMQP URI of one")
        .contains("scripts/rabbitmq4.sh start")
        .contains("start Docker")
        .doesNotContain("secret");
    assertThat(run.linesStartingWith("[skip]"))
        .singleElement()
        .asString()
        .isEqualTo(
            "[skip] "
                + reason(skipped)
                + " The tests that need it are skipped; with CI=true they fail.");
  }

  @Test
  @WithBroker
  void eachBroker_fourMissingUnderCi_failsThatRunSayingWhy(TestBroker three) throws Exception {
    System.setProperty("CI", "true");
    System.setProperty("RABBITMQ4_URI", nowhere());

    Run run = run(OnEachBroker.class);

    assertThat(names(run.events().succeeded())).containsExactly("[" + three.label() + "]");
    assertThat(run.events().aborted().count()).isZero();
    Event failed = only(run.events().failed());
    assertThat(reason(failed))
        .contains("RabbitMQ 4.x is not available")
        .contains("Set RABBITMQ4_URI")
        .endsWith("CI=true: a missing prerequisite fails the run.");
    assertThat(run.linesStartingWith("[fail]"))
        .singleElement()
        .asString()
        .contains("RabbitMQ 4.x is not available");
    assertThat(run.linesStartingWith("[skip]")).isEmpty();
  }

  @Test
  void withBroker_fourMissingOutsideCi_skipsEveryTestOfTheClassWithOneLine() throws Exception {
    System.setProperty("CI", "false");
    System.setProperty("RABBITMQ4_URI", nowhere());

    Run run = run(WithFourBroker.class);

    assertThat(run.events().aborted().count()).isEqualTo(3);
    assertThat(run.events().succeeded().count()).isZero();
    assertThat(run.events().failed().count()).isZero();
    assertThat(run.linesStartingWith("[skip]"))
        .singleElement()
        .asString()
        .contains("RABBITMQ4_URI");
    assertThat(run.lines()).as("no stack trace").noneMatch(l -> l.startsWith("\tat "));
  }

  @Test
  void withBroker_threeMissingUnderCi_failsEveryTestOfTheClass() throws Exception {
    System.setProperty("CI", "true");
    System.setProperty("RABBITMQ_URI", nowhere());

    Run run = run(WithDefaultBroker.class);

    Event failed = only(run.events().failed());
    assertThat(reason(failed))
        .contains("RabbitMQ 3.x is not available")
        .contains("Set RABBITMQ_URI")
        .contains("rabbitmq-server -detached");
  }

  @Test
  @WithBroker(BrokerKind.RABBITMQ_4)
  void eachBroker_bothReachable_runsOncePerBrokerNamedAfterIt(TestBroker four) {
    System.setProperty("CI", "true");

    Run run = run(OnEachBroker.class);

    assertThat(run.events().failed().count()).isZero();
    assertThat(names(run.events().succeeded()))
        .hasSize(2)
        .satisfies(n -> assertThat(n.get(0)).startsWith("[RabbitMQ 3."))
        .satisfies(n -> assertThat(n.get(1)).isEqualTo("[" + four.label() + "]"));
  }

  @Test
  @WithBroker
  void eachBroker_uriPointsAtTheWrongVersion_saysSo(TestBroker three) {
    System.setProperty("RABBITMQ4_URI", three.uri());
    EnvironmentBrokerLocator locator = new EnvironmentBrokerLocator();

    assertThat(locator.locate(BrokerKind.RABBITMQ_4, Environment.current())).isEmpty();
    assertThat(locator.lastFailure())
        .contains("RABBITMQ4_URI must point at RabbitMQ 4.x")
        .contains("is RabbitMQ 3.");
  }

  @Test
  @WithBroker
  void withBroker_default_givesTheThreeBroker(TestBroker three) {
    System.setProperty("CI", "true");

    Run run = run(WithDefaultBroker.class);

    assertThat(run.events().succeeded().count()).isEqualTo(1);
    assertThat(run.lines()).contains("[broker] WithDefaultBroker.getsTheThreeBroker on " + three);
  }

  @EachBroker
  void rabbitmqctl_eachBroker_drivesItsOwnNode(TestBroker broker) throws Exception {
    String q = TestBroker.unique("ctl");
    try (Connection c = broker.newConnection("harbinger-it-ctl");
        Channel ch = c.createChannel()) {
      ch.queueDeclare(q, true, false, false, Map.of());
      assertThat(broker.rabbitmqctl("list_queues", "-q", "name")).as(broker.label()).contains(q);
      ch.queueDelete(q);
    }
  }

  @EachBroker
  void closeConnectionFromBroker_eachBroker_closesTheNamedConnection(TestBroker broker)
      throws Exception {
    String name = TestBroker.unique("close");
    com.rabbitmq.client.ConnectionFactory factory = broker.factory();
    factory.setAutomaticRecoveryEnabled(false);
    Connection c = factory.newConnection(name);
    broker.closeConnectionFromBroker(name);
    // The broker closes it at once: this bounds a protocol exchange, not a process.
    Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> !c.isOpen());
    assertThat(c.getCloseReason().getMessage()).contains("harbinger integration test");
  }
}
