package io.harbinger.sidecar;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import io.grpc.ManagedChannel;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.harbinger.predictor.Keys;
import io.harbinger.proto.v1.ReportBatch;
import io.harbinger.rabbit.ReportPublisher;
import io.harbinger.testing.BrokerKind;
import io.harbinger.testing.EachBroker;
import io.harbinger.testing.ProgressWait;
import io.harbinger.testing.Quietly;
import io.harbinger.testing.TemporaryUser;
import io.harbinger.testing.TestBroker;
import io.harbinger.testing.WithBroker;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The sidecar against the real brokers under faults: an oversized message, forged reports from
 * another user, its report queue's bounds, and a consumer that RabbitMQ cancels.
 */
class SidecarFaultsIT {

  @TempDir Path dir;

  /** How often the sidecars of the binding tests check their queue's binding. */
  private static final Duration BINDING_CHECK = Duration.ofSeconds(1);

  private Duration bindingCheck = Duration.ofSeconds(ReportSubscriber.BINDING_CHECK_SECONDS);

  private TestBroker broker;
  private final String exchange = TestBroker.unique("reports");
  private final List<Sidecar> sidecars = new ArrayList<>();
  private final List<String> queues = new ArrayList<>();
  private final List<ManagedChannel> channels = new ArrayList<>();

  @BeforeEach
  void setUp(TestBroker broker) {
    this.broker = broker;
  }

  @AfterEach
  void tearDown() {
    channels.forEach(ManagedChannel::shutdownNow);
    sidecars.forEach(Sidecar::close);
    Quietly.delete(broker, queues, List.of(exchange));
  }

  private Sidecar start(String replica, String... overrides) throws Exception {
    Path snapshots = Files.createDirectories(dir.resolve(replica));
    List<String> settings =
        new ArrayList<>(
            List.of(
                "replica-id",
                replica,
                "rabbitmq.uri",
                broker.bareUri(),
                "rabbitmq.username",
                broker.factory().getUsername(),
                "rabbitmq.reports-exchange",
                exchange));
    settings.addAll(List.of(overrides));
    SidecarConfig config = SidecarTestSupport.config(snapshots, settings.toArray(String[]::new));
    queues.add(config.reportQueue());
    String name = InProcessServerBuilder.generateName();
    Sidecar s = Sidecar.start(config, InProcessServerBuilder.forName(name), true, bindingCheck);
    sidecars.add(s);
    channels.add(InProcessChannelBuilder.forName(name).build());
    return s;
  }

  private ServingStatus health() {
    return HealthGrpc.newBlockingStub(channels.get(channels.size() - 1))
        .check(HealthCheckRequest.getDefaultInstance())
        .getStatus();
  }

  private AMQP.BasicProperties asReporter() {
    return new AMQP.BasicProperties.Builder().userId(broker.factory().getUsername()).build();
  }

  private String queueLine(String queue) throws Exception {
    for (String line :
        broker
            .rabbitmqctl("list_queues", "-q", "name", "messages", "consumers", "arguments")
            .split("\n")) {
      if (line.startsWith(queue + "\t") || line.startsWith(queue + " ")) {
        return line;
      }
    }
    return "";
  }

  /**
   * RabbitMQ 3.x only: a body over amqp-client's default limit (64 MiB) must be under the broker's
   * (128 MiB on 3.x, 16 MiB on 4.x).
   */
  @Test
  @WithBroker(BrokerKind.RABBITMQ_3)
  void messageOverTheClientsDefaultLimit_isCountedAndAcked_andTheConsumerStaysUp()
      throws Exception {
    Sidecar s = start("replica-big");
    try (Connection c = broker.newConnection("harbinger-it-big");
        Channel ch = c.createChannel()) {
      ch.basicPublish(exchange, "", asReporter(), new byte[65 << 20]);
      ch.basicPublish(exchange, "", asReporter(), SidecarTestSupport.threeTypes(1));
    }
    // Nothing moves while the 65 MiB body crosses: a longer stall window than the default.
    ProgressWait.on("report messages read", () -> SidecarTestSupport.messagesRead(s))
        .stall(Duration.ofSeconds(60))
        .until(
            "the 3 reports behind the large message learned",
            () -> SidecarTestSupport.learned(s) == 3);

    assertThat(s.reports().stats().oversizedBatches()).isEqualTo(1);
    assertThat(s.notReady()).isEmpty();
    assertThat(health()).isEqualTo(ServingStatus.SERVING);
    assertThat(queueLine(s.config().reportQueue())).containsPattern("\\s0\\s+1\\s");
  }

