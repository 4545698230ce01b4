package io.harbinger.experiments.levels;

import io.harbinger.experiments.analysis.RunMetrics;
import io.harbinger.experiments.workload.Calibration;
import io.harbinger.experiments.workload.HandlerMode;
import io.harbinger.experiments.workload.Job;
import io.harbinger.experiments.workload.KernelCalibration;
import io.harbinger.experiments.workload.MessageRecord;
import io.harbinger.experiments.workload.RunRecord;
import io.harbinger.experiments.workload.Webhooks;
import io.harbinger.experiments.workload.Workload;
import io.harbinger.experiments.workload.WorkloadConfig;
import io.harbinger.predictor.PredictorConfig;
import io.harbinger.predictor.Ticker;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.PriorityQueue;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Replays the production flow through a placement in virtual time, as RabbitMQ's classic priority
 * queue would serve it, and scores the order with the bench's metrics: the fast, load-independent
 * way to compare the predictor with the oracle and the naive median.
 *
 * <p>Example: {@code LevelsReplay.replay(workload, Placement.oracle(workload, 3), Duration.ZERO,
 * null)} serves the workload's jobs on four workers by strict priority and returns the run record
 * the bench would have written, had every handler taken exactly its planned time.
 *
 * <p>Implementation notes: the model of a RabbitMQ arm with sleeping handlers (rabbitmq-facts
 * sections 1 and 3): four workers with prefetch 1, so a worker takes the next message only when it
 * has acknowledged its last; the queue serves the highest priority first and FIFO within one; a
 * nacked attempt goes back to the head of its level; no aging. Each attempt takes its planned time
 * exactly (the failing webhook's first attempt its timeout). A successful attempt is learned {@code
 * reportDelay} after it ends, as reports travel through the reports exchange. Events at one instant
 * are taken in the order completion, report, arrival. The clock is the simulation's, so staleness,
 * idle decay and every other time rule of the predictor see simulated time. There is no broker or
 * scheduling overhead and no CPU contention, so absolute latencies are lower than measured ones;
 * the replay ranks placements, it does not predict a bench run.
 *
 * <p>Run: {@code java -cp "experiments/target/classes:$(cat experiments/target/classpath.txt)"
 * io.harbinger.experiments.levels.LevelsReplay --seeds 11,22,33 --webhooks succeeding --arms
 * fifo,oracle,naive,predictive,predictive:maxSpreadRatio=1e9}.
 *
 * <p>Not thread-safe; one replay uses one thread.
 */
@Command(
    name = "levels",
    mixinStandardHelpOptions = true,
    description =
        "Replays the production flow through FIFO, the oracle, the naive median and the predictor"
            + " in virtual time and compares them.")
public final class LevelsReplay implements Callable<Integer> {

  /** Workers, as in the bench. */
  static final int WORKERS = 4;

  @Option(names = "--seeds", split = ",", defaultValue = "11,22,33", description = "Seeds.")
  List<Long> seeds;

  @Option(
      names = "--webhooks",
      defaultValue = "failing",
      description = "failing (the reference) or succeeding slow webhooks.")
  String webhooks;

  @Option(
      names = "--arms",
      split = ",",
      defaultValue = "fifo,oracle,naive,predictive",
      description =
          "fifo, oracle, oracle-5, naive, naive-5, predictive, or predictive:NAME=VALUE:... with"
              + " PredictorConfig overrides (levels, maxSpreadRatio, minObservations, tierHysteresis,"
              + " boundaryHysteresis, pooledDecay, boundaryMinObservations, boundaryRefreshEvery,"
              + " estimateQuantile, demoteUntrusted).")
  List<String> arms;

  @Option(names = "--arrival-seconds", defaultValue = "300", description = "Arrival window.")
  double arrivalSeconds;

  @Option(
      names = "--rate-scale",
      description = "Rate scale (default: a 60%% steady phase with the reference kernel costs).")
  Double rateScale;

  @Option(
      names = "--report-delay-ms",
      defaultValue = "5",
      description = "Delay from a successful attempt's end to its being learned.")
  double reportDelayMillis;

  @Option(names = "--decisions", description = "Write each arm's decision record under DIR.")
  Path decisions;

