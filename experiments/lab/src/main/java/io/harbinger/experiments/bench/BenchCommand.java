package io.harbinger.experiments.bench;

import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import io.harbinger.experiments.analysis.Analysis;
import io.harbinger.experiments.analysis.Gates;
import io.harbinger.experiments.analysis.ReportFormat;
import io.harbinger.experiments.analysis.RunMetrics;
import io.harbinger.experiments.stats.Criterion;
import io.harbinger.experiments.stats.GateResult;
import io.harbinger.experiments.stats.PercentileBootstrap;
import io.harbinger.experiments.workload.Calibration;
import io.harbinger.experiments.workload.HandlerMode;
import io.harbinger.experiments.workload.KernelCalibration;
import io.harbinger.experiments.workload.MessageRecord;
import io.harbinger.experiments.workload.Regime;
import io.harbinger.experiments.workload.RunRecord;
import io.harbinger.experiments.workload.RunRecords;
import io.harbinger.experiments.workload.Sleeper;
import io.harbinger.experiments.workload.Webhooks;
import io.harbinger.experiments.workload.Workload;
import io.harbinger.experiments.workload.WorkloadConfig;
import io.harbinger.predictor.Ticker;
import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import redis.clients.jedis.Jedis;

/**
 * {@code ./harbinger bench}: runs the production-flow workload through the chosen arms and seeds,
 * writes every run and the analysis.
 *
 * <p>Example: {@code ./harbinger bench --profile quick} runs six arms over seeds 11, 22 and 33 with
 * sleeping handlers at time scale 10 and writes {@code experiments/results/bench/quick-<date>/}:
 * {@code runs/<arm>-seed<seed>/} (run.json and messages.tsv, and for arms that place messages the
 * decision record: decisions.tsv, boundaries.tsv, decisions.svg), summary.json, report.md,
 * charts/*.svg, plan.json and command.txt (the command, git commit, machine facts and seeds).
 *
 * <p>Resuming: the same command with the same {@code --out} again skips every arm x seed run
 * already complete in the directory and analyses all complete runs of the directory together (also
 * those of arms and seeds an earlier invocation ran); see {@link SavedPlan}. Earlier invocations'
 * command.txt go to command-history.txt.
 *
 * <p>Exit codes: 0 when every run completed every message, 1 when RabbitMQ or Redis is unreachable
 * or a run fails, 2 for bad flags, 3 when a run lost or dead-lettered a message (reported loudly,
 * and the analysis is still written).
 *
 * <p>Implementation notes: the original implementation's production-flow benchmark and its gate
 * (seed paper section 4). The rate scale puts the steady phase at 60% of four workers ({@link
 * Calibration}); sleeping handlers are priced with the reference kernel costs (so their durations
 * are the same on every machine), CPU handlers with the kernels measured here. The arm order
 * rotates per seed (offset = seed mod the number of arms) as the original implementation's runner
 * did, so no arm always runs first. Besides each arm's gate against its FIFO baseline, the
 * project's targets for {@code rabbitmq-predictive} are judged as secondary criteria: mean at most
 * -50% and short-class P50 at most -85% against {@code rabbitmq-fifo}, P99 at most 1.25x, export
 * max wait at most 2x, nothing lost, a lower mean than {@code rabbitmq-static-tuned}, and a mean
 * change against FIFO at most 2 points short of {@code rabbitmq-oracle}'s (each when those arms
 * ran).
 */
@Command(
    name = "bench",
    mixinStandardHelpOptions = true,
    description =
        "Run the production-flow benchmark across RabbitMQ, Redis and Harbinger's broker and"
            + " write the runs and the analysis.")
public final class BenchCommand implements Callable<Integer> {

  /** The exit code when a run lost or dead-lettered a message. */
  static final int EXIT_LOST = 3;

  private static final long WARMUP_SEED = 1;

  @Spec private CommandSpec spec;

  @Option(
      names = "--profile",
      description = "smoke, quick or full (default: ${DEFAULT-VALUE}).",
      defaultValue = "quick")
  private String profile;

  @Option(
      names = "--arms",
      split = ",",
      description = "Arms to run (default: the profile's). Known: ${COMPLETION-CANDIDATES}",
      completionCandidates = ArmNames.class)
  private List<String> arms;

