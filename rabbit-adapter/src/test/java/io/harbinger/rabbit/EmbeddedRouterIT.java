package io.harbinger.rabbit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.GetResponse;
import io.harbinger.predictor.HistogramPredictor;
import io.harbinger.predictor.Keys;
import io.harbinger.predictor.PredictorConfig;
import io.harbinger.proto.v1.DurationReport;
import io.harbinger.proto.v1.Outcome;
import io.harbinger.proto.v1.ReportBatch;
import io.harbinger.testing.BrokerKind;
import io.harbinger.testing.EachBroker;
import io.harbinger.testing.ProgressWait;
import io.harbinger.testing.Quietly;
import io.harbinger.testing.TemporaryUser;
import io.harbinger.testing.TestBroker;
import io.harbinger.testing.WithBroker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.Test;

/** The embedded router on the real brokers: what reaches its queue, and whom it believes. */
class EmbeddedRouterIT {

  private static ReportBatch batch(String producer, String jobType, int n, long nanos) {
    ReportBatch.Builder b = ReportBatch.newBuilder().setReporterId("it");
    for (int i = 0; i < n; i++) {
      b.addReports(
          DurationReport.newBuilder()
              .setProducer(producer)
              .setJobType(jobType)
              .setOutcome(Outcome.OUTCOME_ACK)
              .setHandlerNanos(nanos));
    }
    return b.build();
  }

  private static long learned(EmbeddedRouter router) {
    return router.ingestStats().learned();
  }

  /** Counts the messages the router has read from its reports queue, whatever it made of them. */
  static long messagesRead(EmbeddedRouter router) {
    IngestStats s = router.ingestStats();
    return s.batches() + s.malformedBatches() + s.oversizedBatches() + s.untrustedBatches();
  }

  private static AMQP.BasicProperties as(String user) {
    return new AMQP.BasicProperties.Builder().userId(user).build();
  }

  /**
   * Runs on RabbitMQ 3.x only: a body over amqp-client's default limit (64 MiB) must be under the
   * broker's, which is 128 MiB on 3.x and 16 MiB on 4.x.
   */
  @Test
  @WithBroker(BrokerKind.RABBITMQ_3)
  void messageOverTheClientsDefaultLimit_isCountedAndAcked_andNoConnectionDies(TestBroker broker)
      throws Exception {
    ConnectionFactory factory = broker.factory();
    String exchange = TestBroker.unique("reports");
    Connection application = factory.newConnection("harbinger-it-application");
    HistogramPredictor predictor = new HistogramPredictor(PredictorConfig.defaults());
    EmbeddedRouter router = EmbeddedRouter.builder(factory, predictor).exchange(exchange).start();
    try {
      try (Channel ch = application.createChannel()) {
        ch.basicPublish(exchange, "", as(factory.getUsername()), new byte[65 << 20]);
        ch.basicPublish(
            exchange,
            "",
            as(factory.getUsername()),
            batch("shop", "after", 1, 5_000).toByteArray());
      }
      // Nothing moves while the 65 MiB body crosses: a longer stall window than the default.
      ProgressWait.on("report messages read", () -> messagesRead(router))
          .stall(Duration.ofSeconds(60))
          .until("the report behind the large message learned", () -> learned(router) == 1);

      assertThat(router.ingestStats().oversizedBatches()).isEqualTo(1);
      assertThat(router.consuming()).isTrue();
      assertThat(application.isOpen()).isTrue();
      assertThat(broker.rabbitmqctl("list_queues", "-q", "name", "messages", "consumers"))
          .containsPattern(router.queue() + "\\s+0\\s+1");
    } finally {
      Quietly.close(router);
      Quietly.deleteExchange(application, exchange);
      Quietly.close(application);
    }
  }

