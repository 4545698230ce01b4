package io.harbinger.experiments.sim;

import io.harbinger.check.sim.SimInput;
import io.harbinger.check.sim.SimRun;
import io.harbinger.check.sim.SimulatedArm;
import io.harbinger.check.sim.Simulator;
import io.harbinger.check.trace.Trace;
import io.harbinger.check.trace.TraceException;
import io.harbinger.check.trace.TraceFormat;
import io.harbinger.predictor.NearestRank;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Locale;

/**
 * Where an arm's tail comes from: which routed level and which kind of job holds the jobs whose
 * latency exceeds FIFO's P99, in one trace replay.
 *
 * <p>Usage: {@code TailDiagnosis TRACE LOAD PROFILE ARM...}, for example {@code TailDiagnosis
 * "swf:../shared/traces/LPC-EGEE-2004-1.2-cln.swf.gz?key=user-queue" 0.8 defaults
 * predictive_warm+no_aging oracle+no_aging}. The set-up is {@code simulate}'s: the first half of
 * the jobs is the history, the second half is replayed on 64 workers at the load, seed 2026.
 *
 * <p>For each arm and each level a job was routed to on arrival it prints the share of the jobs and
 * of the work (actual durations), the share routed with an estimate, the mean wait beside the same
 * jobs' mean wait under FIFO, and how many of the jobs past FIFO's P99 latency sit there
 * ("victims"), with their mean wait under the arm and under FIFO. Diagnostic only: nothing in the
 * product or the targets reads it.
 */
public final class TailDiagnosis {

  private static final int WORKERS = 64;
  private static final long SEED = 2026;

  private TailDiagnosis() {}

  /**
   * Runs the diagnosis and exits with {@link #run}'s code.
   *
   * @param args the trace, the load, the predictor profile and one or more simulator arms
   */
  public static void main(String[] args) {
    int code =
        run(
            args,
            new PrintStream(System.out, true, StandardCharsets.UTF_8),
            new PrintStream(System.err, true, StandardCharsets.UTF_8));
    if (code != 0) {
      System.exit(code);
    }
  }

  /**
   * Runs the diagnosis.
   *
   * @param args the trace, the load, the predictor profile and one or more simulator arms
   * @param out where the tables go
   * @param err where a problem with the arguments or the trace is named
   * @return 0, 2 for bad arguments, 1 for a trace that cannot be read
   */
  static int run(String[] args, PrintStream out, PrintStream err) {
    if (args.length < 4) {
      err.println("usage: TailDiagnosis TRACE LOAD PROFILE ARM...");
      return 2;
    }
    double load;
    PredictorChoice profile;
    try {
      load = parseLoad(args[1]);
      profile = PredictorChoice.parse(args[2]);
      for (int i = 3; i < args.length; i++) {
        SimulatedArm.parse(args[i]);
      }
    } catch (IllegalArgumentException e) {
      err.println("TailDiagnosis: " + e.getMessage());
      return 2;
    }
    Trace trace;
    SimInput input;
    try {
      trace = TraceFormat.read(args[0]);
      input = SimInput.atLoad(trace, trace.size() / 2, WORKERS, load);
    } catch (TraceException | IllegalArgumentException e) {
      err.println("TailDiagnosis: " + args[0] + ": " + e.getMessage());
      return 1;
    }
    SimRun fifo =
        Simulator.run(input, SimulatedArm.parse("fifo"), SEED, Simulations.predictors(profile));
    int n = fifo.jobs();
    double[] sorted = new double[n];
    for (int j = 0; j < n; j++) {
      sorted[j] = fifo.latencyNanos(j);
    }
    Arrays.sort(sorted);
    double fifoP99 = NearestRank.of(sorted, 99);
    out.printf(
        Locale.ROOT,
        "# Tail diagnosis: %s at load %.2f, profile %s%n%nFIFO P99 latency %s; victims are the"
            + " jobs whose latency exceeds it.%n",
        args[0],
        load,
        profile.label(),
        time(fifoP99));
    for (int i = 3; i < args.length; i++) {
      SimulatedArm arm = SimulatedArm.parse(args[i]);
      SimRun run = Simulator.run(input, arm, SEED, Simulations.predictors(profile));
      report(out, run, fifo, fifoP99);
    }
    out.flush();
    return 0;
  }

  private static double parseLoad(String text) {
    double load;
    try {
      load = Double.parseDouble(text.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("load must be a number in (0, 1.5]: " + text);
    }
    if (!(load > 0 && load <= 1.5)) {
      throw new IllegalArgumentException("load must be in (0, 1.5]: " + text);
    }
    return load;
  }

  private static void report(PrintStream out, SimRun run, SimRun fifo, double fifoP99) {
    int n = run.jobs();
    int levels = Simulator.LEVELS;
    long[] jobs = new long[levels];
    double[] work = new double[levels];
    long[] estimated = new long[levels];
    double[] wait = new double[levels];
    double[] fifoWait = new double[levels];
    long[] victims = new long[levels];
    long[] victimsEstimated = new long[levels];
    double[] victimWait = new double[levels];
    double[] victimFifoWait = new double[levels];
    double[] victimDuration = new double[levels];
    double totalWork = 0;
    double[] latency = new double[n];
    for (int j = 0; j < n; j++) {
      int l = run.routedLevel(j);
      double d = run.input().durationNanos(j);
      jobs[l]++;
      work[l] += d;
      totalWork += d;
      wait[l] += run.waitNanos(j);
      fifoWait[l] += fifo.waitNanos(j);
      if (run.hadEstimate(j)) {
        estimated[l]++;
      }
      latency[j] = run.latencyNanos(j);
      if (latency[j] > fifoP99) {
        victims[l]++;
        victimWait[l] += run.waitNanos(j);
        victimFifoWait[l] += fifo.waitNanos(j);
        victimDuration[l] += d;
        if (run.hadEstimate(j)) {
          victimsEstimated[l]++;
        }
      }
    }
    Arrays.sort(latency);
    long allVictims = Arrays.stream(victims).sum();
    out.printf(
        Locale.ROOT,
        "%n## %s%n%nP99 %s (%.2fx FIFO's); %d victims (%.2f%% of the jobs).%n%n",
        run.arm().name(),
        time(NearestRank.of(latency, 99)),
        NearestRank.of(latency, 99) / fifoP99,
        allVictims,
        100.0 * allVictims / n);
    out.println(
        "| routed level | jobs | work | with an estimate | mean wait | same jobs under FIFO | victims | victims with an"
            + " estimate | victims' mean wait | same jobs under FIFO | victims' mean duration |");
    out.println("|---|---|---|---|---|---|---|---|---|---|---|");
    for (int l = 0; l < levels; l++) {
      if (jobs[l] == 0) {
        continue;
      }
      out.printf(
          Locale.ROOT,
          "| %d | %.1f%% | %.1f%% | %.1f%% | %s | %s | %d | %d | %s | %s | %s |%n",
          l,
          100.0 * jobs[l] / n,
          100.0 * work[l] / totalWork,
          100.0 * estimated[l] / jobs[l],
          time(wait[l] / jobs[l]),
          time(fifoWait[l] / jobs[l]),
          victims[l],
          victimsEstimated[l],
          victims[l] == 0 ? "-" : time(victimWait[l] / victims[l]),
          victims[l] == 0 ? "-" : time(victimFifoWait[l] / victims[l]),
          victims[l] == 0 ? "-" : time(victimDuration[l] / victims[l]));
    }
  }

  private static String time(double nanos) {
    return SimulationFormat.millis(nanos / 1e6);
  }
}