  @EachBroker
  void reportsFromAnotherUser_areCountedAndIgnored_theTrustedReportersAreLearned()
      throws Exception {
    Sidecar s = start("replica-trust");
    String user = broker.factory().getUsername();
    String key = Keys.of(user, "send_email");
    TemporaryUser bob = broker.addUser("bob", "", ".*", "");
    try (bob;
        Connection bobs = bob.newConnection("harbinger-it-bob");
        Channel ch = bobs.createChannel()) {
      AMQP.BasicProperties asBob = new AMQP.BasicProperties.Builder().userId(bob.name()).build();
      ReportBatch.Builder forged = ReportBatch.newBuilder();
      for (int i = 0; i < 300; i++) {
        forged.addReports(SidecarTestSupport.ack(user, "send_email", 29_500_000_000L));
      }
      ReportBatch.Builder flood = ReportBatch.newBuilder();
      for (int i = 0; i < 2_000; i++) {
        flood.addReports(SidecarTestSupport.ack(bob.name(), "flood-" + i, 1_000));
      }
      ch.basicPublish(exchange, "", asBob, forged.build().toByteArray());
      ch.basicPublish(exchange, "", null, forged.build().toByteArray());
      ch.basicPublish(exchange, "", asBob, flood.build().toByteArray());
    }
    try (Connection c = broker.newConnection("harbinger-it-trusted");
        Channel ch = c.createChannel()) {
      ReportBatch.Builder real = ReportBatch.newBuilder();
      for (int i = 0; i < 30; i++) {
        real.addReports(SidecarTestSupport.ack(user, "send_email", 1_400_000));
      }
      ch.basicPublish(exchange, "", asReporter(), real.build().toByteArray());
    }

    ProgressWait.on("report messages read", () -> SidecarTestSupport.messagesRead(s))
        .until(
            "3 batches refused and 30 reports learned",
            () ->
                s.reports().stats().untrustedBatches() == 3 && SidecarTestSupport.learned(s) == 30);
    assertThat(s.keyStats(key).orElseThrow().medianNanos()).isLessThan(2e6);
    assertThat(s.predictor().stats().keys()).isEqualTo(1);
    assertThat(s.metrics().scrape())
        .contains("harbinger_reports_rejected_total{reason=\"untrusted_batch\"} 3.0");
  }

  @EachBroker
  void reportQueue_isDeclaredWithALengthLimitRefusingNewBatchesAndAnExpiry() throws Exception {
    Sidecar s =
        start("replica-bounds", "reports.queue-max-length", "500", "reports.queue-expiry", "2h");

    String line = queueLine(s.config().reportQueue());
    assertThat(line)
        .contains("x-max-length")
        .contains("500")
        .contains("reject-publish")
        .contains("x-expires")
        .contains("7200000");
  }

