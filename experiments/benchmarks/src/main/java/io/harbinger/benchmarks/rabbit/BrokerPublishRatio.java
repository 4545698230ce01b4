package io.harbinger.benchmarks.rabbit;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import io.harbinger.predictor.HistogramPredictor;
import io.harbinger.rabbit.ChannelOptions;
import io.harbinger.rabbit.HarbingerHeaders;
import io.harbinger.rabbit.PredictiveChannels;
import io.harbinger.rabbit.Stamp;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

/**
 * Publish throughput to the real broker: the raw channel against the wrapped one, in all eight
 * configurations and every arm interleaved in rounds of one run, so that every arm of every
 * configuration sees the same broker and machine load.
 *
 * <p>A configuration is a target ({@code queue}: a classic priority queue capped at 10,000
 * messages, oldest dropped; {@code unroutable}: a routing key no queue has, so the broker parses
 * and drops each message), a body size (256 B or 4 KiB) and publisher confirms (none, or a wait
 * every 100 publishes as a publisher that must not lose messages does): 2 x 2 x 2 = 8. In each,
 * five arms publish the same body on channels of one connection: {@code raw} with the application's
 * properties (content type and an {@code x-job-type} header); {@code identity}, the same plus
 * {@code user-id} and a priority, which the wrapper sets on every message it stamps, so the
 * baseline the target is stated against; {@code three-headers}, identity plus the first version's
 * {@code x-harbinger-published-at}, {@code -level} and {@code -mode}; {@code stamped}, identity
 * plus the one {@code x-harbinger} header, exactly what the wrapper sends, prebuilt; and {@code
 * wrapped}, through {@link PredictiveChannels#wrap}. So {@code stamped / identity} is the cost of
 * the stamp header on the wire, {@code wrapped / stamped} the wrapper's own work, and {@code
 * wrapped / raw} what a user sees. Each round visits the configurations and, within each, the arms
 * in an order that rotates every round.
 *
 * <p>For each configuration and arm it prints the median throughput, the client thread's CPU time
 * per publish and, when the broker's process is known, its CPU time per publish (from {@code
 * /proc/PID/stat}, summed over the arm's rounds); for each ratio, the median of the per-round
 * ratios with a 95% bootstrap interval (2,000 resamples of the rounds, seed 2026); and whether the
 * target holds: {@code wrapped / raw} at least 0.97 wherever {@code identity / raw} reaches 0.97.
 *
 * <p>Run with {@code java -cp experiments/benchmarks/target/benchmarks.jar
 * io.harbinger.benchmarks.rabbit.BrokerPublishRatio [--only CONFIG,...] [--rounds N] [--per-round
 * N] [--warmup N] [--broker-pid PID]}, a configuration named {@code target/body/confirm-every} such
 * as {@code queue/4096/100}. The broker is found from {@code RABBITMQ_URI} (default the loopback
 * guest account); its CPU is read from the one local {@code beam.smp} process, or from {@code
 * --broker-pid} where several run.
 */
public final class BrokerPublishRatio {

  static final List<String> ARMS =
      List.of("raw", "identity", "three-headers", "stamped", "wrapped");
  private static final int RAW = 0;
  private static final int IDENTITY = 1;
  private static final int THREE = 2;
  private static final int STAMPED = 3;
  private static final int WRAPPED = 4;
  private static final double TARGET = 0.97;

  /** The eight configurations measured by default, in the order printed. */
  static final List<Config> ALL =
      List.of(
          new Config("unroutable", 256, 0),
          new Config("unroutable", 256, 100),
          new Config("unroutable", 4096, 0),
          new Config("unroutable", 4096, 100),
          new Config("queue", 256, 0),
          new Config("queue", 256, 100),
          new Config("queue", 4096, 0),
          new Config("queue", 4096, 100));

  private final Options options;
  private final List<Config> configs;
  private final Channel[][] channels;
  private final AMQP.BasicProperties[] properties = new AMQP.BasicProperties[ARMS.size()];
  private BrokerFixture fixture;

  private BrokerPublishRatio(Options options) {
    this.options = options;
    this.configs = options.configs;
    this.channels = new Channel[configs.size()][ARMS.size()];
  }

