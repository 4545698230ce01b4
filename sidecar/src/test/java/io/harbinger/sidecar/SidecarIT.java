package io.harbinger.sidecar;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import io.grpc.inprocess.InProcessServerBuilder;
import io.harbinger.predictor.KeyStats;
import io.harbinger.predictor.Keys;
import io.harbinger.proto.v1.ReportBatch;
import io.harbinger.testing.EachBroker;
import io.harbinger.testing.ProgressWait;
import io.harbinger.testing.Quietly;
import io.harbinger.testing.TestBroker;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

/** The sidecar against the real RabbitMQ: report consumption, garbage, restarts and replicas. */
class SidecarIT {

  @TempDir Path dir;

  private TestBroker broker;
  private ConnectionFactory factory;
  private final String exchange = TestBroker.unique("reports");
  private final List<Sidecar> sidecars = new ArrayList<>();
  private final List<String> queues = new ArrayList<>();

  @BeforeEach
  void setUp(TestBroker broker) {
    this.broker = broker;
    this.factory = broker.factory();
  }

  @AfterEach
  void tearDown() {
    sidecars.forEach(Sidecar::close);
    Quietly.delete(broker, queues, List.of(exchange));
  }

  private Sidecar start(String replica) throws Exception {
    Path snapshots = dir.resolve(replica);
    java.nio.file.Files.createDirectories(snapshots);
    SidecarConfig config =
        SidecarTestSupport.config(
            snapshots,
            "replica-id",
            replica,
            "rabbitmq.uri",
            broker.bareUri(),
            "rabbitmq.username",
            factory.getUsername(),
            "rabbitmq.reports-exchange",
            exchange);
    queues.add(config.reportQueue());
    Sidecar s =
        Sidecar.start(
            config, InProcessServerBuilder.forName(InProcessServerBuilder.generateName()), true);
    sidecars.add(s);
    return s;
  }

  private void publish(byte[]... bodies) throws Exception {
    try (Connection c = factory.newConnection();
        Channel ch = c.createChannel()) {
      ch.exchangeDeclare(exchange, "fanout", true);
      for (byte[] body : bodies) {
        // As the sidecar's own user, the reporter it trusts by default.
        ch.basicPublish(
            exchange,
            "",
            new AMQP.BasicProperties.Builder().userId(factory.getUsername()).build(),
            body);
      }
    }
  }

  @EachBroker
  void start_wrongPassword_failsAtOnceNamingThePasswordSetting() throws Exception {
    Properties p = new Properties();
    p.setProperty("harbinger.grpc.port", "0");
    p.setProperty("harbinger.metrics.port", "-1");
    p.setProperty("harbinger.snapshot.path", "");
    p.setProperty("harbinger.rabbitmq.uri", broker.bareUri());
    p.setProperty("harbinger.rabbitmq.username", factory.getUsername());
    p.setProperty("harbinger.rabbitmq.reports-exchange", exchange);
    SidecarConfig config =
        new ConfigLoader(Map.of("HARBINGER_RABBITMQ_PASSWORD", "not-the-password"), p)
            .load(Optional.empty());
    assertThat(config.rabbit().startupRetry()).isEqualTo(Duration.ofSeconds(60));
    long started = System.nanoTime();

    assertThatThrownBy(
            () ->
                Sidecar.start(
                    config,
                    InProcessServerBuilder.forName(InProcessServerBuilder.generateName()),
                    true))
        .isInstanceOf(java.io.IOException.class)
        .hasMessageContaining("refused the login of user '" + factory.getUsername() + "'")
        .hasMessageContaining("HARBINGER_RABBITMQ_PASSWORD");
    assertThat(Duration.ofNanos(System.nanoTime() - started))
        .as("a refused login is not retried for rabbitmq.startup-retry")
        .isLessThan(Duration.ofSeconds(30));
  }

  private static long accepted(Sidecar sidecar) {
    return sidecar.predictor().stats().accepted();
  }

  private static long observations(Sidecar sidecar) {
    return sidecar.predictor().keyStats().stream().mapToLong(KeyStats::observations).sum();
  }

