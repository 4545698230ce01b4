package io.harbinger.rabbit;

import static org.assertj.core.api.Assertions.assertThat;

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
import io.harbinger.testing.EachBroker;
import io.harbinger.testing.ProgressWait;
import io.harbinger.testing.Quietly;
import io.harbinger.testing.TestBroker;

/** Garbage on the reports exchange is counted and ignored; the router keeps routing. */
class GarbageReportsIT {

  @EachBroker
  void garbageReports_areCountedAndIgnored_validOnesStillLearned(TestBroker broker)
      throws Exception {
    ConnectionFactory factory = broker.factory();
    String exchange = TestBroker.unique("reports");
    Connection connection = factory.newConnection("harbinger-it-garbage");
    EmbeddedRouter router = null;
    try {
      HistogramPredictor predictor = new HistogramPredictor(PredictorConfig.defaults());
      router = EmbeddedRouter.builder(factory, predictor).exchange(exchange).start();
      DurationReport.Builder valid =
          DurationReport.newBuilder()
              .setProducer("shop")
              .setJobType("good")
              .setOutcome(Outcome.OUTCOME_ACK)
              .setHandlerNanos(2_000_000);
      ReportBatch mixed =
          ReportBatch.newBuilder()
              .addReports(valid)
              .addReports(valid.clone().setJobType("absurd").setHandlerNanos(-1))
              .addReports(valid.clone().setJobType("absurd").setHandlerNanos(Long.MAX_VALUE))
              .addReports(valid.clone().setProducer("p".repeat(10_000)))
              .addReports(valid.clone().setOutcome(Outcome.OUTCOME_UNSPECIFIED))
              .build();
      // Published as the router's own user, a trusted reporter: the garbage is judged as garbage.
      AMQP.BasicProperties asReporter =
          new AMQP.BasicProperties.Builder().userId(factory.getUsername()).build();
      try (Channel ch = connection.createChannel()) {
        ch.basicPublish(exchange, "", asReporter, new byte[] {(byte) 0xFF, 0x00, 0x13, 0x37});
        ch.basicPublish(exchange, "", asReporter, "{\"json\": true}".getBytes());
        ch.basicPublish(exchange, "", asReporter, new byte[ReportIngestor.MAX_BATCH_BYTES + 10]);
        ch.basicPublish(exchange, "", asReporter, mixed.toByteArray());
      }
      EmbeddedRouter r = router;

      // A batch is counted when its ingestion starts, its reports as each is judged: wait until all
      // four messages and the five reports of the well-formed batch have been judged.
      ProgressWait.on("report messages read", () -> EmbeddedRouterIT.messagesRead(r))
          .until(
              "every message and report judged",
              () -> {
                IngestStats t = r.ingestStats();
                return t.malformedBatches() + t.oversizedBatches() + t.batches() == 4
                    && t.learned() + t.rejectedDurations() + t.rejectedKeys() + t.rejectedOutcomes()
                        == 5;
              });
      assertThat(r.ingestStats().batches()).isEqualTo(1);
      IngestStats s = r.ingestStats();
      assertThat(s.malformedBatches()).isEqualTo(2);
      assertThat(s.oversizedBatches()).isEqualTo(1);
      assertThat(s.learned()).isEqualTo(1);
      assertThat(s.rejectedDurations()).isEqualTo(2);
      assertThat(s.rejectedKeys()).isEqualTo(1);
      assertThat(s.rejectedOutcomes()).isEqualTo(1);
      assertThat(predictor.keyStats(Keys.of("shop", "good"))).isPresent();
      assertThat(predictor.keyStats(Keys.of("shop", "absurd"))).isEmpty();
      assertThat(router.route(Keys.of("shop", "good")).level()).isEqualTo(1);
    } finally {
      Quietly.close(router);
      Quietly.deleteExchange(connection, exchange);
      Quietly.close(connection);
    }
  }
}