  @Option(names = "--seeds", split = ",", description = "Seeds (default: the profile's).")
  private List<Long> seeds;

  @Option(names = "--handlers", description = "cpu or sleep (default: the profile's).")
  private String handlers;

  @Option(
      names = "--time-scale",
      description = "Run compression in [1, 1000]: 10 runs 300 s of arrivals in 30 s.")
  private Double timeScale;

  @Option(
      names = "--arrival-seconds",
      description = "Arrival window before time scaling, in [1, 86400] (default: the profile's).")
  private Double arrivalSeconds;

  @Option(
      names = "--rate-scale",
      description =
          "Multiplier on every arrival rate (default: calibrated to a 60%% steady phase).")
  private Double rateScale;

  @Option(
      names = "--drain-seconds",
      description = "Longest wait for completion after the arrivals (default: the profile's).")
  private Double drainSeconds;

  @Option(
      names = "--webhooks",
      description =
          "What the 2%% slow deliver_webhook attempts (1500 ms) do: failing (the reference: nacked,"
              + " then retried) or succeeding (learned by the predictor). Default: failing.")
  private String webhooks;

  @Option(
      names = "--regime",
      description =
          "What changes in the last 30%% of the arrivals: shift (the reference's cost shift) or"
              + " inversion (the shift, and generate_invoice turns long while send_order_email"
              + " turns short). Default: shift.")
  private String regime;

  @Option(
      names = "--out",
      description = "Output directory (default: experiments/results/bench/<profile>-<date>).")
  private Path out;

  @Option(
      names = "--rabbitmq-uri",
      paramLabel = "AMQP_URI",
      description =
          "The RabbitMQ of the RabbitMQ arms, e.g. amqp://guest:guest@127.0.0.1:5674/%%2F for the"
              + " 4.x broker (default: $RABBITMQ_URI, else the local one on 5672). Use one --out per"
              + " broker: a resumed directory does not check which broker its runs ran on.")
  private String rabbitmqUri;

  @Option(
      names = "--sidecar",
      paramLabel = "HOST:PORT",
      description =
          "A running sidecar for the rabbitmq-sidecar arm to watch, instead of one started for each"
              + " run (default: $HARBINGER_SIDECAR_ADDRESS).")
  private String sidecar;

  @Option(
      names = "--broker",
      paramLabel = "HOST:PORT",
      description =
          "A running Harbinger broker for the one broker arm of the run, instead of one started for"
              + " each run; its policy is the one it was started with (default:"
              + " $HARBINGER_BROKER_ADDRESS).")
  private String broker;

  private final String[] args;
  private final Clock clock;

  BenchCommand(String[] args, Clock clock) {
    this.args = args.clone();
    this.clock = clock;
  }

  /**
   * Runs the command line.
   *
   * @param args the arguments; {@code --help} lists them
   */
  public static void main(String[] args) {
    System.exit(command(args, Clock.systemUTC()).execute(args));
  }

  /**
   * Returns the command line, printing a failure as one line on stderr.
   *
   * @param args the arguments as given (recorded in command.txt)
   * @param clock the clock of the default output directory's date
   * @return the command line
   */
  public static CommandLine command(String[] args, Clock clock) {
    return new CommandLine(new BenchCommand(args, clock))
        .setExecutionExceptionHandler(
            (e, cmd, parsed) -> {
              cmd.getErr().println("bench: " + e.getMessage());
              cmd.getErr().flush();
              return 1;
            });
  }

  /** The plan after the profile's defaults and the flags are merged and checked. */
  record Plan(
      Profile profile,
      List<String> arms,
      List<Long> seeds,
      HandlerMode handlers,
      double arrivalSeconds,
      double rateScale,
      double timeScale,
      Duration drain,
      Webhooks webhooks,
      Regime regime,
      KernelCalibration kernels,
      boolean resumed,
      Path out,
      Endpoints endpoints) {

    /** Returns what every run of the plan shares, as saved beside the runs. */
    SavedPlan saved() {
      return new SavedPlan(
          handlers, arrivalSeconds, rateScale, timeScale, drain, webhooks, regime, kernels);
    }
  }

  Plan plan() {
    return plan(Endpoints.fromEnvironment());
  }

