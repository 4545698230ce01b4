package io.harbinger.rabbit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import io.harbinger.proto.v1.ReportBatch;
import io.harbinger.testing.EachBroker;
import io.harbinger.testing.ProgressWait;
import io.harbinger.testing.Quietly;
import io.harbinger.testing.TemporaryUser;
import io.harbinger.testing.TestBroker;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

/** The report publisher on the real brokers: confirms, a channel error, a refused identity. */
class ReportPublisherIT {

  private static DurationReport report(int i) {
    return TestReports.ack("shop", "it-" + i, 1_000_000);
  }

  @EachBroker
  void exchangeDeletedThenDeclaredAgain_failedBatchIsNotCountedAsSent_andReportingResumes(
      TestBroker broker) throws Exception {
    String exchange = TestBroker.unique("reports");
    Connection listener = broker.newConnection("harbinger-it-listener");
    AtomicLong received = new AtomicLong();
    List<String> userIds = new CopyOnWriteArrayList<>();
    Channel listen = listener.createChannel();
    listen.exchangeDeclare(exchange, "fanout", true);
    String q = listen.queueDeclare("", false, true, true, null).getQueue();
    listen.queueBind(q, exchange, "");
    listen.basicConsume(
        q,
        true,
        (tag, d) -> {
          received.addAndGet(ReportBatch.parseFrom(d.getBody()).getReportsCount());
          userIds.add(d.getProperties().getUserId());
        },
        tag -> {});
    ReportPublisher publisher =
        ReportPublisher.builder(broker.factory())
            .exchange(exchange)
            .batchSize(10)
            .flushInterval(Duration.ofMillis(20))
            .start();
    try {
      for (int i = 0; i < 10; i++) {
        publisher.accept(report(i));
      }
      ProgressWait.on("reports received", received::get).untilAtLeast(10);
      assertThat(received.get()).isEqualTo(10);

      try (Channel ch = listener.createChannel()) {
        ch.exchangeDelete(exchange);
      }
      for (int i = 0; i < 10; i++) {
        publisher.accept(report(i));
      }
      await().atMost(Duration.ofSeconds(10)).until(() -> publisher.failedBatches() == 1);

      Channel again = listener.createChannel();
      again.exchangeDeclare(exchange, "fanout", true);
      again.queueBind(q, exchange, "");
      for (int i = 0; i < 10; i++) {
        publisher.accept(report(i));
      }
      ProgressWait.on("reports received", received::get).untilAtLeast(20);
      assertThat(received.get()).isEqualTo(20);

      assertThat(publisher.sent()).isEqualTo(20);
      assertThat(publisher.dropped()).isEqualTo(10);
      assertThat(userIds).containsOnly(broker.factory().getUsername());
    } finally {
      Quietly.close(publisher);
      Quietly.deleteExchange(listener, exchange);
      Quietly.close(listener);
    }
  }

  @EachBroker
  void exchangeDeletedAndDeclaredAgainWithNoQueueBound_reportsCountAsUnroutable_neverAsSent(
      TestBroker broker) throws Exception {
    String exchange = TestBroker.unique("reports");
    Connection listener = broker.newConnection("harbinger-it-listener");
    AtomicLong received = new AtomicLong();
    Channel listen = listener.createChannel();
    listen.exchangeDeclare(exchange, "fanout", true);
    String q = listen.queueDeclare("", false, true, true, null).getQueue();
    listen.queueBind(q, exchange, "");
    listen.basicConsume(
        q,
        true,
        (tag, d) -> received.addAndGet(ReportBatch.parseFrom(d.getBody()).getReportsCount()),
        tag -> {});
    ReportPublisher publisher =
        ReportPublisher.builder(broker.factory())
            .exchange(exchange)
            .batchSize(10)
            .flushInterval(Duration.ofMillis(20))
            .start();
    try {
      for (int i = 0; i < 10; i++) {
        publisher.accept(report(i));
      }
      ProgressWait.on("reports received", received::get).untilAtLeast(10);

      // The exchange goes, and comes back (the publisher declares it again) with nothing bound.
      try (Channel ch = listener.createChannel()) {
        ch.exchangeDelete(exchange);
      }
      for (int round = 0; round < 5; round++) {
        // Read before the round's reports go in: a quick publisher may settle them at once.
        long before = publisher.unroutable() + publisher.dropped();
        for (int i = 0; i < 10; i++) {
          publisher.accept(report(i));
        }
        ProgressWait.on("reports counted", () -> publisher.unroutable() + publisher.dropped())
            .untilAtLeast(before + 10);
      }

      assertThat(publisher.sent()).isEqualTo(10);
      assertThat(publisher.dropped()).isEqualTo(10); // the batch the deleted exchange refused
      assertThat(publisher.unroutable()).isEqualTo(40);
      assertThat(received.get()).isEqualTo(10);
      assertThat(ClientStats.source(new AdapterStats()).reports(publisher).get().reporting())
          .hasValueSatisfying(r -> assertThat(r.unroutable()).isEqualTo(40));

      // A queue bound again: reports are sent and received again.
      listen.queueBind(q, exchange, "");
      for (int i = 0; i < 10; i++) {
        publisher.accept(report(i));
      }
      ProgressWait.on("reports received", received::get).untilAtLeast(20);
      assertThat(publisher.sent()).isEqualTo(20);
      assertThat(publisher.unroutable()).isEqualTo(40);
    } finally {
      Quietly.close(publisher);
      Quietly.deleteExchange(listener, exchange);
      Quietly.close(listener);
    }
  }