  /**
   * Runs the measurement.
   *
   * @param args see the class notes
   * @throws Exception if the broker is unreachable or a publish fails
   */
  public static void main(String[] args) throws Exception {
    Options options;
    try {
      options = Options.parse(args);
    } catch (IllegalArgumentException e) {
      System.err.println("BrokerPublishRatio: " + e.getMessage());
      System.err.println(
          "usage: BrokerPublishRatio [--only CONFIG,...] [--rounds N] [--per-round N]"
              + " [--warmup N] [--broker-pid PID]   (CONFIG: queue|unroutable/BYTES/CONFIRM-EVERY)");
      System.exit(2);
      return;
    }
    BrokerPublishRatio run = new BrokerPublishRatio(options);
    run.setUp();
    try {
      run.measure();
    } finally {
      run.tearDown();
    }
  }

  private void setUp() throws Exception {
    fixture = BrokerFixture.open("harbinger.bench.ratio");
    Connection connection = fixture.connection;
    String user = fixture.user;
    HistogramPredictor predictor = fixture.trainedPredictor();
    for (int c = 0; c < configs.size(); c++) {
      for (int arm = 0; arm < ARMS.size(); arm++) {
        Channel ch = connection.createChannel();
        if (configs.get(c).confirmEvery > 0) {
          ch.confirmSelect();
        }
        channels[c][arm] =
            arm == WRAPPED
                ? PredictiveChannels.wrap(
                    ch, ChannelOptions.builder(user).router(predictor).build())
                : ch;
      }
    }
    AMQP.BasicProperties app =
        new AMQP.BasicProperties.Builder()
            .contentType("application/json")
            .headers(Map.of("x-job-type", "reserve"))
            .build();
    // The trained predictor puts "reserve" at level 0: priority 2 of a 3-level queue.
    long publishedAt = 1_796_126_400_000_001L;
    Map<String, Object> three = new HashMap<>();
    three.put("x-job-type", "reserve");
    three.put(HarbingerHeaders.PUBLISHED_AT, publishedAt);
    three.put(HarbingerHeaders.LEVEL, 0);
    three.put(HarbingerHeaders.MODE, "predictive");
    Map<String, Object> one = new HashMap<>();
    one.put("x-job-type", "reserve");
    one.put(HarbingerHeaders.STAMP, Stamp.headerValue(publishedAt, 0, "predictive"));
    AMQP.BasicProperties identity = app.builder().priority(2).userId(user).build();
    properties[RAW] = app;
    properties[IDENTITY] = identity;
    properties[THREE] = identity.builder().headers(three).build();
    properties[STAMPED] = identity.builder().headers(one).build();
    properties[WRAPPED] = app;
  }

  private void tearDown() throws Exception {
    fixture.close();
  }

  private void measure() throws Exception {
    Optional<Path> broker = BrokerCpu.find(options.brokerPid);
    int arms = ARMS.size();
    System.out.printf(
        "%d configurations x %d arms interleaved, %d rounds of %d publishes each; broker CPU %s%n",
        configs.size(),
        arms,
        options.rounds,
        options.perRound,
        broker
            .map(p -> "from " + p)
            .orElse("not measured (give --broker-pid, or run one local beam.smp)"));
    ThreadMXBean mx = ManagementFactory.getThreadMXBean();
    for (int warm = 0; warm < options.warmup; warm++) {
      for (int c = 0; c < configs.size(); c++) {
        for (int arm = 0; arm < arms; arm++) {
          round(c, arm, mx, broker);
        }
      }
    }
    double[][][] rate = new double[configs.size()][arms][options.rounds];
    double[][] clientCpu = new double[configs.size()][arms];
    double[][] brokerCpu = new double[configs.size()][arms];
    long started = System.nanoTime();
    for (int r = 0; r < options.rounds; r++) {
      for (int j = 0; j < configs.size(); j++) {
        int c = (r + j) % configs.size();
        for (int k = 0; k < arms; k++) {
          int arm = (r + k) % arms;
          Round result = round(c, arm, mx, broker);
          rate[c][arm][r] = result.rate;
          clientCpu[c][arm] += result.clientCpuNanos;
          brokerCpu[c][arm] += result.brokerCpuNanos;
        }
      }
      System.err.printf(
          "  %d/%d rounds, %.0f s%n", r + 1, options.rounds, (System.nanoTime() - started) / 1e9);
    }
    long total = (long) options.rounds * options.perRound;
    List<String> summary = new ArrayList<>();
    for (int c = 0; c < configs.size(); c++) {
      Config config = configs.get(c);
      System.out.println("=== " + config.name() + " (" + config.describe() + ")");
      System.out.println(
          "arm             publishes/s  client CPU us/publish  broker CPU us/publish");
      for (int arm = 0; arm < arms; arm++) {
        System.out.printf(
            "%-15s %11.0f  %21.2f  %21s%n",
            ARMS.get(arm),
            median(rate[c][arm]),
            clientCpu[c][arm] / total / 1e3,
            broker.isPresent() ? String.format("%.2f", brokerCpu[c][arm] / total / 1e3) : "-");
      }
      double[] identity = ratios(rate[c][IDENTITY], rate[c][RAW]);
      double[] wrapped = ratios(rate[c][WRAPPED], rate[c][RAW]);
      printRatio("identity / raw", identity);
      printRatio("three-headers / raw", ratios(rate[c][THREE], rate[c][RAW]));
      printRatio("stamped / raw", ratios(rate[c][STAMPED], rate[c][RAW]));
      printRatio("stamped / identity", ratios(rate[c][STAMPED], rate[c][IDENTITY]));
      printRatio("wrapped / stamped", ratios(rate[c][WRAPPED], rate[c][STAMPED]));
      printRatio("wrapped / identity", ratios(rate[c][WRAPPED], rate[c][IDENTITY]));
      printRatio("wrapped / raw", wrapped);
      String verdict = verdict(median(identity), median(wrapped));
      System.out.println("target: " + verdict);
      summary.add(
          String.format(
              "%-19s wrapped/raw %.3f  identity/raw %.3f  %s",
              config.name(), median(wrapped), median(identity), verdict));
    }
    System.out.println("=== summary (target: wrapped / raw >= 0.97 where identity / raw >= 0.97)");
    summary.forEach(System.out::println);
  }