  /**
   * A flood of junk from a user who cannot forge a report fills the replica's queue while the
   * sidecar is away: it cannot push out the trusted batches already queued, and the trusted batches
   * RabbitMQ refuses while the queue is full are counted by their publisher and declared to the
   * sidecar.
   */
  @EachBroker
  void floodFromAnUntrustedUser_cannotPushOutQueuedReports_andRefusedOnesAreCounted()
      throws Exception {
    String user = broker.factory().getUsername();
    start("replica-flood", "reports.queue-max-length", "100").close();
    ReportPublisher reporter = ReportPublisher.builder(broker.factory()).exchange(exchange).start();
    TemporaryUser bob = broker.addUser("bob", "", ".*", "");
    try (bob;
        Connection bobs = bob.newConnection("harbinger-it-bob")) {
      for (int i = 0; i < 1_000; i++) {
        reporter.accept(SidecarTestSupport.report(user, "send_email", 1_400_000));
      }
      ProgressWait.on("reports sent", reporter::sent).untilAtLeast(1_000);

      Channel ch = bobs.createChannel();
      ch.confirmSelect();
      AMQP.BasicProperties asBob = new AMQP.BasicProperties.Builder().userId(bob.name()).build();
      byte[] junk = ReportBatch.newBuilder().setReporterId("junk").build().toByteArray();
      for (int i = 0; i < 1_000; i++) {
        ch.basicPublish(exchange, "", asBob, junk);
      }
      // Settled, refused or not: the queue holds 100 batches at most.
      ch.waitForConfirms(60_000);

      for (int i = 0; i < 500; i++) {
        reporter.accept(SidecarTestSupport.report(user, "send_email", 1_400_000));
      }
      ProgressWait.on("reports sent or dropped", () -> reporter.sent() + reporter.dropped())
          .untilAtLeast(1_500);

      Sidecar s = start("replica-flood", "reports.queue-max-length", "100");
      ProgressWait.on("report messages read", () -> SidecarTestSupport.messagesRead(s))
          .untilAtLeast(100);
      for (int i = 0; i < 10; i++) {
        reporter.accept(SidecarTestSupport.report(user, "send_email", 1_400_000));
      }
      ProgressWait.on("report messages read", () -> SidecarTestSupport.messagesRead(s))
          .until(
              "every report sent learned and every one refused declared",
              () ->
                  SidecarTestSupport.learned(s) == 1_010
                      && s.reports().stats().reporterDrops() == 500);

      assertThat(reporter.dropped()).isEqualTo(500);
      assertThat(SidecarTestSupport.learned(s) + s.reports().stats().reporterDrops())
          .isEqualTo(reporter.sent() + reporter.dropped());
      assertThat(s.metrics().scrape())
          .contains("harbinger_reports_learned_total 1010.0")
          .contains("harbinger_reports_dropped_by_reporters_total 500.0");
    } finally {
      reporter.close();
    }
  }

  @EachBroker
  void reportQueueOfTheDropHeadVersion_isReplaced_keepingTheBatchesWaitingInIt(TestBroker broker)
      throws Exception {
    String queue = exchange + ".replica-old";
    queueOfAnEarlierVersion(
        broker,
        queue,
        Map.of("x-max-length", 10_000, "x-overflow", "drop-head", "x-expires", 86_400_000));

    upgradedSidecar_learnsWhatWaitedAndWhatComes("replica-old");
  }

  @EachBroker
  void reportQueueWithoutBounds_isReplaced_keepingTheBatchesWaitingInIt(TestBroker broker)
      throws Exception {
    String queue = exchange + ".replica-unbounded";
    queueOfAnEarlierVersion(broker, queue, Map.of());

    upgradedSidecar_learnsWhatWaitedAndWhatComes("replica-unbounded");
  }

  /** Declares a queue as an earlier version did, bound, with two batches (6 reports) waiting. */
  private void queueOfAnEarlierVersion(TestBroker broker, String queue, Map<String, Object> args)
      throws Exception {
    queues.add(queue);
    try (Connection c = broker.newConnection("harbinger-it-old");
        Channel ch = c.createChannel()) {
      ch.exchangeDeclare(exchange, "fanout", true);
      ch.queueDeclare(queue, true, false, false, args);
      ch.queueBind(queue, exchange, "");
      ch.basicPublish(exchange, "", asReporter(), SidecarTestSupport.threeTypes(1));
      ch.basicPublish(exchange, "", asReporter(), SidecarTestSupport.threeTypes(1));
    }
  }

  private void upgradedSidecar_learnsWhatWaitedAndWhatComes(String replica) throws Exception {
    Sidecar s = start(replica);
    ProgressWait.on("reports learned", () -> SidecarTestSupport.learned(s)).untilAtLeast(6);
    try (Connection c = broker.newConnection("harbinger-it-after");
        Channel ch = c.createChannel()) {
      ch.basicPublish(exchange, "", asReporter(), SidecarTestSupport.threeTypes(1));
    }

    ProgressWait.on("reports learned", () -> SidecarTestSupport.learned(s)).untilAtLeast(9);
    assertThat(SidecarTestSupport.learned(s)).isEqualTo(9);
    assertThat(s.notReady()).isEmpty();
    assertThat(queueLine(s.config().reportQueue()))
        .contains("reject-publish")
        .containsPattern("\\s0\\s+1\\s");
    assertThat(broker.rabbitmqctl("list_queues", "-q", "name")).doesNotContain(".upgrading");
  }