  Plan plan(Endpoints environment) {
    Profile p = Profile.fromWireName(profile);
    List<String> armNames = arms == null ? p.arms() : List.copyOf(new LinkedHashSet<>(arms));
    if (armNames.isEmpty()) {
      throw new IllegalArgumentException("--arms must name at least one arm");
    }
    for (String a : armNames) {
      BenchArms.byName(a);
    }
    Endpoints endpoints = environment.withRabbitMq(rabbitmqUri).withExternal(sidecar, broker);
    if (endpoints.broker().isPresent()) {
      List<String> brokerArms =
          armNames.stream().filter(a -> a.startsWith(BrokerArm.NAME_PREFIX)).toList();
      if (brokerArms.size() > 1) {
        throw new IllegalArgumentException(
            "a running broker (--broker or HARBINGER_BROKER_ADDRESS) serves the one policy it was"
                + " started with: run one broker arm with it, not "
                + String.join(", ", brokerArms));
      }
    }
    List<Long> seedList = seeds == null ? p.seeds() : List.copyOf(new LinkedHashSet<>(seeds));
    if (seedList.isEmpty()) {
      throw new IllegalArgumentException("--seeds must name at least one seed");
    }
    Path dir =
        out != null
            ? out
            : Path.of(
                "experiments",
                "results",
                "bench",
                p.wireName() + "-" + LocalDate.now(clock.withZone(ZoneOffset.UTC)));
    Optional<SavedPlan> saved;
    try {
      saved = SavedPlan.read(dir);
    } catch (IOException e) {
      throw new IllegalArgumentException(
          e.getMessage() + " (delete it to start the directory afresh, or use another --out)");
    }
    HandlerMode mode =
        pick(
            "--handlers",
            handlers == null ? null : HandlerMode.fromWireName(handlers),
            saved.map(SavedPlan::handlers),
            p.handlers(),
            HandlerMode::wireName,
            dir);
    double scale =
        pick(
            "--time-scale", timeScale, saved.map(SavedPlan::timeScale), p.timeScale(), d -> d, dir);
    double arrival =
        pick(
            "--arrival-seconds",
            arrivalSeconds,
            saved.map(SavedPlan::arrivalSeconds),
            p.arrivalSeconds(),
            d -> d,
            dir);
    Duration drain =
        pick(
            "--drain-seconds",
            drainSeconds == null ? null : drainDuration(drainSeconds),
            saved.map(SavedPlan::drain),
            drainDuration(p.drainSeconds()),
            d -> d.toMillis() / 1000.0,
            dir);
    Webhooks variant =
        pick(
            "--webhooks",
            webhooks == null ? null : Webhooks.fromWireName(webhooks),
            saved.map(SavedPlan::webhooks),
            Webhooks.FAILING,
            Webhooks::wireName,
            dir);
    Regime shiftedPhase =
        pick(
            "--regime",
            regime == null ? null : Regime.fromWireName(regime),
            saved.map(SavedPlan::regime),
            Regime.SHIFT,
            Regime::wireName,
            dir);
    KernelCalibration kernels = saved.map(SavedPlan::kernels).orElseGet(() -> kernels(mode));
    Double profileRate = Double.isNaN(p.rateScale()) ? null : p.rateScale();
    double rate =
        pick(
            "--rate-scale",
            rateScale,
            saved.map(SavedPlan::rateScale),
            profileRate == null ? calibratedRateScale(kernels) : profileRate,
            d -> d,
            dir);
    // Checks time scale, arrival window and rate scale with WorkloadConfig's own messages.
    WorkloadConfig check =
        new WorkloadConfig(seedList.get(0), arrival, rate, scale, variant, shiftedPhase);
    return new Plan(
        p,
        armNames,
        seedList,
        mode,
        check.arrivalSeconds(),
        check.rateScale(),
        check.timeScale(),
        drain,
        variant,
        shiftedPhase,
        kernels,
        saved.isPresent(),
        dir,
        endpoints);
  }

  private static Duration drainDuration(double seconds) {
    if (!(seconds > 0 && seconds <= 86_400)) {
      throw new IllegalArgumentException("--drain-seconds must be in (0, 86400]: " + seconds);
    }
    return Duration.ofMillis(Math.round(seconds * 1000));
  }

