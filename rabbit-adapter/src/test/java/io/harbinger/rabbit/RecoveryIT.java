package io.harbinger.rabbit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.Recoverable;
import com.rabbitmq.client.RecoveryListener;
import io.harbinger.testing.EachBroker;
import io.harbinger.testing.ProgressWait;
import io.harbinger.testing.Quietly;
import io.harbinger.testing.TestBroker;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/** A consumer connection closed by the broker mid-run: recovery resumes, nothing is lost. */
class RecoveryIT {

  private static final int MESSAGES = 30;

  @EachBroker
  void brokerClosesConsumerConnection_recoveryResumes_noMessageLost_reportsResume(TestBroker broker)
      throws Exception {
    ConnectionFactory factory = broker.factory();
    String user = factory.getUsername();
    String queue = TestBroker.unique("recovery");
    String exchange = TestBroker.unique("reports");
    String consumerName = "harbinger-it-" + queue;
    ExecutorService threads = Executors.newFixedThreadPool(2);
    Connection admin = factory.newConnection("harbinger-it-admin");
    Connection consumerConnection = factory.newConnection(threads, consumerName);
    ReportPublisher publisher = null;
    try {
      // A raw listener on the reports exchange, to see what the consumer reports.
      Channel listen = admin.createChannel();
      listen.exchangeDeclare(exchange, "fanout", true);
      String reportQueue = listen.queueDeclare().getQueue();
      listen.queueBind(reportQueue, exchange, "");
      List<DurationReport> seen = new CopyOnWriteArrayList<>();
      listen.basicConsume(
          reportQueue,
          true,
          (tag, d) -> seen.addAll(TestReports.batch(d.getBody()).reports()),
          tag -> {});
      try (Channel ch = admin.createChannel()) {
        PriorityQueues.declare(ch, queue, 3);
      }

      publisher =
          ReportPublisher.builder(factory)
              .exchange(exchange)
              .flushInterval(Duration.ofMillis(50))
              .start();
      AtomicLong recoveredAtMicros = new AtomicLong();
      ((Recoverable) consumerConnection)
          .addRecoveryListener(
              new RecoveryListener() {
                @Override
                public void handleRecovery(Recoverable recoverable) {
                  java.time.Instant now = java.time.Instant.now();
                  recoveredAtMicros.set(now.getEpochSecond() * 1_000_000 + now.getNano() / 1_000);
                }

                @Override
                public void handleRecoveryStarted(Recoverable recoverable) {}
              });
      Channel consumer =
          PredictiveChannels.wrap(
              consumerConnection.createChannel(),
              ChannelOptions.builder(user).reports(publisher).build());
      assertThat(consumer).isInstanceOf(Recoverable.class);
      consumer.basicQos(1);
      Set<String> acked = ConcurrentHashMap.newKeySet();
      java.util.concurrent.CountDownLatch closed = new java.util.concurrent.CountDownLatch(1);
      AtomicInteger redelivered = new AtomicInteger();
      consumer.basicConsume(
          queue,
          false,
          (tag, d) -> {
            if (d.getEnvelope().isRedeliver()) {
              redelivered.incrementAndGet();
            }
            try {
              if (d.getProperties().getMessageId().equals("m5") && !d.getEnvelope().isRedeliver()) {
                // Hold this delivery unsettled until the broker has closed the connection.
                closed.await(20, java.util.concurrent.TimeUnit.SECONDS);
              }
              Thread.sleep(40);
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
            consumer.basicAck(d.getEnvelope().getDeliveryTag(), false);
            acked.add(d.getProperties().getMessageId());
          },
          tag -> {});

      try (Channel raw = admin.createChannel()) {
        Channel producer = PredictiveChannels.wrap(raw, user, null);
        for (int i = 0; i < MESSAGES; i++) {
          producer.basicPublish(
              "",
              queue,
              new AMQP.BasicProperties.Builder()
                  .messageId("m" + i)
                  .headers(Map.of("x-job-type", "recover"))
                  .build(),
              new byte[0]);
        }
      }
      ProgressWait.on("messages acked", acked::size).untilAtLeast(5);

      broker.closeConnectionFromBroker(consumerName);
      closed.countDown();

      ProgressWait.on("messages acked", acked::size).untilAtLeast(MESSAGES);
      await().atMost(Duration.ofSeconds(10)).until(() -> recoveredAtMicros.get() > 0);
      ProgressWait.on("reports seen", seen::size)
          .until(
              "a report of an ack settled after the recovery",
              () ->
                  seen.stream()
                      .anyMatch(
                          r ->
                              r.settlement() == Settlement.ACK
                                  && r.settledAtMicros() > recoveredAtMicros.get()));
      assertThat(redelivered.get()).isPositive();
      ProgressWait.on("reports seen", seen::size)
          .until(
              "one censored report per redelivery",
              () ->
                  seen.stream().filter(r -> r.settlement() == Settlement.CENSORED).count()
                      == redelivered.get());
      assertThat(seen)
          .allSatisfy(r -> assertThat(r.jobType()).isEqualTo("recover"))
          .allSatisfy(r -> assertThat(r.producer()).isEqualTo(user));
      System.out.printf(
          "recovery: %d acked, %d redelivered, %d reports, %d dropped%n",
          acked.size(), redelivered.get(), seen.size(), publisher.dropped());
    } finally {
      Quietly.close(publisher);
      Quietly.close(consumerConnection);
      Quietly.deleteQueue(admin, queue);
      Quietly.deleteExchange(admin, exchange);
      Quietly.close(admin);
      Quietly.shutdown(threads);
    }
  }
}