  /** Returns whether the target holds for one configuration's median ratios. */
  static String verdict(double identityOverRaw, double wrappedOverRaw) {
    if (identityOverRaw < TARGET) {
      return String.format("not applicable (identity / raw %.3f < 0.97)", identityOverRaw);
    }
    return wrappedOverRaw >= TARGET ? "met" : "MISSED";
  }

  private Round round(int config, int arm, ThreadMXBean mx, Optional<Path> broker)
      throws Exception {
    Config c = configs.get(config);
    Channel ch = channels[config][arm];
    AMQP.BasicProperties props = properties[arm];
    String routingKey = c.target.equals("queue") ? fixture.queue : fixture.queue + ".nobody";
    byte[] body = c.body();
    long brokerBefore = broker.map(BrokerCpu::nanos).orElse(0L);
    long cpuBefore = mx.getCurrentThreadCpuTime();
    long start = System.nanoTime();
    for (int i = 1; i <= options.perRound; i++) {
      ch.basicPublish("", routingKey, props, body);
      if (c.confirmEvery > 0 && i % c.confirmEvery == 0) {
        ch.waitForConfirmsOrDie(TimeUnit.SECONDS.toMillis(30));
      }
    }
    if (c.confirmEvery > 0) {
      ch.waitForConfirmsOrDie(TimeUnit.SECONDS.toMillis(30));
    }
    long elapsed = System.nanoTime() - start;
    long cpu = mx.getCurrentThreadCpuTime() - cpuBefore;
    long brokerAfter = broker.map(BrokerCpu::nanos).orElse(0L);
    return new Round(options.perRound / (elapsed / 1e9), cpu, brokerAfter - brokerBefore);
  }

  private static double[] ratios(double[] numerator, double[] denominator) {
    double[] ratios = new double[numerator.length];
    for (int i = 0; i < ratios.length; i++) {
      ratios[i] = numerator[i] / denominator[i];
    }
    return ratios;
  }

  private static void printRatio(String name, double[] ratios) {
    int n = ratios.length;
    SplittableRandom random = new SplittableRandom(2026);
    double[] medians = new double[2_000];
    double[] sample = new double[n];
    for (int b = 0; b < medians.length; b++) {
      for (int i = 0; i < n; i++) {
        sample[i] = ratios[random.nextInt(n)];
      }
      medians[b] = median(sample);
    }
    Arrays.sort(medians);
    System.out.printf(
        "ratio %-20s median %.3f, 95%% interval [%.3f, %.3f]%n",
        name + ":", median(ratios), medians[49], medians[1_949]);
  }

  private static double median(double[] values) {
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    int n = sorted.length;
    return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  }

  private record Round(double rate, long clientCpuNanos, long brokerCpuNanos) {}

  /**
   * One configuration.
   *
   * @param target {@code queue} or {@code unroutable}
   * @param bodyBytes the body size, in [0, 16 MiB]
   * @param confirmEvery 0 for no publisher confirms, else the publishes between waits
   */
  record Config(String target, int bodyBytes, int confirmEvery) {