  /**
   * Returns a setting: the flag if given, else the saved plan's, else the profile's; a flag that
   * contradicts the saved plan is refused, since one directory must hold runs of one plan.
   */
  private static <T> T pick(
      String flag,
      T given,
      Optional<T> saved,
      T profileDefault,
      java.util.function.Function<T, Object> shown,
      Path dir) {
    if (given != null && saved.isPresent() && !given.equals(saved.get())) {
      throw new IllegalArgumentException(
          flag
              + " "
              + shown.apply(given)
              + " differs from the "
              + shown.apply(saved.get())
              + " of the runs already in "
              + dir
              + ": resume with the same settings, or use another --out");
    }
    return given != null ? given : saved.orElse(profileDefault);
  }

  /**
   * Returns the warm-up workload: every arm runs it once, unrecorded, before the measured runs, so
   * that no measured run pays for class loading and JIT compilation (the first broker run of a cold
   * JVM is much slower than a warm one).
   *
   * @param plan the plan
   * @return seed 1, 10 s of arrivals at rate scale 0.5, at the plan's time scale
   */
  static WorkloadConfig warmupConfig(Plan plan) {
    return new WorkloadConfig(
        WARMUP_SEED, 10, 0.5, plan.timeScale(), plan.webhooks(), plan.regime());
  }

  private static double calibratedRateScale(KernelCalibration kernels) {
    return Calibration.compute(kernels, BenchRunner.WORKERS, cores(), Calibration.STEADY_TARGET)
        .rateScale();
  }

  private static KernelCalibration kernels(HandlerMode mode) {
    return mode == HandlerMode.SLEEP
        ? KernelCalibration.REFERENCE
        : KernelCalibration.measure(Ticker.SYSTEM);
  }

  private static int cores() {
    return Runtime.getRuntime().availableProcessors();
  }

