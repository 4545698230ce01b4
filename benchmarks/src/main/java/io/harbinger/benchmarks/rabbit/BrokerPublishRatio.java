package io.harbinger.benchmarks.rabbit;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import io.harbinger.predictor.HistogramPredictor;
import io.harbinger.rabbit.ChannelOptions;
import io.harbinger.rabbit.PredictiveChannels;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

/**
 * Publish throughput to the real broker: the raw channel against the wrapped one, in interleaved
 * rounds of one run, so that every arm sees the same broker and machine load.
 *
 * <p>Five arms publish the same body on channels of one connection: {@code raw} with the
 * application's properties (content type and an {@code x-job-type} header); {@code identity}, the
 * same plus {@code user-id} and a priority, the part of Harbinger's stamp that DESIGN.md makes the
 * key's identity; {@code one-header}, identity plus {@code x-harbinger-published-at} alone, the
 * cost a contract with a single stamped header would have; {@code stamped}, raw with the wrapper's
 * exact properties prebuilt ({@code user-id}, priority and the three {@code x-harbinger-*}
 * headers); and {@code wrapped}, through {@link PredictiveChannels#wrap}. So {@code stamped / raw}
 * is the cost of the larger message (client encoding and the broker), and {@code wrapped / stamped}
 * the wrapper's own work. The order of the arms rotates every round.
 *
 * <p>For each arm it prints the median throughput, the client thread's CPU time per publish and,
 * when the broker runs on this machine, the broker's CPU time per publish (from {@code
 * /proc/PID/stat} of the {@code beam.smp} process, summed over the arm's rounds); for each ratio
 * against raw, the median of the per-round ratios with a 95% bootstrap interval (2,000 resamples of
 * the rounds, seed 2026).
 *
 * <p>Run with {@code java -cp benchmarks/target/benchmarks.jar
 * io.harbinger.benchmarks.rabbit.BrokerPublishRatio [--target queue|unroutable] [--body BYTES]
 * [--confirm-every N] [--rounds N] [--per-round N]}. {@code queue} (the default) publishes into a
 * classic priority queue capped at 10,000 messages (oldest dropped); {@code unroutable} to a
 * routing key no queue has, so the broker parses and drops each message. {@code --confirm-every N}
 * turns on publisher confirms and waits for them every N publishes, as a publisher that must not
 * lose messages does (0, the default, publishes without confirms). The broker is found from {@code
 * RABBITMQ_URI} (default the loopback guest account).
 */
public final class BrokerPublishRatio {

  private static final String[] ARMS = {"raw", "identity", "one-header", "stamped", "wrapped"};
  private static final int RAW = 0;

  private final Options options;
  private final Channel[] channels = new Channel[ARMS.length];
  private final AMQP.BasicProperties[] properties = new AMQP.BasicProperties[ARMS.length];
  private final byte[] body;
  private BrokerFixture fixture;
  private Connection connection;
  private String queue;
  private String routingKey;