    Config {
      if (!target.equals("queue") && !target.equals("unroutable")) {
        throw new IllegalArgumentException(
            "a configuration's target must be queue or unroutable, not '" + target + "'");
      }
    }

    /** Parses {@code target/body/confirm-every}, such as {@code queue/4096/100}. */
    static Config parse(String name) {
      String[] parts = name.split("/", -1);
      if (parts.length != 3) {
        throw new IllegalArgumentException(
            "a configuration is target/body/confirm-every, such as queue/4096/100, not '"
                + name
                + "'");
      }
      return new Config(
          parts[0],
          Options.number("body of " + name, parts[1], 0, 16 * 1024 * 1024),
          Options.number("confirm-every of " + name, parts[2], 0, 1_000_000));
    }

    String name() {
      return target + "/" + bodyBytes + "/" + confirmEvery;
    }

    String describe() {
      return (target.equals("queue") ? "priority queue" : "no queue")
          + ", "
          + bodyBytes
          + " B, "
          + (confirmEvery > 0 ? "confirms every " + confirmEvery : "no confirms");
    }

    byte[] body() {
      return new byte[bodyBytes];
    }
  }

  /**
   * Parsed command-line options.
   *
   * @param configs the configurations to measure, each once
   * @param rounds measured rounds, in [3, 10,000]
   * @param perRound publishes per arm and round
   * @param warmup unmeasured rounds first
   * @param brokerPid the broker's process id for its CPU time, or 0 to find it
   */
  record Options(List<Config> configs, int rounds, int perRound, int warmup, long brokerPid) {

    Options {
      configs = List.copyOf(configs);
    }

    static Options parse(String[] args) {
      List<Config> configs = ALL;
      int rounds = 30;
      int perRound = 20_000;
      int warmup = 3;
      long brokerPid = 0;
      for (int i = 0; i < args.length; i++) {
        String flag = args[i];
        if (i + 1 >= args.length) {
          throw new IllegalArgumentException(flag + " needs a value");
        }
        String value = args[++i];
        switch (flag) {
          case "--only" -> {
            LinkedHashSet<Config> chosen = new LinkedHashSet<>();
            for (String name : value.split(",")) {
              chosen.add(Config.parse(name.trim()));
            }
            configs = List.copyOf(chosen);
          }
          case "--rounds" -> rounds = number(flag, value, 3, 10_000);
          case "--per-round" -> perRound = number(flag, value, 1, 100_000_000);
          case "--warmup" -> warmup = number(flag, value, 0, 100);
          case "--broker-pid" -> brokerPid = number(flag, value, 1, Integer.MAX_VALUE);
          default -> throw new IllegalArgumentException("unknown option '" + flag + "'");
        }
      }
      return new Options(configs, rounds, perRound, warmup, brokerPid);
    }

    static int number(String what, String value, int min, int max) {
      int n;
      try {
        n = Integer.parseInt(value);
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException(what + " must be a whole number, not '" + value + "'");
      }
      if (n < min || n > max) {
        throw new IllegalArgumentException(
            what + " must be between " + min + " and " + max + ", not " + n);
      }
      return n;
    }
  }

  /** The CPU time of a local RabbitMQ node, read from procfs. */
  static final class BrokerCpu {

    private static final long TICK_NANOS = 10_000_000L; // USER_HZ is 100 on Linux

    private BrokerCpu() {}

    /** Returns the stat file of the given process, or of the one local beam.smp; empty if none. */
    static Optional<Path> find(long pid) {
      if (pid > 0) {
        Path stat = Path.of("/proc", Long.toString(pid), "stat");
        if (!Files.isReadable(stat)) {
          throw new IllegalArgumentException("--broker-pid " + pid + ": no such process");
        }
        return Optional.of(stat);
      }
      List<Path> beams =
          ProcessHandle.allProcesses()
              .filter(p -> p.info().command().map(c -> c.endsWith("beam.smp")).orElse(false))
              .map(p -> Path.of("/proc", Long.toString(p.pid()), "stat"))
              .filter(Files::isReadable)
              .toList();
      // With several nodes on the machine the one the URI names is not known here.
      return beams.size() == 1 ? Optional.of(beams.get(0)) : Optional.empty();
    }

    static long nanos(Path stat) {
      try {
        String line = Files.readString(stat);
        // Fields after the parenthesised command name; utime and stime are fields 14 and 15.
        String[] fields = line.substring(line.lastIndexOf(')') + 2).split(" ");
        return (Long.parseLong(fields[11]) + Long.parseLong(fields[12])) * TICK_NANOS;
      } catch (Exception e) {
        return 0;
      }
    }
  }
}
