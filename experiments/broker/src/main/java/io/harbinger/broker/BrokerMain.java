package io.harbinger.broker;

import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.harbinger.predictor.HistogramPredictor;
import io.harbinger.predictor.Mode;
import io.harbinger.predictor.PredictorConfig;
import io.harbinger.predictor.Ticker;
import io.harbinger.scheduler.AgingMode;
import io.harbinger.scheduler.SchedulerConfig;
import io.harbinger.scheduler.Selection;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code harbinger broker}: runs Harbinger's own gRPC broker (the comparison arm) until terminated.
 *
 * <p>Example: {@code harbinger broker --policy predictive --selection weighted} (or {@code --arm
 * broker-weighted}, the benchmark's arm of that name) serves on port 50061 with three levels,
 * weights 8, 3, 1 and pausing aging. Bad flags print one message and exit with code 2.
 */
@Command(
    name = "broker",
    mixinStandardHelpOptions = true,
    description = "Runs Harbinger's gRPC broker, the comparison arm of the seed paper's design.")
public final class BrokerMain implements Callable<Integer> {

  private static final Logger LOG = LoggerFactory.getLogger(BrokerMain.class);

  @Spec CommandSpec spec;

  @Option(names = "--port", description = "gRPC port (default: ${DEFAULT-VALUE}).")
  int port = 50061;

  @Option(names = "--bind", description = "Address to listen on (default: ${DEFAULT-VALUE}).")
  String bind = "127.0.0.1";

  @Option(names = "--levels", description = "Priority levels, 2 to 10 (default: ${DEFAULT-VALUE}).")
  int levels = 3;

  @Option(
      names = "--policy",
      description =
          "Ingress arm: fifo, static-tuned, predictive, oracle" + " (default: ${DEFAULT-VALUE}).")
  String policy = "fifo";

  @Option(
      names = "--arm",
      description =
          "A broker arm of the registry, which sets --policy, --selection and --aging: "
              + "${COMPLETION-CANDIDATES}.",
      completionCandidates = BrokerArmNames.class)
  String arm;

  @Option(names = "--selection", description = "strict or weighted (default: ${DEFAULT-VALUE}).")
  String selection = "strict";

  @Option(
      names = "--aging",
      description =
          "none, plain, pausing or following (default: pausing with weighted selection, else plain).")
  String aging;

  @Option(
      names = "--weights",
      split = ",",
      description = "Level weights for weighted selection, one per level (default: 8,3,1).")
  List<Integer> weights = SchedulerConfig.DEFAULT_WEIGHTS;

  @Option(
      names = "--aging-threshold",
      description = "Wait before a promotion, e.g. 5s or 5000ms (default: ${DEFAULT-VALUE}).")
  String agingThreshold = "5s";

  @Option(
      names = "--aging-interval",
      description = "Time between aging passes (default: ${DEFAULT-VALUE}).")
  String agingInterval = "500ms";

  @Option(names = "--lease", description = "Delivery lease (default: ${DEFAULT-VALUE}).")
  String lease = "30s";

  @Option(
      names = "--max-retries",
      description =
          "Failed deliveries before dead-lettering, 1 to 100 (default: ${DEFAULT-VALUE}).")
  int maxRetries = 3;

  @Option(
      names = "--max-pull-wait",
      description = "Longest wait of one Pull (default: ${DEFAULT-VALUE}).")
  String maxPullWait = "5s";

  @Option(
      names = "--default-ttl",
      description = "TTL of messages sent without one; 0 for none (default: ${DEFAULT-VALUE}).")
  String defaultTtl = "0";

  @Option(
      names = "--job-type-header",
      description = "Header naming the job type (default: ${DEFAULT-VALUE}).")
  String jobTypeHeader = "x-job-type";

  /** The broker arms' names, for the help text. */
  static final class BrokerArmNames implements Iterable<String> {
    @Override
    public java.util.Iterator<String> iterator() {
      return Arms.on(EnumSet.of(RunsOn.BROKER)).stream().map(ArmDefinition::name).iterator();
    }
  }

  /**
   * Runs the command line.
   *
   * @param args the arguments
   */
  public static void main(String[] args) {
    System.exit(new CommandLine(new BrokerMain()).execute(args));
  }

  /**
   * Builds the broker settings from the flags.
   *
   * @return the settings
   * @throws IllegalArgumentException naming the bad flag
   */
  BrokerConfig toConfig() {
    Policy ingress;
    Selection sel;
    AgingMode agingMode;
    if (arm != null) {
      for (String flag : List.of("--policy", "--selection", "--aging")) {
        if (spec != null && spec.commandLine().getParseResult().hasMatchedOption(flag)) {
          throw new IllegalArgumentException("--arm sets " + flag + "; give one or the other");
        }
      }
      ArmDefinition definition = Arms.byName(arm, EnumSet.of(RunsOn.BROKER));
      ingress = definition.policy();
      sel = definition.selection();
      agingMode = definition.aging();
    } else {
      ingress = Policy.fromLabel(policy);
      sel = Selection.fromLabel(selection);
      agingMode =
          aging == null
              ? (sel == Selection.WEIGHTED ? AgingMode.PAUSING : AgingMode.PLAIN)
              : AgingMode.fromLabel(aging);
    }
    List<Integer> levelWeights =
        weights == SchedulerConfig.DEFAULT_WEIGHTS && levels != 3 && sel == Selection.WEIGHTED
            ? null
            : weights;
    if (levelWeights == null) {
      throw new IllegalArgumentException(
          "--weights must be given for weighted selection with --levels " + levels);
    }
    SchedulerConfig scheduler =
        new SchedulerConfig(
            levels,
            sel,
            agingMode,
            levelWeights,
            duration("--aging-threshold", agingThreshold),
            duration("--aging-interval", agingInterval));
    BrokerConfig defaults = BrokerConfig.defaults();
    return new BrokerConfig(
        scheduler,
        ingress,
        duration("--lease", lease),
        maxRetries,
        duration("--max-pull-wait", maxPullWait),
        duration("--default-ttl", defaultTtl),
        defaults.completionRetention(),
        defaults.completionCacheSize(),
        defaults.dlqCapacity(),
        defaults.maxPayloadBytes(),
        defaults.maxClients(),
        jobTypeHeader);
  }

  /**
   * Parses a duration: a number with ms, s or m, a bare 0, or ISO-8601 (PT5S).
   *
   * @param flag the flag, for the message
   * @param text the value
   * @return the duration
   * @throws IllegalArgumentException naming the flag and the value
   */
  static Duration duration(String flag, String text) {
    String t = text.trim().toLowerCase(Locale.ROOT);
    try {
      if (t.equals("0")) {
        return Duration.ZERO;
      }
      if (t.endsWith("ms")) {
        return Duration.ofMillis(Long.parseLong(t.substring(0, t.length() - 2)));
      }
      if (t.endsWith("s")) {
        return Duration.ofMillis(
            Math.round(Double.parseDouble(t.substring(0, t.length() - 1)) * 1e3));
      }
      if (t.endsWith("m")) {
        return Duration.ofSeconds(
            Math.round(Double.parseDouble(t.substring(0, t.length() - 1)) * 60));
      }
      return Duration.parse(text.trim());
    } catch (NumberFormatException | DateTimeParseException e) {
      throw new IllegalArgumentException(
          flag + " must be a duration such as 500ms, 5s or 2m: " + text);
    }
  }

  @Override
  public Integer call() throws Exception {
    BrokerConfig config;
    MessageBroker broker;
    try {
      config = toConfig();
      HistogramPredictor predictor =
          config.policy().needsPredictor()
              ? new HistogramPredictor(
                  PredictorConfig.builder().levels(config.scheduler().levels()).build(),
                  Ticker.SYSTEM,
                  Mode.PREDICTIVE)
              : null;
      broker = new MessageBroker(config, predictor, Ticker.SYSTEM);
    } catch (IllegalArgumentException e) {
      PrintWriter err = spec.commandLine().getErr();
      err.println("harbinger broker: " + e.getMessage());
      err.flush();
      return CommandLine.ExitCode.USAGE;
    }
    BrokerServer server;
    try {
      server =
          new BrokerServer(
                  NettyServerBuilder.forAddress(new InetSocketAddress(bind, port)).directExecutor(),
                  broker)
              .start();
    } catch (IOException e) {
      PrintWriter err = spec.commandLine().getErr();
      err.println(
          "harbinger broker: cannot listen on " + bind + ":" + port + ": " + e.getMessage());
      err.flush();
      return CommandLine.ExitCode.SOFTWARE;
    }
    LOG.info(
        "harbinger broker listening on {}:{} (policy {}, {} levels, {} selection, {} aging, lease {})",
        bind,
        server.port(),
        config.policy().label(),
        config.scheduler().levels(),
        config.scheduler().selection().label(),
        config.scheduler().aging().label(),
        config.lease());
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  try {
                    server.close();
                  } finally {
                    stopped.countDown();
                  }
                },
                "harbinger-broker-shutdown"));
    server.awaitTermination();
    stopped.await();
    return CommandLine.ExitCode.OK;
  }
}
