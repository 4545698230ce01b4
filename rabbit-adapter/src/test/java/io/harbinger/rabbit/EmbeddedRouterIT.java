package io.harbinger.rabbit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import io.harbinger.predictor.HistogramPredictor;
import io.harbinger.predictor.Keys;
import io.harbinger.predictor.PredictorConfig;
import io.harbinger.proto.v1.DurationReport;
import io.harbinger.proto.v1.Outcome;
import io.harbinger.proto.v1.ReportBatch;
import io.harbinger.testing.BrokerKind;
import io.harbinger.testing.EachBroker;
import io.harbinger.testing.Quietly;
import io.harbinger.testing.TemporaryUser;
import io.harbinger.testing.TestBroker;
import io.harbinger.testing.WithBroker;
import java.time.Duration;
import java.util.List;
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
      await().atMost(Duration.ofSeconds(60)).until(() -> router.ingestStats().learned() == 1);

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

      await().atMost(Duration.ofSeconds(10)).until(() -> router.ingestStats().learned() == 1);
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> router.ingestStats().untrustedBatches() == 2);
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

      await().atMost(Duration.ofSeconds(10)).until(() -> router.ingestStats().forgedReports() == 2);
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
