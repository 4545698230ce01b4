package io.harbinger.broker.bench;

import io.harbinger.broker.BrokerConfig;
import io.harbinger.broker.Policy;
import io.harbinger.scheduler.SchedulerConfig;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The broker cost benchmark: empty handlers, small payloads, N producers and N consumers on
 * loopback, against Harbinger's broker, RabbitMQ (prefetch 1, manual ack) and Redis (LPUSH, BLMOVE
 * into a per-consumer processing list, LREM on ack), side by side in one run.
 *
 * <p>Two measurements per system. Peak: producers send as fast as a window of outstanding messages
 * allows, and the delivered rate is counted at the consumers over the measured window. Fixed rates:
 * producers send open-loop at the offered rate, each payload stamped with its scheduled send time
 * (so a stalled sender does not hide latency), and the delivery latency (scheduled send to consumer
 * receipt) is summarised by nearest-rank percentiles. Every phase has a warm-up that is not
 * counted. Every phase is bounded in time; results go to a markdown file and a TSV.
 */
@Command(
    name = "broker-cost",
    mixinStandardHelpOptions = true,
    description = "Measures the cost of Harbinger's broker against RabbitMQ and Redis.")
public final class BrokerCostBench implements Callable<Integer> {

  @Option(names = "--producers", description = "Producer threads (default: ${DEFAULT-VALUE}).")
  int producers = 4;

  @Option(names = "--consumers", description = "Consumer threads (default: ${DEFAULT-VALUE}).")
  int consumers = 4;

  @Option(
      names = "--payload-bytes",
      description = "Payload size, >= 16 (default: ${DEFAULT-VALUE}).")
  int payloadBytes = 64;

  @Option(
      names = "--warmup-seconds",
      description = "Uncounted warm-up per phase (default: ${DEFAULT-VALUE}).")
  int warmupSeconds = 2;

  @Option(names = "--seconds", description = "Measured time per phase (default: ${DEFAULT-VALUE}).")
  int seconds = 8;

  @Option(
      names = "--rates",
      split = ",",
      description = "Offered rates in messages/s for the latency phases (default: 500,1000).")
  List<Integer> rates = List.of(500, 1000);

  @Option(
      names = "--systems",
      split = ",",
      description =
          "Systems to run, in order: harbinger (streams), harbinger-unary (Pull/Ack), rabbitmq,"
              + " redis (default: harbinger,rabbitmq,redis).")
  List<String> systems = List.of("harbinger", "rabbitmq", "redis");

  @Option(
      names = "--prime-seconds",
      description =
          "Untimed peak load per system before its phases, so JIT-compiled code is measured"
              + " (default: ${DEFAULT-VALUE}).")
  int primeSeconds = 10;

  @Option(
      names = "--window",
      description = "Outstanding messages in the peak phase (default: ${DEFAULT-VALUE}).")
  int window = 2000;

  @Option(names = "--out", description = "Output directory (default: ${DEFAULT-VALUE}).")
  Path out = Path.of("experiments/results/broker-cost");

  /** One phase's outcome. */
  record Result(
      String system,
      String phase,
      double offeredPerSecond,
      double deliveredPerSecond,
      long samples,
      double p50Micros,
      double p99Micros) {}

  /**
   * Runs the benchmark.
   *
   * @param args the arguments
   */
  public static void main(String[] args) {
    System.exit(new CommandLine(new BrokerCostBench()).execute(args));
  }

  @Override
  public Integer call() throws Exception {
    if (payloadBytes < 16 || producers < 1 || consumers < 1 || seconds < 1) {
      System.err.println(
          "broker-cost: --payload-bytes must be >= 16 and --producers, --consumers, --seconds >= 1");
      return CommandLine.ExitCode.USAGE;
    }
    String runId = "harbinger-bench-" + Long.toString(System.nanoTime(), 36);
    List<Result> results = new ArrayList<>();
    for (String system : systems) {
      if (primeSeconds > 0) {
        try (Transport transport = open(system, runId + "-prime")) {
          int measured = seconds;
          int warm = warmupSeconds;
          seconds = primeSeconds;
          warmupSeconds = 0;
          try {
            Result r = peak(transport);
            System.err.printf(
                Locale.ROOT, "%-9s prime      delivered %9.0f/s%n", system, r.deliveredPerSecond);
          } finally {
            seconds = measured;
            warmupSeconds = warm;
          }
        }
      }
      List<String> phases = new ArrayList<>();
      phases.add("peak");
      rates.forEach(r -> phases.add("rate-" + r));
      for (String phase : phases) {
        try (Transport transport = open(system, runId + "-" + phase)) {
          Result r =
              phase.equals("peak")
                  ? peak(transport)
                  : fixedRate(transport, Integer.parseInt(phase.substring(5)));
          results.add(r);
          System.err.printf(
              Locale.ROOT,
              "%-9s %-10s delivered %9.0f/s  p50 %8.0f us  p99 %8.0f us%n",
              r.system,
              r.phase,
              r.deliveredPerSecond,
              r.p50Micros,
              r.p99Micros);
        }
      }
    }
    write(results);
    return CommandLine.ExitCode.OK;
  }