  private BrokerPublishRatio(Options options) {
    this.options = options;
    this.body = new byte[options.body];
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
          "usage: BrokerPublishRatio [--target queue|unroutable] [--body BYTES]"
              + " [--confirm-every N] [--rounds N] [--per-round N]");
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
    queue = fixture.queue;
    connection = fixture.connection;
    routingKey = options.target.equals("queue") ? queue : queue + ".nobody";
    String user = fixture.user;
    HistogramPredictor predictor = fixture.trainedPredictor();
    for (int arm = 0; arm < ARMS.length; arm++) {
      Channel ch = connection.createChannel();
      if (options.confirmEvery > 0) {
        ch.confirmSelect();
      }
      channels[arm] =
          ARMS[arm].equals("wrapped")
              ? PredictiveChannels.wrap(ch, ChannelOptions.builder(user).router(predictor).build())
              : ch;
    }
    AMQP.BasicProperties app =
        new AMQP.BasicProperties.Builder()
            .contentType("application/json")
            .headers(Map.of("x-job-type", "reserve"))
            .build();
    Map<String, Object> stampedHeaders = new HashMap<>();
    stampedHeaders.put("x-job-type", "reserve");
    stampedHeaders.put("x-harbinger-published-at", 1_700_000_000_000_000L);
    stampedHeaders.put("x-harbinger-level", 0);
    stampedHeaders.put("x-harbinger-mode", "predictive");
    Map<String, Object> oneHeader = new HashMap<>();
    oneHeader.put("x-job-type", "reserve");
    oneHeader.put("x-harbinger-published-at", 1_700_000_000_000_000L);
    properties[0] = app;
    properties[1] = app.builder().priority(2).userId(user).build();
    properties[2] = app.builder().priority(2).userId(user).headers(oneHeader).build();
    properties[3] = app.builder().priority(2).userId(user).headers(stampedHeaders).build();
    properties[4] = app;
  }

  private void tearDown() throws Exception {
    fixture.close();
  }

  private void measure() throws Exception {
    Optional<Path> broker = BrokerCpu.find();
    System.out.printf(
        "target %s, body %d bytes, %s, %d rounds of %d publishes per arm; broker CPU %s%n",
        options.target,
        options.body,
        options.confirmEvery > 0
            ? "publisher confirms every " + options.confirmEvery
            : "no publisher confirms",
        options.rounds,
        options.perRound,
        broker.map(p -> "from " + p).orElse("not measured (no local beam.smp process found)"));
    ThreadMXBean mx = ManagementFactory.getThreadMXBean();
    for (int warm = 0; warm < 3; warm++) {
      for (int arm = 0; arm < ARMS.length; arm++) {
        round(arm, mx, broker);
      }
    }
    double[][] rate = new double[ARMS.length][options.rounds];
    double[] clientCpu = new double[ARMS.length];
    double[] brokerCpu = new double[ARMS.length];
    long started = System.nanoTime();
    for (int r = 0; r < options.rounds; r++) {
      for (int k = 0; k < ARMS.length; k++) {
        int arm = (r + k) % ARMS.length;
        Round result = round(arm, mx, broker);
        rate[arm][r] = result.rate;
        clientCpu[arm] += result.clientCpuNanos;
        brokerCpu[arm] += result.brokerCpuNanos;
      }
      if ((r + 1) % 10 == 0 || r + 1 == options.rounds) {
        System.err.printf(
            "  %d/%d rounds, %.0f s%n", r + 1, options.rounds, (System.nanoTime() - started) / 1e9);
      }
    }
    long total = (long) options.rounds * options.perRound;
    System.out.println("arm          publishes/s  client CPU us/publish  broker CPU us/publish");
    for (int arm = 0; arm < ARMS.length; arm++) {
      System.out.printf(
          "%-12s %11.0f  %21.2f  %21s%n",
          ARMS[arm],
          median(rate[arm]),
          clientCpu[arm] / total / 1e3,
          broker.isPresent() ? String.format("%.2f", brokerCpu[arm] / total / 1e3) : "-");
    }
    printRatio("identity / raw", rate[1], rate[RAW]);
    printRatio("one-header / raw", rate[2], rate[RAW]);
    printRatio("stamped / raw", rate[3], rate[RAW]);
    printRatio("wrapped / stamped", rate[4], rate[3]);
    printRatio("wrapped / raw", rate[4], rate[RAW]);
  }

  private Round round(int arm, ThreadMXBean mx, Optional<Path> broker) throws Exception {
    Channel ch = channels[arm];
    AMQP.BasicProperties props = properties[arm];
    long brokerBefore = broker.map(BrokerCpu::nanos).orElse(0L);
    long cpuBefore = mx.getCurrentThreadCpuTime();
    long start = System.nanoTime();
    for (int i = 1; i <= options.perRound; i++) {
      ch.basicPublish("", routingKey, props, body);
      if (options.confirmEvery > 0 && i % options.confirmEvery == 0) {
        ch.waitForConfirmsOrDie(TimeUnit.SECONDS.toMillis(30));
      }
    }
    if (options.confirmEvery > 0) {
      ch.waitForConfirmsOrDie(TimeUnit.SECONDS.toMillis(30));
    }
    long elapsed = System.nanoTime() - start;
    long cpu = mx.getCurrentThreadCpuTime() - cpuBefore;
    long brokerAfter = broker.map(BrokerCpu::nanos).orElse(0L);
    return new Round(options.perRound / (elapsed / 1e9), cpu, brokerAfter - brokerBefore);
  }

  private static void printRatio(String name, double[] numerator, double[] denominator) {
    int n = numerator.length;
    double[] ratios = new double[n];
    for (int i = 0; i < n; i++) {
      ratios[i] = numerator[i] / denominator[i];
    }
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
        "ratio %-18s median %.3f, 95%% interval [%.3f, %.3f]%n",
        name + ":", median(ratios), medians[49], medians[1_949]);
  }

  private static double median(double[] values) {
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    int n = sorted.length;
    return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  }

  private record Round(double rate, long clientCpuNanos, long brokerCpuNanos) {}

  /** Parsed command-line options. */
  record Options(String target, int body, int confirmEvery, int rounds, int perRound) {

    static Options parse(String[] args) {
      String target = "queue";
      int body = 256;
      int confirmEvery = 0;
      int rounds = 30;
      int perRound = 10_000;
      for (int i = 0; i < args.length; i++) {
        String flag = args[i];
        if (i + 1 >= args.length) {
          throw new IllegalArgumentException(flag + " needs a value");
        }
        String value = args[++i];
        switch (flag) {
          case "--target" -> {
            if (!value.equals("queue") && !value.equals("unroutable")) {
              throw new IllegalArgumentException(
                  "--target must be queue or unroutable, not '" + value + "'");
            }
            target = value;
          }
          case "--body" -> body = positive(flag, value, 0, 16 * 1024 * 1024);
          case "--confirm-every" -> confirmEvery = positive(flag, value, 0, 1_000_000);
          case "--rounds" -> rounds = positive(flag, value, 3, 10_000);
          case "--per-round" -> perRound = positive(flag, value, 1, 100_000_000);
          default -> throw new IllegalArgumentException("unknown option '" + flag + "'");
        }
      }
      return new Options(target, body, confirmEvery, rounds, perRound);
    }

    private static int positive(String flag, String value, int min, int max) {
      int n;
      try {
        n = Integer.parseInt(value);
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException(flag + " must be a whole number, not '" + value + "'");
      }
      if (n < min || n > max) {
        throw new IllegalArgumentException(
            flag + " must be between " + min + " and " + max + ", not " + n);
      }
      return n;
    }
  }

  /** The CPU time of a local RabbitMQ node, read from procfs. */
  static final class BrokerCpu {

    private static final long TICK_NANOS = 10_000_000L; // USER_HZ is 100 on Linux

    private BrokerCpu() {}

    static Optional<Path> find() {
      return ProcessHandle.allProcesses()
          .filter(p -> p.info().command().map(c -> c.endsWith("beam.smp")).orElse(false))
          .map(p -> Path.of("/proc", Long.toString(p.pid()), "stat"))
          .filter(Files::isReadable)
          .findFirst();
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