  @EachBroker
  void exchangeDeclaredAgainAsDirect_reportsItDoesNotRoute_countAsUnroutable(TestBroker broker)
      throws Exception {
    String exchange = TestBroker.unique("reports");
    Connection admin = broker.newConnection("harbinger-it-admin");
    Channel ch = admin.createChannel();
    ch.exchangeDeclare(exchange, "direct", true);
    String q = ch.queueDeclare("", false, true, true, null).getQueue();
    ch.queueBind(q, exchange, "some-key"); // report batches are published with routing key ""
    ReportPublisher publisher =
        ReportPublisher.builder(broker.factory())
            .exchange(exchange)
            .batchSize(5)
            .flushInterval(Duration.ofMillis(20))
            .start();
    try {
      for (int i = 0; i < 5; i++) {
        publisher.accept(report(i));
      }
      ProgressWait.on("reports unroutable", publisher::unroutable).untilAtLeast(5);

      assertThat(publisher.unroutable()).isEqualTo(5);
      assertThat(publisher.sent()).isZero();
      assertThat(ch.queueDeclarePassive(q).getMessageCount()).isZero();
    } finally {
      Quietly.close(publisher);
      Quietly.deleteExchange(admin, exchange);
      Quietly.close(admin);
    }
  }

  @EachBroker
  void start_userIdOfAnotherUser_failsAtOnceNamingTheProblem(TestBroker broker) {
    String exchange = TestBroker.unique("reports");
    try {
      assertThatThrownBy(
              () ->
                  ReportPublisher.builder(broker.factory())
                      .exchange(exchange)
                      .userId("someone-else")
                      .start())
          .isInstanceOf(IOException.class)
          .hasMessageContaining("user-id 'someone-else'")
          .hasMessageContaining("406");
    } finally {
      Quietly.delete(broker, List.of(), List.of(exchange));
    }
  }

  @EachBroker
  void reporterWithWriteOnTheExchangeOnly_publishesReports(TestBroker broker) throws Exception {
    String exchange = TestBroker.unique("reports");
    Connection admin = broker.newConnection("harbinger-it-admin");
    AtomicLong received = new AtomicLong();
    Channel listen = admin.createChannel();
    listen.exchangeDeclare(exchange, "fanout", true);
    String q = listen.queueDeclare("", false, true, true, null).getQueue();
    listen.queueBind(q, exchange, "");
    listen.basicConsume(
        q,
        true,
        (tag, d) -> received.addAndGet(ReportBatch.parseFrom(d.getBody()).getReportsCount()),
        tag -> {});
    TemporaryUser reporter =
        broker.addUser("reporter", "^$", "^" + exchange.replace(".", "\\.") + "$", "^$");
    ReportPublisher publisher = null;
    try (reporter) {
      publisher =
          ReportPublisher.builder(reporter.factory())
              .exchange(exchange)
              .flushInterval(Duration.ofMillis(20))
              .start();
      for (int i = 0; i < 5; i++) {
        publisher.accept(report(i));
      }
      ReportPublisher p = publisher;
      ProgressWait.on("reports received", received::get).untilAtLeast(5);
      assertThat(received.get()).isEqualTo(5);
      assertThat(p.sent()).isEqualTo(5);
      assertThat(p.userId()).isEqualTo(reporter.name());
    } finally {
      Quietly.close(publisher);
      Quietly.deleteExchange(admin, exchange);
      Quietly.close(admin);
    }
  }
}
