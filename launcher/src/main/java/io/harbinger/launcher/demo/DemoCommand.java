package io.harbinger.launcher.demo;

import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.harbinger.predictor.KeyStats;
import io.harbinger.predictor.Keys;
import io.harbinger.predictor.Mode;
import io.harbinger.proto.v1.RoutingMode;
import io.harbinger.proto.v1.SetModeRequest;
import io.harbinger.proto.v1.SidecarGrpc;
import io.harbinger.rabbit.ReportPublisher;
import io.harbinger.sidecar.ConfigLoader;
import io.harbinger.sidecar.Sidecar;
import io.harbinger.sidecar.SidecarConfig;
import io.harbinger.sidecar.client.SidecarRouter;
import java.io.PrintStream;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code harbinger demo}: the same mixed workload through RabbitMQ twice, first in FIFO order while
 * Harbinger learns in shadow mode, then with Harbinger's priorities, and a table and an HTML chart
 * of the difference.
 *
 * <p>Everything is real: a sidecar (gRPC on a free loopback port) consumes the duration reports
 * from RabbitMQ, the producer publishes through a wrapped channel whose {@link SidecarRouter}
 * follows the sidecar's route table, and four wrapped consumers with prefetch 1 sleep for each
 * job's cost and report it. Exit codes: 0 done, 1 RabbitMQ unreachable or a job lost, 2 bad
 * options.
 */
@Command(
    name = "demo",
    mixinStandardHelpOptions = true,
    description = "A 1-2 minute demonstration on the local RabbitMQ: FIFO, then Harbinger.")
public final class DemoCommand implements Callable<Integer> {

  @Option(
      names = "--uri",
      paramLabel = "AMQP_URI",
      description = "RabbitMQ (default: $RABBITMQ_URI or amqp://guest:guest@127.0.0.1:5672/%%2F).")
  String uri;

  @Option(
      names = "--time-scale",
      paramLabel = "X",
      defaultValue = "1.0",
      description =
          "Scales arrivals and job costs alike (0.2 runs five times faster); default ${DEFAULT-VALUE}.")
  double timeScale;

  @Option(
      names = "--seed",
      defaultValue = "2026",
      description = "Arrival seed; default ${DEFAULT-VALUE}.")
  long seed;

  @Option(
      names = "--output",
      paramLabel = "FILE",
      defaultValue = "harbinger-demo.html",
      description = "Where the HTML page goes; default ${DEFAULT-VALUE}.")
  Path output;

  private final PrintStream out;

  /** Creates the command printing to standard output. */
  public DemoCommand() {
    this(System.out);
  }

  DemoCommand(PrintStream out) {
    this.out = out;
  }

  @Override
  public Integer call() throws Exception {
    if (!(timeScale >= 0.05 && timeScale <= 10)) {
      throw new CommandLine.ParameterException(
          new CommandLine(this), "--time-scale must be in [0.05, 10]: " + timeScale);
    }
    String target =
        uri != null
            ? uri
            : System.getenv().getOrDefault("RABBITMQ_URI", "amqp://guest:guest@127.0.0.1:5672/%2F");
    ConnectionFactory factory = new ConnectionFactory();
    try {
      factory.setUri(target);
    } catch (Exception e) {
      throw new CommandLine.ParameterException(
          new CommandLine(this), "--uri is not an AMQP URI: " + e.getMessage());
    }
    String run = Long.toString(ProcessHandle.current().pid());
    ExecutorService workers = Executors.newFixedThreadPool(DemoWorkload.WORKERS);
    Connection producerConnection;
    Connection consumerConnection;
    try {
      producerConnection = factory.newConnection("harbinger-demo-producer");
      consumerConnection = factory.newConnection(workers, "harbinger-demo-consumers");
    } catch (Exception e) {
      workers.shutdownNow();
      out.printf(
          "RabbitMQ is not reachable at %s:%d (%s).%n"
              + "Start it, for example with `rabbitmq-server -detached` (Debian/Ubuntu: `sudo systemctl start"
              + " rabbitmq-server`; with Docker: `docker run -d -p 5672:5672 rabbitmq:3`), or point --uri or"
              + " RABBITMQ_URI at your broker.%n",
          factory.getHost(),
          factory.getPort(),
          e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage());
      return 1;
    }
    SidecarConfig config = sidecarConfig(factory, run);
    List<DemoReport.Summary> summaries = new ArrayList<>();
    int lost = 0;
    try (Sidecar sidecar = Sidecar.start(config)) {
      ManagedChannel grpc =
          ManagedChannelBuilder.forAddress("127.0.0.1", sidecar.grpcPort()).usePlaintext().build();
      try (SidecarRouter router = SidecarRouter.watch(grpc, 3, Duration.ofSeconds(30), null);
          ReportPublisher reports = ReportPublisher.start(factory)) {
        var admin = SidecarGrpc.newBlockingStub(grpc);
        List<DemoWorkload.Job> jobs = DemoWorkload.plan(seed, timeScale);
        out.printf(
            "Harbinger demo: %d jobs per run (%s), 4 workers, prefetch 1, a burst at 135%% of capacity.%n",
            jobs.size(), describeTypes());
        out.println(
            "Run 1: RabbitMQ FIFO. Harbinger only watches (shadow mode) and learns from the acks.");
        DemoRun.Result fifo =
            DemoRun.run(
                "RabbitMQ FIFO",
                "harbinger.demo." + run + ".fifo",
                producerConnection,
                consumerConnection,
                factory.getUsername(),
                router,
                reports,
                jobs,
                timeScale,
                this::progress);
        out.println();
        out.println("After run 1, " + sidecar.learning().describe());
        admin.setMode(
            SetModeRequest.newBuilder().setMode(RoutingMode.ROUTING_MODE_PREDICTIVE).build());
        awaitPredictive(router, factory.getUsername());
        printLearned(sidecar, factory.getUsername(), timeScale);
        out.println("Now " + sidecar.learning().describe());
        out.println("Run 2: the same arrivals, published at the priorities Harbinger learned.");
        DemoRun.Result harbinger =
            DemoRun.run(
                "RabbitMQ + Harbinger",
                "harbinger.demo." + run + ".harbinger",
                producerConnection,
                consumerConnection,
                factory.getUsername(),
                router,
                reports,
                jobs,
                timeScale,
                this::progress);
        out.println();
        summaries.add(DemoReport.summarise(fifo));
        summaries.add(DemoReport.summarise(harbinger));
        lost = fifo.lost() + harbinger.lost();
      } finally {
        grpc.shutdownNow();
      }
    } finally {
      // The report queue goes once the sidecar has stopped consuming it: deleted under a live
      // consumer, RabbitMQ would cancel that consumer, and the sidecar would say so in a warning.
      try (var ch = producerConnection.createChannel()) {
        ch.queueDelete(config.reportQueue());
      }
      producerConnection.close();
      consumerConnection.close();
      workers.shutdownNow();
    }
    out.println();
    out.print(DemoReport.table(summaries));
    String context =
        String.format(
            Locale.ROOT,
            "%d jobs per run, four job types (%s), four workers with prefetch 1, arrivals at 70%% of capacity, a"
                + " burst at 135%% and a recovery at 60%%; time scale %.2f, seed %d. Latency = publish to end of"
                + " handler. Short jobs: %s.",
            summaries.get(0).jobs(),
            describeTypes(),
            timeScale,
            seed,
            String.join(", ", DemoWorkload.SHORT));
    DemoReport.writeHtml(output, summaries, context);
    out.println("Chart: " + output.toAbsolutePath());
    if (lost > 0) {
      out.println("LOST " + lost + " JOBS: they were published but never completed.");
      return 1;
    }
    return 0;
  }