  @EachBroker
  void reportsFromAnotherUser_orWithoutUserId_areCountedAndIgnored(TestBroker broker)
      throws Exception {
    ConnectionFactory factory = broker.factory();
    String exchange = TestBroker.unique("reports");
    HistogramPredictor predictor = new HistogramPredictor(PredictorConfig.defaults());
    EmbeddedRouter router = EmbeddedRouter.builder(factory, predictor).exchange(exchange).start();
    Connection admin = factory.newConnection("harbinger-it-admin");
    TemporaryUser bob = broker.addUser("bob", "", ".*", "");
    try (bob;
        Connection bobs = bob.newConnection("harbinger-it-bob")) {
      Channel ch = bobs.createChannel();
      String key = Keys.of(factory.getUsername(), "send_email");
      // Bob claims to report about the router user's messages, as himself and without a user-id.
      ch.basicPublish(
          exchange,
          "",
          as(bob.name()),
          batch(factory.getUsername(), "send_email", 300, 30_000_000_000L).toByteArray());
      ch.basicPublish(
          exchange,
          "",
          null,
          batch(factory.getUsername(), "send_email", 300, 30_000_000_000L).toByteArray());
      // The trusted reporter's own report goes through.
      try (Channel own = admin.createChannel()) {
        own.basicPublish(
            exchange,
            "",
            as(factory.getUsername()),
            batch(factory.getUsername(), "send_email", 1, 1_400_000).toByteArray());
      }

      ProgressWait.on("report messages read", () -> messagesRead(router))
          .until(
              "one report learned and two batches refused",
              () -> learned(router) == 1 && router.ingestStats().untrustedBatches() == 2);
      assertThat(predictor.keyStats(key).orElseThrow().observations()).isEqualTo(1);
      assertThat(predictor.keyStats(key).orElseThrow().medianNanos()).isLessThan(1e7);

      // RabbitMQ itself refuses Bob's attempt to borrow the trusted user's identity.
      ch.basicPublish(exchange, "", as(factory.getUsername()), new byte[0]);
      await().atMost(Duration.ofSeconds(10)).until(() -> !ch.isOpen());
      assertThat(ch.getCloseReason().getMessage()).contains("user_id property set to");
    } finally {
      Quietly.close(router);
      Quietly.deleteExchange(admin, exchange);
      Quietly.close(admin);
    }
  }

  /**
   * A job type never seen finishing, whose producer's other types differ too widely to lend an
   * estimate, is stamped by the jobs of its size: with its small hint it goes ahead of the same
   * type with a large hint, in the order RabbitMQ delivers.
   */
  @EachBroker
  void coldJobTypeWithASizeHint_isStampedByTheJobsOfItsSize(TestBroker broker) throws Exception {
    ConnectionFactory factory = broker.factory();
    String user = factory.getUsername();
    String exchange = TestBroker.unique("reports");
    String queue = TestBroker.unique("sized");
    HistogramPredictor predictor = new HistogramPredictor(PredictorConfig.defaults());
    EmbeddedRouter router = EmbeddedRouter.builder(factory, predictor).exchange(exchange).start();
    Connection admin = factory.newConnection("harbinger-it-admin");
    try (Channel ch = admin.createChannel()) {
      // 30 small kinds of about 2 ms and 30 large ones of about 2 s, 10 reports each: every kind
      // stays cold (fewer than 20 observations) and the producer's aggregate is spread.
      ReportBatch.Builder reports = ReportBatch.newBuilder().setReporterId("it");
      for (int kind = 0; kind < 30; kind++) {
        for (int i = 0; i < 10; i++) {
          reports.addReports(
              DurationReport.newBuilder()
                  .setProducer(user)
                  .setJobType("small_" + kind)
                  .setSize(100 + i)
                  .setOutcome(Outcome.OUTCOME_ACK)
                  .setHandlerNanos(2_000_000 + 10_000 * i));
          reports.addReports(
              DurationReport.newBuilder()
                  .setProducer(user)
                  .setJobType("large_" + kind)
                  .setSize(1_000_000 + i)
                  .setOutcome(Outcome.OUTCOME_ACK)
                  .setHandlerNanos(2_000_000_000L + 10_000_000L * i));
        }
      }
      ch.basicPublish(exchange, "", as(user), reports.build().toByteArray());
      ProgressWait.on("reports learned", () -> learned(router)).untilAtLeast(600);
      assertThat(learned(router)).isEqualTo(600);
      PriorityQueues.declare(ch, queue, router.levels());

      Channel producer =
          PredictiveChannels.wrap(
              admin.createChannel(),
              ChannelOptions.builder(user).router(router).sizeHints(true).build());
      producer.basicPublish("", queue, sized("thumbnail", 1_000_050), new byte[0]);
      producer.basicPublish("", queue, sized("thumbnail", 120), new byte[0]);
      producer.basicPublish("", queue, sized("thumbnail", null), new byte[0]);
      producer.close();

      List<String> hints = new ArrayList<>();
      List<Integer> priorities = new ArrayList<>();
      ProgressWait.on("messages drained", hints::size)
          .until(
              "3 messages drained",
              () -> {
                GetResponse r;
                while ((r = ch.basicGet(queue, true)) != null) {
                  Object hint = r.getProps().getHeaders().get(ChannelOptions.SIZE_HINT_HEADER);
                  hints.add(String.valueOf(hint));
                  priorities.add(r.getProps().getPriority());
                }
                return hints.size() == 3;
              });
      // Published large first, delivered small first.
      assertThat(hints.get(0)).isEqualTo("120");
      assertThat(priorities.get(0)).isGreaterThan(priorities.get(hints.indexOf("1000050")));
      assertThat(predictor.stats().predictions())
          .containsEntry(io.harbinger.predictor.Outcome.BORROWED, 2L);
      // Without a hint the body length (0 bytes) is the hint, and nobody's jobs were that size.
      assertThat(predictor.stats().predictions()).containsKey(io.harbinger.predictor.Outcome.COLD);
    } finally {
      Quietly.close(router);
      Quietly.deleteExchange(admin, exchange);
      Quietly.close(admin);
      Quietly.delete(broker, List.of(queue), List.of(exchange));
    }
  }

