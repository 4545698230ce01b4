package io.harbinger.benchmarks;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import io.grpc.ManagedChannel;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.grpc.stub.StreamObserver;
import io.harbinger.predictor.Keys;
import io.harbinger.proto.v1.DurationReport;
import io.harbinger.proto.v1.Outcome;
import io.harbinger.proto.v1.ReportBatch;
import io.harbinger.proto.v1.RouteEntry;
import io.harbinger.proto.v1.RouteUpdate;
import io.harbinger.proto.v1.SidecarGrpc;
import io.harbinger.proto.v1.Verdict;
import io.harbinger.proto.v1.WatchRoutesRequest;
import io.harbinger.sidecar.ConfigLoader;
import io.harbinger.sidecar.Sidecar;
import io.harbinger.sidecar.SidecarConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Measures the sidecar's report ingestion rate from RabbitMQ and its route-change propagation
 * latency.
 *
 * <p>Ingestion: publishes {@code batches} batches of 256 reports (over 64 keys, each stamped with a
 * publish level as the adapter's reports are, so the drift scoring runs too) into the sidecar's own
 * durable queue while it is not consuming, then starts the sidecar and times from its start until
 * every report is learned: reports per second from RabbitMQ into the predictor, decoding and
 * validation included. Propagation: 50 times, publishes 20 reports of a new key to the reports
 * exchange and times until a {@code WatchRoutes} stream receives the key as predicted: the whole
 * path from a consumer's report to a producer's table.
 *
 * <p>Run: {@code ./mvnw -q -pl experiments/benchmarks -am package -DskipTests && java -cp
 * experiments/benchmarks/target/benchmarks.jar io.harbinger.benchmarks.IngestionBenchmark
 * [batches]}. Needs RabbitMQ (RABBITMQ_URI, loopback by default).
 */
public final class IngestionBenchmark {

  private IngestionBenchmark() {}

  /**
   * Runs both measurements and prints them.
   *
   * @param args optional batch count (default 800, that is 204,800 reports)
   * @throws Exception if RabbitMQ is unreachable or a measurement times out
   */
  public static void main(String[] args) throws Exception {
    int batches = args.length > 0 ? Integer.parseInt(args[0]) : 800;
    ConnectionFactory factory = new ConnectionFactory();
    factory.setUri(
        System.getenv().getOrDefault("RABBITMQ_URI", "amqp://guest:guest@127.0.0.1:5672/%2F"));
    String run = Long.toString(System.nanoTime(), 36);
    String exchange = "harbinger.bench." + run;
    Path dir = Files.createTempDirectory("harbinger-bench");
    Properties p = new Properties();
    p.setProperty("harbinger.replica-id", "bench-" + run);
    p.setProperty(
        "harbinger.rabbitmq.uri", "amqp://" + factory.getHost() + ":" + factory.getPort() + "/%2F");
    p.setProperty("harbinger.rabbitmq.username", factory.getUsername());
    p.setProperty("harbinger.rabbitmq.reports-exchange", exchange);
    p.setProperty("harbinger.grpc.port", "0");
    p.setProperty("harbinger.metrics.port", "-1");
    p.setProperty("harbinger.snapshot.path", dir.resolve("bench.snap").toString());
    SidecarConfig config =
        new ConfigLoader(Map.of("HARBINGER_RABBITMQ_PASSWORD", factory.getPassword()), p)
            .load(Optional.empty());

    // Published as the sidecar's own user, the reporter it trusts by default.
    AMQP.BasicProperties asReporter =
        new AMQP.BasicProperties.Builder().userId(factory.getUsername()).build();
    try (Connection connection = factory.newConnection("harbinger-bench");
        Channel channel = connection.createChannel()) {
      channel.exchangeDeclare(exchange, "fanout", true);
      channel.queueDeclare(config.reportQueue(), true, false, false, config.reportQueueArguments());
      channel.queueBind(config.reportQueue(), exchange, "");
      SplittableRandom random = new SplittableRandom(7);
      for (int b = 0; b < batches; b++) {
        ReportBatch.Builder batch = ReportBatch.newBuilder().setReporterId("bench").setSequence(b);
        for (int i = 0; i < 256; i++) {
          int key = random.nextInt(64);
          batch.addReports(
              report("job" + key, (long) (1e6 * (1 + key) * (0.9 + 0.2 * random.nextDouble()))));
        }
        channel.basicPublish(exchange, "", asReporter, batch.build().toByteArray());
      }
      long expected = 256L * batches;
      String name = InProcessServerBuilder.generateName();
      try (Sidecar sidecar = Sidecar.start(config, InProcessServerBuilder.forName(name), true)) {
        long start = System.nanoTime();
        long before = sidecar.reportsLearned();
        while (sidecar.reportsLearned() < expected) {
          if (System.nanoTime() - start > 120e9) {
            throw new IllegalStateException("ingestion timed out at " + sidecar.reportsLearned());
          }
          Thread.sleep(5);
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        System.out.printf(
            "ingestion: %d reports in %d batches; %d timed in %.2f s = %.0f reports/s%n",
            expected, batches, expected - before, seconds, (expected - before) / seconds);
        propagation(config, name, channel, exchange);
      }
      channel.queueDelete(config.reportQueue());
      channel.exchangeDelete(exchange);
    }
  }

  private static void propagation(
      SidecarConfig config, String name, Channel channel, String exchange) throws Exception {
    AMQP.BasicProperties asReporter =
        new AMQP.BasicProperties.Builder().userId(config.rabbit().username()).build();
    ManagedChannel grpc = InProcessChannelBuilder.forName(name).build();
    Map<String, Long> seen = new ConcurrentHashMap<>();
    SidecarGrpc.newStub(grpc)
        .watchRoutes(
            WatchRoutesRequest.newBuilder().setClientId("bench").build(),
            new StreamObserver<>() {
              @Override
              public void onNext(RouteUpdate u) {
                long now = System.nanoTime();
                for (RouteEntry e : u.getEntriesList()) {
                  if (e.getVerdict() == Verdict.VERDICT_PREDICTED) {
                    seen.putIfAbsent(e.getKey(), now);
                  }
                }
              }

              @Override
              public void onError(Throwable t) {}

              @Override
              public void onCompleted() {}
            });
    int rounds = 50;
    double[] millis = new double[rounds];
    SplittableRandom random = new SplittableRandom(3);
    for (int r = 0; r < rounds; r++) {
      Thread.sleep(
          random.nextInt(60)); // so that rounds do not fall into step with the publish interval
      String job = "fresh" + r;
      ReportBatch.Builder batch = ReportBatch.newBuilder().setReporterId("bench");
      for (int i = 0; i < 20; i++) {
        batch.addReports(report(job, 3_000_000));
      }
      String key = Keys.of("bench", job);
      long sent = System.nanoTime();
      channel.basicPublish(exchange, "", asReporter, batch.build().toByteArray());
      while (!seen.containsKey(key)) {
        if (System.nanoTime() - sent > 10e9) {
          throw new IllegalStateException("route change never arrived for " + key);
        }
        Thread.sleep(1);
      }
      millis[r] = (seen.get(key) - sent) / 1e6;
    }
    grpc.shutdownNow();
    Arrays.sort(millis);
    System.out.printf(
        "route-change propagation (report published -> WatchRoutes update), %d rounds: p50 %.1f ms, p90 %.1f ms,"
            + " max %.1f ms (publish interval %d ms)%n",
        rounds,
        millis[rounds / 2],
        millis[(int) Math.ceil(rounds * 0.9) - 1],
        millis[rounds - 1],
        config.publishInterval().toMillis());
  }

  private static DurationReport report(String job, long nanos) {
    return DurationReport.newBuilder()
        .setProducer("bench")
        .setJobType(job)
        .setOutcome(Outcome.OUTCOME_ACK)
        .setHandlerNanos(nanos)
        .setPublishedLevel(-1)
        .setWaitMicros(-1)
        .setPublishedAtMicros(System.currentTimeMillis() * 1000)
        .build();
  }
}