  @EachBroker
  void reportQueueOfAnEarlierVersion_thatTheSidecarMayNotReplace_isUsedAsItIs(TestBroker broker)
      throws Exception {
    String queue = exchange + ".replica-perm";
    queueOfAnEarlierVersion(broker, queue, Map.of("x-overflow", "drop-head"));
    // Its user may use its queue and the exchange, but not declare the temporary queue.
    String own = "^" + java.util.regex.Pattern.quote(exchange) + "(\\.replica-perm)?$";
    TemporaryUser sidecarUser = broker.addUser("sidecar", own, own, ".*");
    Path password = Files.writeString(dir.resolve("password"), sidecarUser.password());
    try (sidecarUser) {
      Sidecar s =
          start(
              "replica-perm",
              "rabbitmq.username",
              sidecarUser.name(),
              "rabbitmq.password-file",
              password.toString(),
              "reports.trusted-reporters",
              broker.factory().getUsername());

      ProgressWait.on("reports learned", () -> SidecarTestSupport.learned(s)).untilAtLeast(6);
      assertThat(SidecarTestSupport.learned(s)).isEqualTo(6);
      assertThat(s.notReady()).isEmpty();
      assertThat(queueLine(queue)).contains("drop-head");
    }
  }

  @EachBroker
  void reportQueueOfAnEarlierVersionWithAnotherConsumer_isUsedAsItIs(TestBroker broker)
      throws Exception {
    String queue = exchange + ".replica-shared";
    queues.add(queue);
    try (Connection c = broker.newConnection("harbinger-it-other");
        Channel ch = c.createChannel()) {
      ch.exchangeDeclare(exchange, "fanout", true);
      ch.queueDeclare(queue, true, false, false, Map.of("x-overflow", "drop-head"));
      ch.queueBind(queue, exchange, "");
      ch.basicConsume(queue, true, (tag, delivery) -> {}, tag -> {});

      Sidecar s = start("replica-shared");

      assertThat(s.notReady()).isEmpty();
      assertThat(queueLine(queue)).contains("drop-head").containsPattern("\\s0\\s+2\\s");
    }
  }

  /**
   * The reports exchange deleted under a sidecar while a reporter keeps sending: the reporter
   * declares it again at once, and the sidecar's queue, no longer bound, gets nothing. The sidecar
   * finds out, binds it again, and says NOT_SERVING with the reason meanwhile.
   */
  @EachBroker
  void reportsExchangeDeletedAndDeclaredAgainByAReporter_sidecarBindsAgain_notServingMeanwhile()
      throws Exception {
    bindingCheck = BINDING_CHECK;
    Sidecar s = start("replica-rebind");
    String user = broker.factory().getUsername();
    ReportPublisher reporter = ReportPublisher.builder(broker.factory()).exchange(exchange).start();
    ScheduledExecutorService sender = Executors.newSingleThreadScheduledExecutor();
    try {
      sender.scheduleAtFixedRate(
          () -> reporter.accept(SidecarTestSupport.report(user, "send_email", 1_400_000)),
          0,
          5,
          TimeUnit.MILLISECONDS);
      ProgressWait.on("reports learned", () -> SidecarTestSupport.learned(s)).untilAtLeast(100);
      assertThat(health()).isEqualTo(ServingStatus.SERVING);

      try (Connection c = broker.newConnection("harbinger-it-delete");
          Channel ch = c.createChannel()) {
        ch.exchangeDelete(exchange);
      }
      List<String> reasons = new CopyOnWriteArrayList<>();
      ProgressWait.on("reports sent", reporter::sent)
          .until(
              "the sidecar not serving",
              () -> {
                // Health first: the sidecar sets the reason before it sets gRPC health.
                if (health() != ServingStatus.NOT_SERVING) {
                  return false;
                }
                s.notReady().ifPresent(reasons::add);
                return !reasons.isEmpty();
              });
      long before = SidecarTestSupport.learned(s);
      ProgressWait.on("reports sent", reporter::sent)
          .until(
              "the sidecar learning and serving again",
              () ->
                  SidecarTestSupport.learned(s) > before + 100
                      && health() == ServingStatus.SERVING);

      assertThat(reasons)
          .anySatisfy(
              r ->
                  assertThat(r)
                      .contains("queue " + s.config().reportQueue())
                      .containsAnyOf("its binding was lost", "was missing"));
      assertThat(s.metrics().scrape())
          .containsPattern(
              "harbinger_report_binding_repairs_total\\{reason=\"(probe_lost|exchange_missing)\"\\} 1.0");
    } finally {
      Quietly.shutdown(sender);
      reporter.close();
    }
  }