  @Override
  public Integer call() throws Exception {
    PrintWriter err = spec.commandLine().getErr();
    PrintWriter outWriter = spec.commandLine().getOut();
    Plan plan;
    try {
      plan = plan();
    } catch (IllegalArgumentException e) {
      err.println("bench: " + e.getMessage());
      err.flush();
      return CommandLine.ExitCode.USAGE;
    }
    Endpoints endpoints = plan.endpoints();
    BackendVersions versions;
    try {
      versions = probe(plan.arms(), endpoints);
    } catch (BackendUnavailable e) {
      err.println("bench: " + e.getMessage());
      err.flush();
      return 1;
    }
    KernelCalibration kernels = plan.kernels();
    Path runsDir = plan.out().resolve("runs");
    Files.createDirectories(runsDir);
    String started = clock.instant().toString();
    // The code that runs is the code at the start: a commit made during a long run must not be
    // named.
    String commit = gitCommit();
    SavedPlan saved = plan.saved();
    if (plan.resumed()) {
      SavedPlan.keepHistory(plan.out());
    }
    saved.write(plan.out());
    List<Workload> workloads = new ArrayList<>();
    List<String> pending = new ArrayList<>();
    Map<String, RunRecord> complete = new TreeMap<>();
    for (long seed : plan.seeds()) {
      Workload workload = Workload.generate(saved.workload(seed), kernels);
      workloads.add(workload);
      for (String name : plan.arms()) {
        String run = name + "-seed" + seed;
        Optional<RunRecord> done =
            saved.completeRun(runsDir.resolve(run), seed, workload.jobs().size());
        if (done.isPresent()) {
          complete.put(run, done.get());
        } else {
          pending.add(run);
        }
      }
    }
    if (plan.resumed() || !complete.isEmpty()) {
      outWriter.printf(
          "bench: resuming %s: %d of %d runs already complete, %d to run%n",
          plan.out(), complete.size(), complete.size() + pending.size(), pending.size());
      outWriter.flush();
    }
    Set<String> reused = new java.util.TreeSet<>(complete.keySet());
    writeCommandFile(plan, versions, kernels, commit, started, null, reused);
    BenchRunner runner =
        new BenchRunner(Ticker.SYSTEM, Sleeper.SYSTEM, plan.drain(), progressStream());
    WorkloadConfig warmup = warmupConfig(plan);
    for (String name : plan.arms()) {
      if (pending.stream().anyMatch(r -> r.startsWith(name + "-seed"))) {
        runner.run(
            BenchArms.byName(name), Workload.generate(warmup, kernels), plan.handlers(), endpoints);
      }
    }
    List<String> losses = new ArrayList<>();
    for (int s = 0; s < plan.seeds().size(); s++) {
      long seed = plan.seeds().get(s);
      Workload workload = workloads.get(s);
      int offset = (int) Math.floorMod(seed, (long) plan.arms().size());
      for (int i = 0; i < plan.arms().size(); i++) {
        BenchArm arm = BenchArms.byName(plan.arms().get((i + offset) % plan.arms().size()));
        String runName = arm.name() + "-seed" + seed;
        if (complete.containsKey(runName)) {
          continue;
        }
        RunRecord run = withCommit(runner.run(arm, workload, plan.handlers(), endpoints), commit);
        Path runDir = runsDir.resolve(runName);
        if (arm.decisions().isPresent()) {
          arm.decisions().get().write(runDir, arm.name() + " seed " + seed);
        }
        // The decisions first: RunRecords writes messages.tsv last and reading checks its rows, so
        // a
        // run cut off while writing is not complete and runs again.
        RunRecords.write(runDir, run);
        complete.put(runName, run);
        long notCompleted = run.messages().stream().filter(m -> !m.completed()).count();
        long lost =
            run.messages().stream()
                .filter(m -> m.outcome() == MessageRecord.Disposition.LOST)
                .count();
        if (notCompleted > 0 || run.submitErrors() > 0) {
          String loss =
              String.format(
                  Locale.ROOT,
                  "%s seed %d: %d of %d messages LOST, %d dead-lettered, %d submit errors",
                  arm.name(),
                  seed,
                  lost,
                  run.messages().size(),
                  notCompleted - lost,
                  run.submitErrors());
          losses.add(loss);
          err.println("bench: !!! " + loss + " !!!");
          err.flush();
        }
      }
    }
    // Every complete run of this plan in the directory, also of arms and seeds not asked for now.
    Set<String> analysedArms = new LinkedHashSet<>(plan.arms());
    for (Path dir : listRunDirs(runsDir)) {
      String runName = dir.getFileName().toString();
      int at = runName.lastIndexOf("-seed");
      if (complete.containsKey(runName) || at < 1) {
        continue;
      }
      String armName = runName.substring(0, at);
      long seed;
      try {
        seed = Long.parseLong(runName.substring(at + "-seed".length()));
        BenchArms.byName(armName);
      } catch (IllegalArgumentException e) {
        continue;
      }
      int messages = Workload.generate(saved.workload(seed), kernels).jobs().size();
      Optional<RunRecord> other = saved.completeRun(dir, seed, messages);
      if (other.isPresent()) {
        complete.put(runName, other.get());
        analysedArms.add(armName);
      }
    }
    List<RunRecord> runs = new ArrayList<>(complete.values());
    Analysis report =
        Analysis.analyse(
            runs, PercentileBootstrap.defaults(), projectTargets(List.copyOf(analysedArms)));
    ReportFormat.writeAll(report, plan.out());
    writeCommandFile(plan, versions, kernels, commit, started, clock.instant().toString(), reused);
    outWriter.printf(
        "wrote %d runs of %d arms to %s%n", runs.size(), analysedArms.size(), plan.out());
    for (String arm : report.arms()) {
      GateResult gate = report.gate(arm);
      if (gate != null) {
        outWriter.printf(
            Locale.ROOT,
            "%s vs %s: mean %.0f ms vs %.0f ms, gate %s%n",
            arm,
            report.baseline(arm),
            report.median(arm, RunMetrics.MEAN_MS),
            report.median(report.baseline(arm), RunMetrics.MEAN_MS),
            gate.passed() ? "PASSED" : "NOT PASSED");
      }
    }
    GateResult targets = report.secondary();
    if (targets != null) {
      outWriter.printf(
          "project targets for %s: %s%n",
          Gates.TARGET_ARM, targets.passed() ? "PASSED" : "NOT PASSED");
    }
    outWriter.flush();
    if (!losses.isEmpty()) {
      err.println("bench: " + losses.size() + " run(s) did not complete every message:");
      losses.forEach(l -> err.println("bench:   " + l));
      err.flush();
      return EXIT_LOST;
    }
    return 0;
  }

  /**
   * Returns the project's targets for the adapter's arms, for the arms present.
   *
   * @param arms the arms of the run
   * @return the criteria ({@link Gates#targets})
   */
  static List<Criterion> projectTargets(List<String> arms) {
    return Gates.targets(arms);
  }