  private void progress(String line) {
    out.print("\r" + line);
    out.flush();
  }

  private void awaitPredictive(SidecarRouter router, String user) throws InterruptedException {
    String fast = Keys.of(user, DemoWorkload.TYPES.get(0).name());
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (System.nanoTime() < deadline
        && !(router.route(fast).mode() == Mode.PREDICTIVE && router.route(fast).isPredicted())) {
      Thread.sleep(50);
    }
  }

  private void printLearned(Sidecar sidecar, String user, double scale) {
    out.println("What Harbinger learned (level 0 is served first):");
    for (DemoWorkload.JobType type : DemoWorkload.TYPES) {
      Optional<KeyStats> stats = sidecarStats(sidecar, Keys.of(user, type.name()));
      stats.ifPresentOrElse(
          s ->
              out.printf(
                  Locale.ROOT,
                  "  %-18s handler %6.1f ms   learned median %7.1f ms over %4d reports   level %d (%s)%n",
                  type.name(),
                  type.handlerMillis() * scale,
                  s.medianNanos() / 1e6,
                  s.observations(),
                  s.level(),
                  s.verdict().name().toLowerCase(Locale.ROOT)),
          () -> out.printf("  %-18s not learned%n", type.name()));
    }
  }

  private static Optional<KeyStats> sidecarStats(Sidecar sidecar, String key) {
    return sidecar.keyStats(key);
  }

  private static String describeTypes() {
    List<String> parts = new ArrayList<>();
    for (DemoWorkload.JobType t : DemoWorkload.TYPES) {
      parts.add(
          String.format(
              Locale.ROOT, "%s %d ms %.0f%%", t.name(), t.handlerMillis(), 100 * t.share()));
    }
    return String.join(", ", parts);
  }

  private static SidecarConfig sidecarConfig(ConnectionFactory factory, String run)
      throws Exception {
    Properties p = new Properties();
    p.setProperty("harbinger.replica-id", "demo-" + run);
    p.setProperty("harbinger.grpc.port", "0");
    p.setProperty("harbinger.metrics.port", "-1");
    p.setProperty("harbinger.snapshot.path", "");
    p.setProperty("harbinger.mode", "shadow");
    p.setProperty("harbinger.routes.publish-interval", "20ms");
    p.setProperty(
        "harbinger.rabbitmq.uri",
        (factory.isSSL() ? "amqps://" : "amqp://")
            + factory.getHost()
            + ":"
            + factory.getPort()
            + "/"
            + URLEncoder.encode(factory.getVirtualHost(), StandardCharsets.UTF_8));
    p.setProperty("harbinger.rabbitmq.username", factory.getUsername());
    return new ConfigLoader(Map.of("HARBINGER_RABBITMQ_PASSWORD", factory.getPassword()), p)
        .load(Optional.empty());
  }

  /**
   * Runs the demonstration.
   *
   * @param args the command line
   */
  public static void main(String[] args) {
    System.exit(new CommandLine(new DemoCommand()).execute(args));
  }
}