  /**
   * Replays a workload through a placement.
   *
   * @param workload the jobs
   * @param placement how jobs get their level; a predictor's ticker must be {@code clock}
   * @param clock the clock the replay advances
   * @param reportDelay from a successful attempt's end to its being learned; not negative
   * @param log where decisions go, or null
   * @return the run record, arm name {@code replay}
   */
  static RunRecord replay(
      Workload workload,
      Placement placement,
      ReplayClock clock,
      Duration reportDelay,
      DecisionLog log) {
    Objects.requireNonNull(workload, "workload");
    Objects.requireNonNull(placement, "placement");
    long delay = reportDelay.toNanos();
    List<Job> jobs = workload.jobs();
    int n = jobs.size();
    int levels = placement.levels();
    @SuppressWarnings("unchecked")
    ArrayDeque<Integer>[] queues = new ArrayDeque[levels];
    for (int l = 0; l < levels; l++) {
      queues[l] = new ArrayDeque<>();
    }
    int[] level = new int[n];
    int[] attempts = new int[n];
    long[] firstStart = new long[n];
    long[] start = new long[n];
    long[] end = new long[n];
    double[] handlerMillis = new double[n];
    // Completion events: {end, job}; ties by job index.
    PriorityQueue<long[]> running =
        new PriorityQueue<>(
            (a, b) -> a[0] != b[0] ? Long.compare(a[0], b[0]) : Long.compare(a[1], b[1]));
    ArrayDeque<long[]> reports = new ArrayDeque<>();
    int idle = WORKERS;
    int next = 0;
    int done = 0;
    while (done < n) {
      long tArrival = next < n ? jobs.get(next).arrivalNanos() : Long.MAX_VALUE;
      long tDone = running.isEmpty() ? Long.MAX_VALUE : running.peek()[0];
      long tReport = reports.isEmpty() ? Long.MAX_VALUE : reports.peekFirst()[0];
      if (tDone <= tReport && tDone <= tArrival) {
        long[] e = running.poll();
        clock.now = e[0];
        int j = (int) e[1];
        idle++;
        Job job = jobs.get(j);
        if (attempts[j] == 1 && job.failsFirstAttempt()) {
          queues[level[j]].addFirst(j);
        } else {
          end[j] = e[0];
          done++;
          reports.addLast(new long[] {e[0] + delay, j});
        }
      } else if (tReport <= tArrival) {
        long[] r = reports.pollFirst();
        clock.now = r[0];
        Job job = jobs.get((int) r[1]);
        placement.learned(job, handlerMillis[(int) r[1]] * 1e6);
      } else {
        Job job = jobs.get(next);
        clock.now = tArrival;
        Placement.Decision d = placement.place(job, clock.now);
        level[next] = d.level();
        if (log != null) {
          log.record(job.seq(), clock.now, d.level(), d.reason(), d.estimateMillis());
          placement.boundariesMillis().ifPresent(b -> log.boundaries(clock.now, b));
        }
        queues[d.level()].addLast(next);
        next++;
      }
      while (idle > 0) {
        Integer j = null;
        for (ArrayDeque<Integer> q : queues) {
          if (!q.isEmpty()) {
            j = q.pollFirst();
            break;
          }
        }
        if (j == null) {
          break;
        }
        idle--;
        Job job = jobs.get(j);
        attempts[j]++;
        if (attempts[j] == 1) {
          firstStart[j] = clock.now;
        }
        start[j] = clock.now;
        double millis =
            attempts[j] == 1 && job.failsFirstAttempt()
                ? job.failedAttemptMillis()
                : job.cpuMillis() + job.sleepMillis();
        handlerMillis[j] = millis;
        running.add(new long[] {clock.now + Math.round(millis * 1e6), j});
      }
    }
    List<MessageRecord> records = new ArrayList<>(n);
    for (int j = 0; j < n; j++) {
      Job job = jobs.get(j);
      records.add(
          MessageRecord.completed(
              job,
              job.arrivalNanos(),
              firstStart[j],
              start[j],
              end[j],
              attempts[j],
              handlerMillis[j]));
    }
    return new RunRecord(
        "replay",
        workload.config().seed(),
        HandlerMode.SLEEP,
        workload.config(),
        0,
        Map.of(),
        records);
  }

  /** The replay's clock, which a predictor under replay must use as its ticker. */
  static final class ReplayClock implements Ticker {
    long now;

    @Override
    public long nanos() {
      return now;
    }
  }

  /**
   * Creates the placement an arm name describes.
   *
   * @param arm the name
   * @param workload the run's jobs
   * @param clock the replay's clock
   * @return the placement
   */
  static Placement placement(String arm, Workload workload, ReplayClock clock) {
    String[] parts = arm.split(":");
    return switch (parts[0]) {
      case "fifo" -> Placement.fifo();
      case "oracle" -> Placement.oracle(workload, 3);
      case "oracle-5" -> Placement.oracle(workload, 5);
      case "naive" -> Placement.naive(workload, 3);
      case "naive-5" -> Placement.naive(workload, 5);
      case "predictive", "predictive-5" -> {
        PredictorConfig.Builder b =
            PredictorConfig.builder().levels(parts[0].equals("predictive") ? 3 : 5);
        for (int i = 1; i < parts.length; i++) {
          override(b, parts[i]);
        }
        yield Placement.predictive(b.build(), clock);
      }
      default ->
          throw new IllegalArgumentException(
              "arm must be fifo, oracle, oracle-5, naive, naive-5, predictive or predictive-5,"
                  + " with :NAME=VALUE overrides for the predictive arms: "
                  + arm);
    };
  }