  /** RabbitMQ's and Redis's versions, or null for those not needed. */
  record BackendVersions(String rabbitmq, String redis) {}

  /**
   * Checks that the brokers the arms need answer, and reads their versions.
   *
   * @param arms the arm names
   * @param endpoints where RabbitMQ and Redis are
   * @return the versions, null for a broker no arm needs
   * @throws BackendUnavailable naming the broker, its URI and how to start it
   */

  /** A broker the plan needs cannot be reached. */
  static final class BackendUnavailable extends Exception {
    private static final long serialVersionUID = 1L;

    BackendUnavailable(String message) {
      super(message);
    }
  }

  static BackendVersions probe(List<String> arms, Endpoints endpoints) throws BackendUnavailable {
    boolean rabbit = false;
    boolean redis = false;
    for (String name : arms) {
      BenchArm.Backend b = BenchArms.byName(name).backend();
      rabbit |= b == BenchArm.Backend.RABBITMQ;
      redis |= b == BenchArm.Backend.REDIS;
    }
    String rabbitVersion = null;
    String redisVersion = null;
    if (rabbit) {
      try {
        ConnectionFactory factory = endpoints.rabbitFactory();
        try (Connection c = factory.newConnection("harbinger-bench-probe")) {
          rabbitVersion = String.valueOf(c.getServerProperties().get("version"));
        }
      } catch (Exception e) {
        throw new BackendUnavailable(
            "RabbitMQ is not reachable at "
                + Endpoints.redacted(endpoints.rabbitmq())
                + " ("
                + e
                + "); start it with `rabbitmq-server -detached` or set RABBITMQ_URI (and"
                + " RABBITMQ_USERNAME, RABBITMQ_PASSWORD)");
      }
    }
    if (redis) {
      try (Jedis jedis = new Jedis(endpoints.redis())) {
        redisVersion = RedisFifoArm.version(jedis.info("server"));
      } catch (Exception e) {
        throw new BackendUnavailable(
            "Redis is not reachable at "
                + endpoints.redis()
                + " ("
                + e
                + "); start it with `redis-server --daemonize yes --bind 127.0.0.1` or set"
                + " REDIS_URI");
      }
    }
    if (endpoints.sidecar().isPresent() && arms.contains(RabbitArm.SIDECAR_ARM)) {
      String problem = RabbitArm.probeSidecar(endpoints.sidecar().get());
      if (problem != null) {
        throw new BackendUnavailable(
            "the sidecar is not serving at "
                + endpoints.sidecar().get()
                + " ("
                + problem
                + "); start it (./harbinger sidecar, or the compose service sidecar) or unset"
                + " --sidecar and HARBINGER_SIDECAR_ADDRESS to start one for each run");
      }
    }
    if (endpoints.broker().isPresent()
        && arms.stream().anyMatch(a -> a.startsWith(BrokerArm.NAME_PREFIX))) {
      String problem = BrokerArm.probe(endpoints.broker().get());
      if (problem != null) {
        throw new BackendUnavailable(
            "the Harbinger broker is not serving at "
                + endpoints.broker().get()
                + " ("
                + problem
                + "); start it (./harbinger broker, or the compose service broker) or unset"
                + " --broker and HARBINGER_BROKER_ADDRESS to start one for each run");
      }
    }
    return new BackendVersions(rabbitVersion, redisVersion);
  }