  /**
   * The reports exchange declared again as a direct exchange: the sidecar cannot learn through it,
   * says so naming the exchange and its type, and learns again once it is a fanout again.
   */
  @EachBroker
  void reportsExchangeDeclaredAgainAsDirect_notServingNamesItsType_untilItIsAFanoutAgain()
      throws Exception {
    bindingCheck = BINDING_CHECK;
    Sidecar s = start("replica-direct");
    await().atMost(Duration.ofSeconds(10)).until(() -> health() == ServingStatus.SERVING);

    try (Connection c = broker.newConnection("harbinger-it-direct");
        Channel ch = c.createChannel()) {
      ch.exchangeDelete(exchange);
      ch.exchangeDeclare(exchange, "direct", true);
    }

    await().atMost(Duration.ofSeconds(30)).until(() -> health() == ServingStatus.NOT_SERVING);
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () ->
                assertThat(s.notReady())
                    .hasValueSatisfying(
                        r ->
                            assertThat(r)
                                .contains("'" + exchange + "' is a direct exchange, not fanout")));

    try (Connection c = broker.newConnection("harbinger-it-fanout");
        Channel ch = c.createChannel()) {
      ch.exchangeDelete(exchange);
    }
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> s.notReady().isEmpty() || !s.notReady().get().contains("direct"));
    try (Connection c = broker.newConnection("harbinger-it-after");
        Channel ch = c.createChannel()) {
      ch.basicPublish(exchange, "", asReporter(), SidecarTestSupport.threeTypes(1));
    }
    ProgressWait.on("reports learned", () -> SidecarTestSupport.learned(s)).untilAtLeast(3);
    await().atMost(Duration.ofSeconds(30)).until(() -> health() == ServingStatus.SERVING);
  }

  @EachBroker
  void reportsExchangeOfAnotherTypeAtStart_startFailsNamingTheExchangeAndItsType()
      throws Exception {
    try (Connection c = broker.newConnection("harbinger-it-direct");
        Channel ch = c.createChannel()) {
      ch.exchangeDeclare(exchange, "direct", true);
    }

    assertThatThrownBy(() -> start("replica-direct-at-start"))
        .isInstanceOf(java.io.IOException.class)
        .hasMessageContaining("the reports exchange '" + exchange + "' is a direct exchange")
        .hasMessageContaining("Delete it");
  }

  @EachBroker
  void reportQueueDeleted_healthSaysNotServing_untilTheSidecarHasSubscribedAgain()
      throws Exception {
    Sidecar s = start("replica-cancel");
    await().atMost(Duration.ofSeconds(10)).until(() -> health() == ServingStatus.SERVING);

    try (Connection c = broker.newConnection("harbinger-it-delete");
        Channel ch = c.createChannel()) {
      ch.queueDelete(s.config().reportQueue());
    }

    await().atMost(Duration.ofSeconds(10)).until(() -> health() == ServingStatus.NOT_SERVING);
    assertThat(s.notReady()).hasValueSatisfying(r -> assertThat(r).contains("cancelled"));
    await().atMost(Duration.ofSeconds(20)).until(() -> health() == ServingStatus.SERVING);
    try (Connection c = broker.newConnection("harbinger-it-after");
        Channel ch = c.createChannel()) {
      ch.basicPublish(exchange, "", asReporter(), SidecarTestSupport.threeTypes(1));
    }
    ProgressWait.on("reports learned", () -> SidecarTestSupport.learned(s)).untilAtLeast(3);
    assertThat(SidecarTestSupport.learned(s)).isEqualTo(3);
  }
}