  private Transport open(String system, String name) throws Exception {
    return switch (system) {
      case "harbinger", "harbinger-unary" ->
          new HarbingerTransport(
              BrokerConfig.defaults().withPolicy(Policy.FIFO, SchedulerConfig.defaults()),
              system.equals("harbinger"));
      case "rabbitmq" ->
          new RabbitTransport(envOr("RABBITMQ_URI", "amqp://guest:guest@127.0.0.1:5672/%2F"), name);
      case "redis" ->
          new RedisTransport(URI.create(envOr("REDIS_URI", "redis://127.0.0.1:6379")), name);
      default ->
          throw new CommandLine.ParameterException(
              new CommandLine(this),
              "--systems must name harbinger, harbinger-unary, rabbitmq or redis: " + system);
    };
  }

  private static String envOr(String name, String fallback) {
    String v = System.getenv(name);
    return v == null || v.isBlank() ? fallback : v;
  }

  /** Records deliveries: the count and latencies of those stamped inside the measured window. */
  private static final class Recorder implements Transport.Sink {
    final AtomicLong delivered = new AtomicLong();
    final long[] latencies;
    final AtomicLong recorded = new AtomicLong();
    volatile long windowStart = Long.MAX_VALUE;
    volatile long windowEnd = Long.MAX_VALUE;
    final Semaphore permits;

    Recorder(int capacity, Semaphore permits) {
      this.latencies = new long[capacity];
      this.permits = permits;
    }

    @Override
    public void accept(byte[] payload) {
      long now = System.nanoTime();
      long stamp = ByteBuffer.wrap(payload).getLong(0);
      if (now >= windowStart && now < windowEnd) {
        delivered.incrementAndGet();
      }
      if (stamp >= windowStart && stamp < windowEnd) {
        long i = recorded.getAndIncrement();
        if (i < latencies.length) {
          latencies[(int) i] = now - stamp;
        }
      }
      if (permits != null) {
        permits.release();
      }
    }
  }

  private byte[] payload(long stampNanos, long sequence) {
    byte[] p = new byte[payloadBytes];
    ByteBuffer b = ByteBuffer.wrap(p);
    b.putLong(stampNanos).putLong(sequence);
    byte[] fill = "harbinger-bench-".getBytes(StandardCharsets.US_ASCII);
    for (int i = 16; i < p.length; i++) {
      p[i] = fill[i % fill.length];
    }
    return p;
  }

  private Result peak(Transport transport) throws Exception {
    Semaphore permits = new Semaphore(window);
    Recorder recorder = new Recorder(1 << 22, permits);
    transport.startConsumers(consumers, recorder);
    List<Transport.Sender> senders = newSenders(transport);
    long start = System.nanoTime();
    recorder.windowStart = start + Duration.ofSeconds(warmupSeconds).toNanos();
    recorder.windowEnd = recorder.windowStart + Duration.ofSeconds(seconds).toNanos();
    long stopAt = recorder.windowEnd;
    List<Thread> threads = new ArrayList<>();
    AtomicLong sequence = new AtomicLong();
    for (Transport.Sender sender : senders) {
      threads.add(
          Thread.ofPlatform()
              .start(
                  () -> {
                    try (sender) {
                      while (System.nanoTime() < stopAt) {
                        if (permits.tryAcquire(10, java.util.concurrent.TimeUnit.MILLISECONDS)) {
                          sender.send(payload(System.nanoTime(), sequence.incrementAndGet()));
                        }
                      }
                      sender.flush();
                    } catch (Exception e) {
                      throw new IllegalStateException(transport.name() + " producer failed", e);
                    }
                  }));
    }
    for (Thread t : threads) {
      t.join();
    }
    transport.stopConsumers();
    return summarize(transport.name(), "peak", Double.NaN, recorder);
  }

  private List<Transport.Sender> newSenders(Transport transport) throws Exception {
    List<Transport.Sender> senders = new ArrayList<>();
    for (int p = 0; p < producers; p++) {
      senders.add(transport.newSender());
    }
    return senders;
  }