  private void writeCommandFile(
      Plan plan,
      BackendVersions versions,
      KernelCalibration kernels,
      String commit,
      String started,
      String finished,
      Set<String> reused)
      throws IOException {
    StringBuilder b = new StringBuilder();
    b.append("command: ./harbinger bench");
    for (String a : args) {
      b.append(' ').append(a.matches("[A-Za-z0-9_.,:/=-]+") ? a : "'" + a + "'");
    }
    b.append('\n');
    b.append("git_commit: ").append(commit).append('\n');
    b.append("started: ").append(started).append('\n');
    b.append("finished: ").append(finished == null ? "(running)" : finished).append('\n');
    b.append("profile: ").append(plan.profile().wireName()).append('\n');
    b.append("arms: ").append(String.join(",", plan.arms())).append('\n');
    b.append("seeds: ")
        .append(String.join(",", plan.seeds().stream().map(String::valueOf).toList()))
        .append('\n');
    b.append("handlers: ").append(plan.handlers().wireName()).append('\n');
    b.append("webhooks: ").append(plan.webhooks().wireName()).append('\n');
    b.append("regime: ").append(plan.regime().wireName()).append('\n');
    b.append(String.format(Locale.ROOT, "arrival_seconds: %.1f%n", plan.arrivalSeconds()));
    b.append(String.format(Locale.ROOT, "rate_scale: %.4f%n", plan.rateScale()));
    b.append(String.format(Locale.ROOT, "time_scale: %.2f%n", plan.timeScale()));
    b.append("drain: ").append(plan.drain()).append('\n');
    b.append("warmup: every arm with a run to do, once, unrecorded: ")
        .append(warmupConfig(plan))
        .append('\n');
    if (!reused.isEmpty()) {
      b.append("reused_runs: ")
          .append(String.join(",", reused))
          .append(" (complete from an earlier invocation, see ")
          .append(SavedPlan.HISTORY_FILE)
          .append("; each run.json names its git_commit)\n");
    }
    b.append("workers: ").append(BenchRunner.WORKERS).append(", prefetch 1\n");
    b.append("kernels: ").append(kernels).append('\n');
    b.append("cores: ").append(cores()).append('\n');
    b.append("jvm: ")
        .append(System.getProperty("java.vm.name"))
        .append(' ')
        .append(System.getProperty("java.runtime.version"))
        .append('\n');
    b.append("os: ")
        .append(System.getProperty("os.name"))
        .append(' ')
        .append(System.getProperty("os.version"))
        .append(' ')
        .append(System.getProperty("os.arch"))
        .append('\n');
    b.append(
        String.format(
            Locale.ROOT,
            "load_average_1m: %.2f%n",
            ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage()));
    b.append("max_heap_mb: ").append(Runtime.getRuntime().maxMemory() >> 20).append('\n');
    b.append("rabbitmq: ").append(versions.rabbitmq() == null ? "(not used)" : versions.rabbitmq());
    b.append('\n');
    b.append("redis: ").append(versions.redis() == null ? "(not used)" : versions.redis());
    b.append('\n');
    b.append("sidecar: ")
        .append(
            plan.endpoints()
                .sidecar()
                .map(
                    a ->
                        "running at "
                            + a
                            + ", learning from "
                            + plan.endpoints().sidecarReportsExchange())
                .orElse("started for each run"))
        .append('\n');
    b.append("broker: ")
        .append(
            plan.endpoints().broker().map(a -> "running at " + a).orElse("started for each run"))
        .append('\n');
    Files.createDirectories(plan.out());
    Files.writeString(plan.out().resolve("command.txt"), b.toString(), StandardCharsets.UTF_8);
  }

  private static RunRecord withCommit(RunRecord run, String commit) {
    Map<String, String> attributes = new TreeMap<>(run.attributes());
    attributes.put("git_commit", commit);
    return new RunRecord(
        run.arm(),
        run.seed(),
        run.handlers(),
        run.config(),
        run.submitErrors(),
        attributes,
        run.messages());
  }

  private static List<Path> listRunDirs(Path runsDir) throws IOException {
    try (var dirs = Files.list(runsDir)) {
      return dirs.filter(Files::isDirectory).sorted().toList();
    }
  }

  private static String gitCommit() {
    try {
      Process p = new ProcessBuilder("git", "rev-parse", "HEAD").redirectErrorStream(true).start();
      String commit = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
      if (!p.waitFor(10, TimeUnit.SECONDS) || p.exitValue() != 0) {
        return "unknown";
      }
      Process s =
          new ProcessBuilder("git", "status", "--porcelain", "--untracked-files=no")
              .redirectErrorStream(true)
              .start();
      String status = new String(s.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
      s.waitFor(10, TimeUnit.SECONDS);
      return status.isEmpty() ? commit : commit + " (with uncommitted changes)";
    } catch (IOException e) {
      return "unknown";
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "unknown";
    }
  }

  private static PrintStream progressStream() {
    return System.err;
  }

  /** The arm names, for picocli's help. */
  static final class ArmNames implements Iterable<String> {
    @Override
    public java.util.Iterator<String> iterator() {
      return BenchArms.names().iterator();
    }
  }
}