  private static void override(PredictorConfig.Builder b, String assignment) {
    int eq = assignment.indexOf('=');
    if (eq < 1) {
      throw new IllegalArgumentException("an override must be NAME=VALUE: " + assignment);
    }
    String name = assignment.substring(0, eq);
    String value = assignment.substring(eq + 1);
    switch (name) {
      case "levels" -> b.levels(Integer.parseInt(value));
      case "maxSpreadRatio" -> b.maxSpreadRatio(Double.parseDouble(value));
      case "minObservations" -> b.minObservations(Integer.parseInt(value));
      case "tierHysteresis" -> b.tierHysteresis(Double.parseDouble(value));
      case "boundaryHysteresis" -> b.boundaryHysteresis(Double.parseDouble(value));
      case "pooledDecay" -> b.pooledDecay(Double.parseDouble(value));
      case "keyDecay" -> b.keyDecay(Double.parseDouble(value));
      case "boundaryMinObservations" -> b.boundaryMinObservations(Integer.parseInt(value));
      case "boundaryRefreshEvery" -> b.boundaryRefreshEvery(Integer.parseInt(value));
      case "estimateQuantile" -> b.estimateQuantile(Double.parseDouble(value));
      case "demoteUntrusted" -> b.demoteUntrusted(Boolean.parseBoolean(value));
      default -> throw new IllegalArgumentException("unknown override: " + name);
    }
  }

  @Override
  public Integer call() throws IOException {
    Webhooks variant;
    try {
      variant = Webhooks.fromWireName(webhooks);
      Workload probe =
          Workload.generate(new WorkloadConfig(1, 10, 1, 1, variant), KernelCalibration.REFERENCE);
      for (String arm : arms) {
        placement(arm, probe, new ReplayClock());
      }
      if (!(reportDelayMillis >= 0 && reportDelayMillis <= 60_000)) {
        throw new IllegalArgumentException(
            "--report-delay-ms must be in [0, 60000]: " + reportDelayMillis);
      }
      new WorkloadConfig(1, arrivalSeconds, rateScale == null ? 1 : rateScale, 1, variant);
    } catch (IllegalArgumentException e) {
      System.err.println("harbinger levels: " + e.getMessage());
      return CommandLine.ExitCode.USAGE;
    }
    double rate =
        rateScale != null
            ? rateScale
            : Calibration.compute(
                    KernelCalibration.REFERENCE, WORKERS, 2, Calibration.STEADY_TARGET)
                .rateScale();
    System.out.printf(
        Locale.ROOT,
        "Replay: %s webhooks, %.0f s of arrivals, rate scale %.3f, %d workers, report delay %.0f"
            + " ms, seeds %s%n%n",
        variant.wireName(),
        arrivalSeconds,
        rate,
        WORKERS,
        reportDelayMillis,
        seeds);
    System.out.println(
        "| arm | mean ms | mean vs fifo | P99 / fifo | export max wait / fifo | short P50 ms |"
            + " reasons |");
    System.out.println("|---|---:|---:|---:|---:|---:|---|");
    double[][] sums = new double[arms.size()][4];
    for (long seed : seeds) {
      Workload w =
          Workload.generate(
              new WorkloadConfig(seed, arrivalSeconds, rate, 1, variant),
              KernelCalibration.REFERENCE);
      RunMetrics fifo = null;
      for (int a = 0; a < arms.size(); a++) {
        String arm = arms.get(a);
        ReplayClock clock = new ReplayClock();
        Placement p = placement(arm, w, clock);
        DecisionLog log = new DecisionLog(w.jobs(), p.levels());
        RunRecord run =
            replay(w, p, clock, Duration.ofNanos(Math.round(reportDelayMillis * 1e6)), log);
        RunMetrics m = RunMetrics.of(run);
        if (fifo == null) {
          fifo = m;
        }
        double change = m.all().meanMillis() / fifo.all().meanMillis() - 1;
        double p99 = m.all().p99Millis() / fifo.all().p99Millis();
        double export = m.exportMaxWaitMillis() / fifo.exportMaxWaitMillis();
        sums[a][0] += change;
        sums[a][1] += p99;
        sums[a][2] += export;
        sums[a][3] += m.all().meanMillis();
        System.out.printf(
            Locale.ROOT,
            "| %s seed %d | %.0f | %+.1f%% | %.2fx | %.2fx | %.1f | %s |%n",
            arm,
            seed,
            m.all().meanMillis(),
            100 * change,
            p99,
            export,
            m.shortClass().p50Millis(),
            log.summary().get("decisions.reasons"));
        if (decisions != null) {
          log.write(
              decisions.resolve(arm.replace(':', '_') + "-seed" + seed), arm + " seed " + seed);
        }
      }
    }
    System.out.println();
    System.out.println("| arm | mean ms | mean vs fifo | P99 / fifo | export max wait / fifo |");
    System.out.println("|---|---:|---:|---:|---:|");
    int k = seeds.size();
    for (int a = 0; a < arms.size(); a++) {
      System.out.printf(
          Locale.ROOT,
          "| %s | %.0f | %+.1f%% | %.2fx | %.2fx |%n",
          arms.get(a),
          sums[a][3] / k,
          100 * sums[a][0] / k,
          sums[a][1] / k,
          sums[a][2] / k);
    }
    return 0;
  }

  /**
   * Runs the comparison.
   *
   * @param args the command line; {@code --help} lists the options
   */
  public static void main(String[] args) {
    System.exit(new CommandLine(new LevelsReplay()).execute(args));
  }
}
