package io.harbinger.experiments.levels;

import io.harbinger.experiments.analysis.RunMetrics;
import io.harbinger.experiments.sim.PredictorChoice;
import io.harbinger.experiments.sim.PredictorOverrides;
import io.harbinger.experiments.workload.Calibration;
import io.harbinger.experiments.workload.HandlerMode;
import io.harbinger.experiments.workload.Job;
import io.harbinger.experiments.workload.JobType;
import io.harbinger.experiments.workload.KernelCalibration;
import io.harbinger.experiments.workload.MessageRecord;
import io.harbinger.experiments.workload.Regime;
import io.harbinger.experiments.workload.RunRecord;
import io.harbinger.experiments.workload.Webhooks;
import io.harbinger.experiments.workload.Workload;
import io.harbinger.experiments.workload.WorkloadConfig;
import io.harbinger.predictor.PredictorConfig;
import io.harbinger.predictor.PredictorTuning;
import io.harbinger.predictor.Ticker;
import io.harbinger.scheduler.Aging;
import io.harbinger.scheduler.AgingLevels;
import io.harbinger.scheduler.AgingMode;
import io.harbinger.scheduler.LevelArbiter;
import io.harbinger.scheduler.SchedulerConfig;
import io.harbinger.scheduler.Selection;
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
 * <p>Implementation notes: the model of a RabbitMQ arm with sleeping handlers (RabbitMQ's
 * documentation on priority queues and consumer prefetch): four workers with prefetch 1, so a
 * worker takes the next message only when it has acknowledged its last; the queue serves the
 * highest priority first and FIFO within one; a nacked attempt goes back to the head of its level;
 * no aging. Each attempt takes its planned time exactly (the failing webhook's first attempt its
 * timeout). A successful attempt is learned {@code reportDelay} after it ends, as reports travel
 * through the reports exchange. Events at one instant are taken in the order completion, report,
 * arrival. The clock is the simulation's, so staleness, idle decay and every other time rule of the
 * predictor see simulated time. There is no broker or scheduling overhead and no CPU contention, so
 * absolute latencies are lower than measured ones; the replay ranks placements, it does not predict
 * a bench run.
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
      names = "--regime",
      defaultValue = "shift",
      description =
          "shift (the reference's cost shift) or inversion (the shift, and generate_invoice turns"
              + " long while send_order_email turns short); prints each predictive arm's recovery.")
  String regime;

  @Option(
      names = "--arms",
      split = ",",
      defaultValue = "fifo,oracle,naive,predictive",
      description =
          "fifo, oracle, oracle-5, naive, naive-5, predictive, or predictive:NAME=VALUE:... with"
              + " overrides of the predictor's parameters ("
              + PredictorOverrides.NAMES
              + "; the job's size hint is passed as the bench sends it).")
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

  @Option(
      names = "--tsv",
      description =
          "Also write the per-arm means (mean change, P99 ratio, export wait ratio, worst job-type"
              + " P50 ratio) to FILE, for the trade-off chart.")
  Path tsv;

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
    return replay(workload, placement, clock, reportDelay, log, null);
  }

  /**
   * Replays a workload through a placement, the levels served as a lanes consumer serves them: by
   * the scheduling core's selection over the heads of the levels, with its aging.
   *
   * @param workload the jobs
   * @param placement how jobs get their level; a predictor's ticker must be {@code clock}
   * @param clock the clock the replay advances
   * @param reportDelay from a successful attempt's end to its being learned; not negative
   * @param log where decisions go, or null
   * @param serving the selection and aging, or null for strict priority without aging (a classic
   *     priority queue)
   * @return the run record, arm name {@code replay}
   */
  static RunRecord replay(
      Workload workload,
      Placement placement,
      ReplayClock clock,
      Duration reportDelay,
      DecisionLog log,
      SchedulerConfig serving) {
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
    int[] pulled = new int[n];
    long[] placed = new long[n];
    LevelArbiter arbiter = serving == null ? null : new LevelArbiter(levels, serving.newSelector());
    Aging aging = serving == null ? Aging.NONE : serving.newAging();
    long agingInterval = serving == null ? Long.MAX_VALUE : serving.agingInterval().toNanos();
    long nextAging = aging == Aging.NONE ? Long.MAX_VALUE : agingInterval;
    int[] promotedAt = new int[levels];
    HeadLevels heads = new HeadLevels(queues, level, placed, workload, promotedAt, arbiter);
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
      if (nextAging < tDone && nextAging < tReport && nextAging < tArrival) {
        clock.now = nextAging;
        aging.pass(heads, clock.now);
        nextAging += agingInterval;
      } else if (tDone <= tReport && tDone <= tArrival) {
        long[] e = running.poll();
        clock.now = e[0];
        int j = (int) e[1];
        idle++;
        Job job = jobs.get(j);
        if (arbiter != null) {
          arbiter.finished(pulled[j], handlerMillis[j] * 1e6);
        }
        if (attempts[j] == 1 && job.failsFirstAttempt()) {
          heads.addFirst(j);
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
        placed[next] = clock.now;
        heads.addLast(next);
        next++;
      }
      while (idle > 0) {
        Integer j = null;
        if (arbiter == null) {
          for (ArrayDeque<Integer> q : queues) {
            if (!q.isEmpty()) {
              j = q.pollFirst();
              break;
            }
          }
        } else {
          int l = arbiter.next(heads.mask());
          if (l >= 0) {
            j = heads.poll(l);
            arbiter.started(l, Double.NaN);
            pulled[j] = l;
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

  /**
   * The replay's levels as the scheduling core's aging sees a lanes consumer's: heads only, a job
   * promoted to the tail of the level above. Placement times are kept per job.
   */
  private static final class HeadLevels implements AgingLevels<Integer> {
    private final ArrayDeque<Integer>[] queues;
    private final int[] level;
    private final long[] placed;
    private final Workload workload;
    private final int[] promoted;
    private final LevelArbiter arbiter;
    private final int[] original;

    HeadLevels(
        ArrayDeque<Integer>[] queues,
        int[] level,
        long[] placed,
        Workload workload,
        int[] promoted,
        LevelArbiter arbiter) {
      this.queues = queues;
      this.level = level;
      this.placed = placed;
      this.workload = workload;
      this.promoted = promoted;
      this.arbiter = arbiter;
      this.original = new int[level.length];
    }

    int mask() {
      int m = 0;
      for (int l = 0; l < queues.length; l++) {
        if (!queues[l].isEmpty()) {
          m |= 1 << l;
        }
      }
      return m;
    }

    void addLast(int j) {
      original[j] = level[j];
      add(j, false);
    }

    void addFirst(int j) {
      add(j, true);
    }

    private void add(int j, boolean front) {
      ArrayDeque<Integer> q = queues[level[j]];
      if (q.isEmpty() && arbiter != null) {
        arbiter.activated(level[j]);
      }
      if (front) {
        q.addFirst(j);
      } else {
        q.addLast(j);
      }
      if (level[j] < original[j]) {
        promoted[level[j]]++;
      }
    }

    Integer poll(int l) {
      Integer j = queues[l].pollFirst();
      if (j != null && level[j] < original[j]) {
        promoted[l]--;
      }
      return j;
    }

    @Override
    public int levels() {
      return queues.length;
    }

    @Override
    public boolean isEmpty(int l) {
      return queues[l].isEmpty();
    }

    @Override
    public int promoted(int l) {
      return promoted[l];
    }

    @Override
    public Integer head(int l) {
      return queues[l].peekFirst();
    }

    @Override
    public Integer next(Integer job) {
      return null;
    }

    @Override
    public long arrivalNanos(Integer job) {
      return workload.jobs().get(job).arrivalNanos();
    }

    @Override
    public long placedNanos(Integer job) {
      return placed[job];
    }

    @Override
    public boolean isExpired(Integer job, long nowNanos) {
      return false;
    }

    @Override
    public void promote(Integer job, long nowNanos) {
      poll(level[job]);
      level[job]--;
      placed[job] = nowNanos;
      add(job, false);
    }
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
    int at = arm.indexOf('@');
    String[] parts = (at < 0 ? arm : arm.substring(0, at)).split(":");
    return switch (parts[0]) {
      case "fifo" -> Placement.fifo();
      case "oracle" -> Placement.oracle(workload, 3);
      case "oracle-5" -> Placement.oracle(workload, 5);
      case "naive" -> Placement.naive(workload, 3);
      case "naive-5" -> Placement.naive(workload, 5);
      case "predictive", "predictive-5" -> {
        PredictorChoice p = predictor(arm);
        yield Placement.predictive(p.config(), p.tuning(), clock);
      }
      default ->
          throw new IllegalArgumentException(
              "arm must be fifo, oracle, oracle-5, naive, naive-5, predictive or predictive-5,"
                  + " with :NAME=VALUE overrides for the predictive arms: "
                  + arm);
    };
  }

  /**
   * Returns the predictor of a predictive arm: the defaults at its levels, with its {@code
   * :NAME=VALUE} overrides of settings and tuning.
   *
   * @param arm a {@code predictive} or {@code predictive-5} arm name
   * @return the predictor, labelled with the arm's name
   */
  static PredictorChoice predictor(String arm) {
    int at = arm.indexOf('@');
    String[] parts = (at < 0 ? arm : arm.substring(0, at)).split(":");
    PredictorConfig.Builder config =
        PredictorConfig.builder().levels(parts[0].equals("predictive-5") ? 5 : 3);
    PredictorTuning.Builder tuning = PredictorTuning.builder();
    for (int i = 1; i < parts.length; i++) {
      PredictorOverrides.apply(config, tuning, parts[i]);
    }
    return new PredictorChoice(arm, config.build(), tuning.build());
  }

  /**
   * Returns how an arm's levels are served: null for strict priority without aging (a classic
   * priority queue, or strict lanes), else the lanes consumer's scheduling after the arm's {@code
   * @}: {@code @strict}, {@code @weights=8/3/1} (weighted with pausing aging after 5 s), {@code
   * @weights=work} (weights proportional to each level's planned work under the oracle's levels),
   * each optionally followed by {@code +no_aging} or {@code +plain}.
   *
   * @param arm the arm name
   * @param workload the run's jobs, for work-proportional weights
   * @param levels the placement's levels
   * @return the configuration, or null
   */
  static SchedulerConfig serving(String arm, Workload workload, int levels) {
    int at = arm.indexOf('@');
    if (at < 0) {
      return null;
    }
    String[] parts = arm.substring(at + 1).split("\\+");
    AgingMode aging = AgingMode.PAUSING;
    for (int i = 1; i < parts.length; i++) {
      aging =
          switch (parts[i]) {
            case "no_aging" -> AgingMode.NONE;
            case "plain" -> AgingMode.PLAIN;
            case "pausing" -> AgingMode.PAUSING;
            default ->
                throw new IllegalArgumentException(
                    "serving suffix must be +no_aging, +plain or +pausing: " + arm);
          };
    }
    SchedulerConfig base = SchedulerConfig.defaults();
    if (parts[0].equals("strict")) {
      return new SchedulerConfig(
          levels,
          Selection.STRICT,
          parts.length > 1 ? aging : AgingMode.NONE,
          base.weights(),
          base.agingThreshold(),
          base.agingInterval());
    }
    if (!parts[0].startsWith("weights=")) {
      throw new IllegalArgumentException(
          "serving must be @strict, @weights=W0/W1/... or @weights=work: " + arm);
    }
    String w = parts[0].substring("weights=".length());
    List<Integer> weights = new ArrayList<>();
    if (w.equals("work")) {
      weights.addAll(workWeights(workload, levels));
    } else {
      for (String x : w.split("/")) {
        weights.add(Integer.parseInt(x.trim()));
      }
    }
    return new SchedulerConfig(
        levels, Selection.WEIGHTED, aging, weights, base.agingThreshold(), base.agingInterval());
  }

  /** Weights proportional to each level's planned work at the oracle's levels, the least 1. */
  static List<Integer> workWeights(Workload workload, int levels) {
    Placement oracle = Placement.oracle(workload, levels);
    double[] work = new double[levels];
    for (Job job : workload.jobs()) {
      work[oracle.place(job, job.arrivalNanos()).level()] += job.plannedMillis();
    }
    double least = Double.POSITIVE_INFINITY;
    for (double x : work) {
      if (x > 0) {
        least = Math.min(least, x);
      }
    }
    List<Integer> out = new ArrayList<>();
    for (double x : work) {
      out.add((int) Math.max(1, Math.min(1000, Math.round(x / least))));
    }
    return out;
  }

  @Override
  public Integer call() throws IOException {
    Webhooks variant;
    Regime shiftedPhase;
    try {
      variant = Webhooks.fromWireName(webhooks);
      shiftedPhase = Regime.fromWireName(regime);
      Workload probe =
          Workload.generate(new WorkloadConfig(1, 10, 1, 1, variant), KernelCalibration.REFERENCE);
      for (String arm : arms) {
        serving(arm, probe, placement(arm, probe, new ReplayClock()).levels());
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
        "Replay: %s webhooks, %s regime, %.0f s of arrivals, rate scale %.3f, %d workers, report"
            + " delay %.0f ms, seeds %s%n%n",
        variant.wireName(),
        shiftedPhase.wireName(),
        arrivalSeconds,
        rate,
        WORKERS,
        reportDelayMillis,
        seeds);
    System.out.println(
        "| arm | mean ms | mean vs fifo | P99 / fifo | export max wait / fifo | short P50 ms |"
            + " reasons |");
    System.out.println("|---|---:|---:|---:|---:|---:|---|");
    double[][] sums = new double[arms.size()][5];
    List<String> recoveries = new ArrayList<>();
    for (long seed : seeds) {
      Workload w =
          Workload.generate(
              new WorkloadConfig(seed, arrivalSeconds, rate, 1, variant, shiftedPhase),
              KernelCalibration.REFERENCE);
      RunMetrics fifo = null;
      for (int a = 0; a < arms.size(); a++) {
        String arm = arms.get(a);
        ReplayClock clock = new ReplayClock();
        Placement p = placement(arm, w, clock);
        DecisionLog log = new DecisionLog(w.jobs(), p.levels());
        SchedulerConfig serve = serving(arm, w, p.levels());
        RunRecord run =
            replay(w, p, clock, Duration.ofNanos(Math.round(reportDelayMillis * 1e6)), log, serve);
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
        sums[a][4] += worstTypeP50Ratio(m, fifo);
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
        if (arm.startsWith("predictive")) {
          double keyDecay = predictor(arm).config().keyDecay();
          for (JobType type : RecoveryReport.TYPES) {
            Recovery r = Recovery.of(log, type, keyDecay, rate);
            if (r != null) {
              recoveries.add(r.row(arm + " seed " + seed));
            }
          }
        }
        if (decisions != null) {
          log.write(
              decisions.resolve(arm.replace(':', '_') + "-seed" + seed), arm + " seed " + seed);
        }
      }
    }
    System.out.println();
    System.out.println(
        "| arm | mean ms | mean vs fifo | P99 / fifo | export max wait / fifo | worst job-type P50"
            + " / fifo |");
    System.out.println("|---|---:|---:|---:|---:|---:|");
    int k = seeds.size();
    StringBuilder table =
        new StringBuilder("arm\tmean_change\tp99_ratio\texport_wait_ratio\tworst_type_p50_ratio\n");
    for (int a = 0; a < arms.size(); a++) {
      System.out.printf(
          Locale.ROOT,
          "| %s | %.0f | %+.1f%% | %.2fx | %.2fx | %.2fx |%n",
          arms.get(a),
          sums[a][3] / k,
          100 * sums[a][0] / k,
          sums[a][1] / k,
          sums[a][2] / k,
          sums[a][4] / k);
      table.append(
          String.format(
              Locale.ROOT,
              "%s\t%.4f\t%.4f\t%.4f\t%.4f%n",
              arms.get(a),
              sums[a][0] / k,
              sums[a][1] / k,
              sums[a][2] / k,
              sums[a][4] / k));
    }
    if (tsv != null) {
      java.nio.file.Files.writeString(tsv, table.toString());
    }
    if (!recoveries.isEmpty()) {
      System.out.println();
      System.out.println("Recovery after the shift. " + Recovery.TABLE_NOTE);
      System.out.println();
      System.out.println(Recovery.TABLE_HEADER);
      recoveries.forEach(System.out::println);
    }
    return 0;
  }

  /** The largest ratio of a job type's median latency to its median under FIFO. */
  private static double worstTypeP50Ratio(RunMetrics m, RunMetrics fifo) {
    double worst = 0;
    for (var e : m.byClass().entrySet()) {
      var base = fifo.byClass().get(e.getKey());
      if (base != null && base.p50Millis() > 0) {
        worst = Math.max(worst, e.getValue().p50Millis() / base.p50Millis());
      }
    }
    return worst;
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
