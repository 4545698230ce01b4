package io.harbinger.sidecar;

import static org.assertj.core.api.Assertions.assertThat;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.harbinger.predictor.HistogramPredictor;
import io.harbinger.predictor.Keys;
import io.harbinger.predictor.PredictorTuning;
import io.harbinger.rabbit.ChannelOptions;
import io.harbinger.rabbit.PredictiveChannels;
import io.harbinger.rabbit.PriorityQueues;
import io.harbinger.rabbit.ReportPublisher;
import io.harbinger.sidecar.client.SidecarRouter;
import io.harbinger.testing.EachBroker;
import io.harbinger.testing.ProgressWait;
import io.harbinger.testing.Quietly;
import io.harbinger.testing.TestBroker;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

/**
 * Producer with a SidecarRouter, consumers reporting through RabbitMQ, and the sidecar between
 * them: short jobs overtake long ones once learned, and losing the sidecar loses no message.
 */
class SidecarEndToEndIT {

  private static final Map<String, Long> COST_MILLIS =
      Map.of("short", 10L, "mid", 60L, "long", 300L);

  @TempDir Path dir;

  private TestBroker broker;
  private ConnectionFactory factory;
  private final String exchange = TestBroker.unique("e2e-reports");
  private final String queue = TestBroker.unique("e2e-jobs");
  private final List<AutoCloseable> closeables = new ArrayList<>();
  private final List<String> delivered = new CopyOnWriteArrayList<>();
  private SidecarConfig config;

  @BeforeEach
  void setUp(TestBroker broker) {
    this.broker = broker;
    this.factory = broker.factory();
  }

  @AfterEach
  void tearDown() {
    for (int i = closeables.size() - 1; i >= 0; i--) {
      try {
        closeables.get(i).close();
      } catch (Exception e) {
        // Best effort.
      }
    }
    Quietly.delete(
        broker,
        config == null ? List.of(queue) : List.of(queue, config.reportQueue()),
        List.of(exchange));
  }

  private <T extends AutoCloseable> T closeLater(T c) {
    closeables.add(c);
    return c;
  }

  @EachBroker
  void shortJobsOvertakeLongOnes_andLosingTheSidecarLosesNoMessage() throws Exception {
    config =
        SidecarTestSupport.config(
            dir,
            "replica-id",
            "e2e",
            "rabbitmq.uri",
            broker.bareUri(),
            "rabbitmq.username",
            factory.getUsername(),
            "rabbitmq.reports-exchange",
            exchange);
    // Boundaries after 60 reports: a lab hook, which the sidecar's settings do not reach.
    PredictorTuning tuning = PredictorTuning.builder().boundaryMinObservations(60).build();
    Sidecar sidecar =
        closeLater(
            Sidecar.start(
                config,
                Sidecar.serverBuilder(config),
                true,
                (settings, ticker, mode) ->
                    new HistogramPredictor(settings, tuning, ticker, mode)));
    ManagedChannel grpc =
        ManagedChannelBuilder.forAddress("127.0.0.1", sidecar.grpcPort()).usePlaintext().build();
    closeables.add(grpc::shutdownNow);
    SidecarRouter router = closeLater(SidecarRouter.watch(grpc, 3, Duration.ofMinutes(5), null));

    String user = factory.getUsername();
    Connection producerConnection = closeLater(factory.newConnection("e2e-producer"));
    ExecutorService workers = Executors.newFixedThreadPool(2);
    closeables.add(workers::shutdownNow);
    Connection consumerConnection = closeLater(factory.newConnection(workers, "e2e-consumers"));
    ReportPublisher reports =
        closeLater(ReportPublisher.builder(factory).exchange(exchange).start());
    Channel admin = closeLater(producerConnection.createChannel());
    PriorityQueues.declare(admin, queue, 3);
    Channel producer =
        PredictiveChannels.wrap(
            producerConnection.createChannel(),
            ChannelOptions.builder(user).router(router).build());

    // Learn: 25 jobs of each type, consumed as they come. Costs are tens of milliseconds so that
    // scheduling jitter
    // on a loaded machine does not make a key look spread (its 99th percentile over 16 times its
    // median).
    List<Channel> consumers = startConsumers(consumerConnection, user, reports);
    for (int i = 0; i < 25; i++) {
      for (String type : List.of("short", "mid", "long")) {
        publish(producer, type);
      }
    }
    ProgressWait.on("jobs delivered", delivered::size).untilAtLeast(75);
    assertThat(delivered).hasSize(75);
    ProgressWait.on("reports learned", () -> sidecar.reports().stats().learned())
        .until(
            "routes predicted for the short and the long type",
            () ->
                router.route(Keys.of(user, "short")).isPredicted()
                    && router.route(Keys.of(user, "long")).isPredicted());
    assertThat(router.route(Keys.of(user, "short")).level()).isZero();
    assertThat(router.route(Keys.of(user, "long")).level()).isEqualTo(2);

    // A backlog: 20 long jobs published before 20 short ones, with the consumers paused.
    for (Channel c : consumers) {
      c.close();
    }
    delivered.clear();
    for (int i = 0; i < 20; i++) {
      publish(producer, "long");
    }
    for (int i = 0; i < 20; i++) {
      publish(producer, "short");
    }
    startConsumers(consumerConnection, user, reports);
    ProgressWait.on("jobs delivered", delivered::size).untilAtLeast(40);
    assertThat(delivered).hasSize(40);
    // Two long jobs may already be in the consumers' hands (prefetch 1 each); every short job comes
    // before the rest.
    int lastShort = delivered.lastIndexOf("short");
    assertThat(lastShort).isLessThan(22);

    // The sidecar dies mid-stream: publishing goes on at the last table's levels and nothing is
    // lost.
    delivered.clear();
    for (int i = 0; i < 30; i++) {
      if (i == 10) {
        sidecar.close();
      }
      publish(producer, i % 2 == 0 ? "short" : "mid");
    }
    ProgressWait.on("jobs delivered", delivered::size).untilAtLeast(30);
    assertThat(delivered).hasSize(30);
    assertThat(router.route(Keys.of(user, "short")).level())
        .as("%s", router.route(Keys.of(user, "short")))
        .isZero();
  }

  private List<Channel> startConsumers(Connection connection, String user, ReportPublisher reports)
      throws Exception {
    List<Channel> channels = new ArrayList<>();
    for (int i = 0; i < 2; i++) {
      Channel ch =
          PredictiveChannels.wrap(
              connection.createChannel(), ChannelOptions.builder(user).reports(reports).build());
      ch.basicQos(1);
      ch.basicConsume(
          queue,
          false,
          (tag, delivery) -> {
            String type = new String(delivery.getBody(), StandardCharsets.UTF_8);
            LockSupport.parkNanos(Duration.ofMillis(COST_MILLIS.get(type)).toNanos());
            delivered.add(type);
            ch.basicAck(delivery.getEnvelope().getDeliveryTag(), false);
          },
          tag -> {});
      channels.add(ch);
    }
    return channels;
  }

  private void publish(Channel producer, String type) throws Exception {
    producer.basicPublish(
        "",
        queue,
        new AMQP.BasicProperties.Builder().headers(Map.of("x-job-type", type)).build(),
        type.getBytes(StandardCharsets.UTF_8));
  }
}