  @EachBroker
  void twoReplicas_eachReceiveEveryReportAndConvergeToTheSameLevels() throws Exception {
    Sidecar a = start("replica-a");
    Sidecar b = start("replica-b");
    Random random = new Random(11);
    List<byte[]> batches = new ArrayList<>();
    for (int batch = 0; batch < 20; batch++) {
      ReportBatch.Builder rb = ReportBatch.newBuilder().setReporterId("it").setSequence(batch);
      for (int i = 0; i < 30; i++) {
        rb.addReports(
            SidecarTestSupport.ack(
                "shop", "fast", (long) (2e6 * (0.9 + 0.2 * random.nextDouble()))));
        rb.addReports(
            SidecarTestSupport.ack(
                "shop", "mid", (long) (40e6 * (0.9 + 0.2 * random.nextDouble()))));
        rb.addReports(
            SidecarTestSupport.ack(
                "shop", "slow", (long) (2e9 * (0.9 + 0.2 * random.nextDouble()))));
      }
      batches.add(rb.build().toByteArray());
    }
    publish(batches.toArray(byte[][]::new));
    ProgressWait.on("reports accepted by the two replicas", () -> accepted(a) + accepted(b))
        .until(
            "1800 reports accepted by each replica",
            () -> accepted(a) == 1800 && accepted(b) == 1800);
    for (String job : List.of("fast", "mid", "slow")) {
      String key = Keys.of("shop", job);
      assertThat(a.predictor().peek(key)).isEqualTo(b.predictor().peek(key));
    }
    assertThat(a.predictor().boundaries()).isEqualTo(b.predictor().boundaries());
    assertThat(a.predictor().peek(Keys.of("shop", "fast")).level()).isZero();
    assertThat(a.predictor().peek(Keys.of("shop", "slow")).level()).isEqualTo(2);
  }

  @EachBroker
  void reportsPublishedWhileTheSidecarIsDown_areLearnedWhenItComesBack() throws Exception {
    Sidecar first = start("replica-r");
    publish(SidecarTestSupport.threeTypes(10));
    ProgressWait.on("reports accepted", () -> accepted(first)).untilAtLeast(30);
    assertThat(accepted(first)).isEqualTo(30);
    first.close();
    sidecars.remove(first);
    publish(SidecarTestSupport.threeTypes(30)); // nobody consumes: the durable queue keeps them
    Sidecar second = start("replica-r");
    assertThat(second.snapshots().restoreStatus()).isEqualTo("restored");
    ProgressWait.on("observations of the restored sidecar", () -> observations(second))
        .until(
            "3 keys with 120 observations in all",
            () -> second.predictor().stats().keys() == 3 && observations(second) == 120);
  }

  @EachBroker
  void garbageOnTheReportsExchange_isCountedAndIgnored() throws Exception {
    Sidecar s = start("replica-g");
    ReportBatch absurd =
        ReportBatch.newBuilder()
            .addReports(SidecarTestSupport.ack("shop", "absurd", Long.MAX_VALUE))
            .addReports(SidecarTestSupport.ack("x".repeat(400), "oversized", 5_000_000))
            .addReports(SidecarTestSupport.ack("shop", "fine", 5_000_000))
            .build();
    publish(
        new byte[] {(byte) 0xff, 0x01, 0x02},
        "not protobuf at all".getBytes(),
        absurd.toByteArray());
    ProgressWait.on("report messages read", () -> SidecarTestSupport.messagesRead(s))
        .until("the one acceptable report learned", () -> SidecarTestSupport.learned(s) == 1);
    var stats = s.reports().stats();
    assertThat(stats.malformedBatches()).isEqualTo(2);
    assertThat(stats.rejectedDurations()).isEqualTo(1);
    assertThat(stats.rejectedKeys()).isEqualTo(1);
    assertThat(s.predictor().keyStats())
        .extracting(KeyStats::key)
        .containsExactly(Keys.of("shop", "fine"));
  }
}