  private Result fixedRate(Transport transport, int rate) throws Exception {
    long expected = (long) rate * (warmupSeconds + seconds) + 1024;
    Recorder recorder = new Recorder((int) Math.min(expected, 1 << 24), null);
    transport.startConsumers(consumers, recorder);
    List<Transport.Sender> senders = newSenders(transport);
    long start = System.nanoTime() + Duration.ofMillis(200).toNanos();
    recorder.windowStart = start + Duration.ofSeconds(warmupSeconds).toNanos();
    recorder.windowEnd = recorder.windowStart + Duration.ofSeconds(seconds).toNanos();
    long stopAt = recorder.windowEnd;
    double intervalNanos = 1e9 * producers / rate;
    List<Thread> threads = new ArrayList<>();
    for (int p = 0; p < producers; p++) {
      Transport.Sender sender = senders.get(p);
      long offset = (long) (intervalNanos * p / producers);
      threads.add(
          Thread.ofPlatform()
              .start(
                  () -> {
                    try (sender) {
                      for (long k = 0; ; k++) {
                        long scheduled = start + offset + (long) (k * intervalNanos);
                        if (scheduled >= stopAt) {
                          break;
                        }
                        long wait = scheduled - System.nanoTime();
                        if (wait > 0) {
                          LockSupport.parkNanos(wait);
                        }
                        sender.send(payload(scheduled, k));
                      }
                      sender.flush();
                    } catch (Exception e) {
                      throw new IllegalStateException(transport.name() + " producer failed", e);
                    }
                  }));
    }
    for (Thread t : threads) {
      t.join();
    }
    // let the measured messages drain, bounded
    long drainUntil = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    long target = (long) ((double) rate * seconds * 0.999);
    while (recorder.recorded.get() < target && System.nanoTime() < drainUntil) {
      LockSupport.parkNanos(Duration.ofMillis(20).toNanos());
    }
    transport.stopConsumers();
    return summarize(transport.name(), "rate-" + rate, rate, recorder);
  }

  private Result summarize(String system, String phase, double offered, Recorder recorder) {
    int n = (int) Math.min(recorder.recorded.get(), recorder.latencies.length);
    long[] sorted = Arrays.copyOf(recorder.latencies, n);
    Arrays.sort(sorted);
    return new Result(
        system,
        phase,
        offered,
        recorder.delivered.get() / (double) seconds,
        n,
        nearestRank(sorted, 50) / 1e3,
        nearestRank(sorted, 99) / 1e3);
  }

  private static double nearestRank(long[] sorted, double percent) {
    if (sorted.length == 0) {
      return Double.NaN;
    }
    return io.harbinger.predictor.NearestRank.of(sorted, percent);
  }

  private void write(List<Result> results) throws IOException {
    Files.createDirectories(out);
    StringBuilder tsv =
        new StringBuilder(
            "system\tphase\toffered_per_s\tdelivered_per_s\tsamples\tp50_us\tp99_us\n");
    for (Result r : results) {
      tsv.append(
          String.format(
              Locale.ROOT,
              "%s\t%s\t%.0f\t%.0f\t%d\t%.0f\t%.0f%n",
              r.system,
              r.phase,
              r.offeredPerSecond,
              r.deliveredPerSecond,
              r.samples,
              r.p50Micros,
              r.p99Micros));
    }
    Files.writeString(out.resolve("results.tsv"), tsv);
    try (PrintStream md = new PrintStream(Files.newOutputStream(out.resolve("results.md")), true)) {
      md.printf(
          Locale.ROOT,
          "# Broker cost (%s)%n%n%d producers, %d consumers, %d-byte payloads, empty handlers,"
              + " loopback; each system primed for %d s, then %d s warm-up and %d s measured per"
              + " phase.%n%n",
          Instant.now(),
          producers,
          consumers,
          payloadBytes,
          primeSeconds,
          warmupSeconds,
          seconds);
      md.println("| system | phase | offered/s | delivered/s | samples | P50 (us) | P99 (us) |");
      md.println("|---|---|---:|---:|---:|---:|---:|");
      for (Result r : results) {
        md.printf(
            Locale.ROOT,
            "| %s | %s | %s | %.0f | %d | %.0f | %.0f |%n",
            r.system,
            r.phase,
            Double.isNaN(r.offeredPerSecond)
                ? "max"
                : String.format(Locale.ROOT, "%.0f", r.offeredPerSecond),
            r.deliveredPerSecond,
            r.samples,
            r.p50Micros,
            r.p99Micros);
      }
    }
  }
}