  private static AMQP.BasicProperties sized(String jobType, Object sizeHint) {
    Map<String, Object> headers = new HashMap<>();
    headers.put("x-job-type", jobType);
    if (sizeHint != null) {
      headers.put(ChannelOptions.SIZE_HINT_HEADER, sizeHint);
    }
    return new AMQP.BasicProperties.Builder().headers(headers).build();
  }

  /**
   * A flood of junk from a user who cannot forge a report, while the router's consumer is busy: the
   * trusted batches queued behind its prefetch stay, and RabbitMQ refuses the flood beyond the
   * queue's bound instead of pushing them out.
   */
  @EachBroker
  void floodFromAnUntrustedUser_cannotPushOutQueuedReports(TestBroker broker) throws Exception {
    String user = broker.factory().getUsername();
    String exchange = TestBroker.unique("reports");
    ExecutorService dispatch = Executors.newSingleThreadExecutor();
    ConnectionFactory factory = broker.factory();
    factory.setSharedExecutor(dispatch);
    HistogramPredictor predictor = new HistogramPredictor(PredictorConfig.defaults());
    EmbeddedRouter router = EmbeddedRouter.builder(factory, predictor).exchange(exchange).start();
    CountDownLatch busy = new CountDownLatch(1);
    Connection admin = broker.newConnection("harbinger-it-admin");
    TemporaryUser bob = broker.addUser("bob", "", ".*", "");
    try (bob;
        Connection bobs = bob.newConnection("harbinger-it-bob")) {
      // The router's consumer is busy: deliveries wait in its prefetch, the rest in its queue.
      dispatch.execute(
          () -> {
            try {
              busy.await();
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
          });
      Channel flood = bobs.createChannel();
      flood.confirmSelect();
      byte[] junk = ReportBatch.newBuilder().setReporterId("junk").build().toByteArray();
      for (int i = 0; i < EmbeddedRouter.PREFETCH + 100; i++) {
        flood.basicPublish(exchange, "", as(bob.name()), junk);
      }
      flood.waitForConfirms(60_000);
      try (Channel own = admin.createChannel()) {
        own.confirmSelect();
        for (int i = 0; i < 10; i++) {
          own.basicPublish(
              exchange, "", as(user), batch(user, "send_email", 10, 1_400_000).toByteArray());
        }
        assertThat(own.waitForConfirms(60_000)).isTrue();
      }
      for (int i = 0; i < EmbeddedRouter.QUEUE_MAX_LENGTH + 2_000; i++) {
        flood.basicPublish(exchange, "", as(bob.name()), junk);
      }
      flood.waitForConfirms(60_000);
      busy.countDown();

      ProgressWait.on("report messages read", () -> messagesRead(router))
          .until("the 100 trusted reports learned", () -> learned(router) == 100);
      assertThat(router.ingestStats().untrustedBatches())
          .isLessThanOrEqualTo(EmbeddedRouter.QUEUE_MAX_LENGTH + EmbeddedRouter.PREFETCH);
    } finally {
      busy.countDown();
      Quietly.close(router);
      Quietly.deleteExchange(admin, exchange);
      Quietly.close(admin);
      Quietly.shutdown(dispatch);
    }
  }

  /** How often the routers of the binding tests check their queue's binding. */
  private static final Duration BINDING_CHECK = Duration.ofSeconds(1);

  /**
   * The reports exchange deleted under a router while a reporter keeps sending: the reporter
   * declares it again at once, and the router's queue, no longer bound, gets nothing. The router
   * finds out and binds it again, and {@link EmbeddedRouter#consuming()} is false meanwhile, with
   * the reason.
   */
  @EachBroker
  void reportsExchangeDeletedAndDeclaredAgain_routerBindsAgain_notConsumingMeanwhile(
      TestBroker broker) throws Exception {
    ConnectionFactory factory = broker.factory();
    String exchange = TestBroker.unique("reports");
    HistogramPredictor predictor = new HistogramPredictor(PredictorConfig.defaults());
    EmbeddedRouter router =
        EmbeddedRouter.builder(factory, predictor)
            .exchange(exchange)
            .checkInterval(BINDING_CHECK)
            .start();
    Connection admin = broker.newConnection("harbinger-it-admin");
    try (Reporting reporting = new Reporting(broker, exchange)) {
      ProgressWait.on("reports learned", () -> learned(router)).untilAtLeast(100);
      assertThat(router.consuming()).isTrue();

      Quietly.deleteExchange(admin, exchange);
      List<String> reasons = new java.util.concurrent.CopyOnWriteArrayList<>();
      ProgressWait.on("reports sent", reporting.publisher::sent)
          .until(
              "the router not consuming",
              () -> {
                Optional<String> problem = router.problem();
                problem.ifPresent(reasons::add);
                return problem.isPresent();
              });
      long before = learned(router);
      ProgressWait.on("reports sent", reporting.publisher::sent)
          .until(
              "the router learning and consuming again",
              () -> learned(router) > before + 100 && router.consuming());

      assertThat(reasons)
          .anySatisfy(
              r ->
                  assertThat(r)
                      .contains("queue " + router.queue())
                      .containsAnyOf("its binding was lost", "was missing"));
      assertThat(router.bindingRepairs()).isEqualTo(1);
    } finally {
      Quietly.close(router);
      Quietly.deleteExchange(admin, exchange);
      Quietly.close(admin);
    }
  }

  /**
   * After a connection recovery the router's server-named queue has a new name: its binding checks
   * follow it, and a binding lost later is still found and restored.
   */
  @EachBroker
  void connectionRecovered_thenExchangeDeclaredAgain_routerBindsItsRenamedQueue(TestBroker broker)
      throws Exception {
    ConnectionFactory factory = broker.factory();
    String exchange = TestBroker.unique("reports");
    HistogramPredictor predictor = new HistogramPredictor(PredictorConfig.defaults());
    EmbeddedRouter router =
        EmbeddedRouter.builder(factory, predictor)
            .exchange(exchange)
            .checkInterval(BINDING_CHECK)
            .start();
    Connection admin = broker.newConnection("harbinger-it-admin");
    try (Reporting reporting = new Reporting(broker, exchange)) {
      ProgressWait.on("reports learned", () -> learned(router)).untilAtLeast(100);
      String first = router.queue();

      broker.closeConnectionFromBroker("harbinger-embedded-router");
      ProgressWait.on("reports sent", reporting.publisher::sent)
          .until(
              "the router recovered, consuming its renamed queue",
              () -> !router.queue().equals(first) && router.consuming());
      Quietly.deleteExchange(admin, exchange);
      long before = learned(router);
      ProgressWait.on("reports sent", reporting.publisher::sent)
          .until(
              "the router learning again after the exchange was declared again",
              () -> learned(router) > before + 100 && router.consuming());

      assertThat(router.bindingRepairs()).isEqualTo(1);
    } finally {
      Quietly.close(router);
      Quietly.deleteExchange(admin, exchange);
      Quietly.close(admin);
    }
  }

  /**
   * A router whose user may not publish to the reports exchange cannot probe it: it binds its queue
   * again at every check instead, and learns again after the exchange was declared again.
   */
  @EachBroker
  void routerThatMayNotPublishToTheExchange_bindsAgainAtEveryCheck(TestBroker broker)
      throws Exception {
    String exchange = TestBroker.unique("reports");
    TemporaryUser learner = broker.addUser("learner", ".*", "^amq\\.gen-.*", ".*");
    HistogramPredictor predictor = new HistogramPredictor(PredictorConfig.defaults());
    Connection admin = broker.newConnection("harbinger-it-admin");
    EmbeddedRouter router = null;
    try (learner;
        Reporting reporting = new Reporting(broker, exchange)) {
      router =
          EmbeddedRouter.builder(learner.factory(), predictor)
              .exchange(exchange)
              .trustedReporters(TrustedReporters.of(broker.factory().getUsername()))
              .checkInterval(BINDING_CHECK)
              .start();
      EmbeddedRouter r = router;
      ProgressWait.on("reports learned", () -> learned(r)).untilAtLeast(100);

      Quietly.deleteExchange(admin, exchange);
      long before = learned(r);
      ProgressWait.on("reports sent", reporting.publisher::sent)
          .until(
              "the router learning again after the exchange was declared again",
              () -> learned(r) > before + 100 && r.consuming());
    } finally {
      Quietly.close(router);
      Quietly.deleteExchange(admin, exchange);
      Quietly.close(admin);
    }
  }

  @EachBroker
  void reportsExchangeOfAnotherTypeAtStart_startFailsNamingTheExchangeAndItsType(TestBroker broker)
      throws Exception {
    String exchange = TestBroker.unique("reports");
    Connection admin = broker.newConnection("harbinger-it-admin");
    try (Channel ch = admin.createChannel()) {
      ch.exchangeDeclare(exchange, "topic", true);
      HistogramPredictor predictor = new HistogramPredictor(PredictorConfig.defaults());

      assertThatThrownBy(
              () -> EmbeddedRouter.builder(broker.factory(), predictor).exchange(exchange).start())
          .isInstanceOf(java.io.IOException.class)
          .hasMessageContaining("the reports exchange '" + exchange + "' is a topic exchange");
    } finally {
      Quietly.deleteExchange(admin, exchange);
      Quietly.close(admin);
    }
  }

  /** A reporter that publishes a report of the broker's user every 5 ms until closed. */
  private static final class Reporting implements AutoCloseable {
    final ReportPublisher publisher;
    private final java.util.concurrent.ScheduledExecutorService sender =
        Executors.newSingleThreadScheduledExecutor();

    Reporting(TestBroker broker, String exchange) throws Exception {
      String user = broker.factory().getUsername();
      publisher = ReportPublisher.builder(broker.factory()).exchange(exchange).start();
      io.harbinger.rabbit.DurationReport report = TestReports.ack(user, "send_email", 1_400_000);
      sender.scheduleAtFixedRate(
          () -> publisher.accept(report), 0, 5, java.util.concurrent.TimeUnit.MILLISECONDS);
    }

    @Override
    public void close() {
      Quietly.shutdown(sender);
      publisher.close();
    }
  }

  @EachBroker
  void reporterLimitedToSomeProducers_reportsAboutOthersAreCountedAsForged(TestBroker broker)
      throws Exception {
    ConnectionFactory factory = broker.factory();
    String user = factory.getUsername();
    String exchange = TestBroker.unique("reports");
    HistogramPredictor predictor = new HistogramPredictor(PredictorConfig.defaults());
    EmbeddedRouter router =
        EmbeddedRouter.builder(factory, predictor)
            .exchange(exchange)
            .trustedReporters(TrustedReporters.parse(user + "=shop"))
            .start();
    Connection admin = factory.newConnection("harbinger-it-admin");
    try (Channel ch = admin.createChannel()) {
      ReportBatch mixed =
          batch("shop", "ok", 1, 1_000_000).toBuilder()
              .addAllReports(batch("alice", "send_email", 2, 1_000_000).getReportsList())
              .build();
      ch.basicPublish(exchange, "", as(user), mixed.toByteArray());

      ProgressWait.on("report messages read", () -> messagesRead(router))
          .until("two reports counted as forged", () -> router.ingestStats().forgedReports() == 2);
      assertThat(router.ingestStats().learned()).isEqualTo(1);
      assertThat(predictor.keyStats(Keys.of("alice", "send_email"))).isEmpty();
    } finally {
      Quietly.close(router);
      Quietly.deleteExchange(admin, exchange);
      Quietly.close(admin);
      Quietly.delete(broker, List.of(), List.of(exchange));
    }
  }
}
