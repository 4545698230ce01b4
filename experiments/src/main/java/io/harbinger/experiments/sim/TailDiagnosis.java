package io.harbinger.experiments.sim;

import io.harbinger.broker.ArmDefinition;
import io.harbinger.broker.Arms;
import io.harbinger.experiments.trace.Trace;
import io.harbinger.experiments.trace.TraceException;
import io.harbinger.experiments.trace.TraceFormat;
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
 * "swf:../shared/traces/LPC-EGEE-2004-1.2-cln.swf.gz?key=user-queue" 0.8 budget
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
   * Runs the diagnosis.
   *
   * @param args the trace, the load, the predictor profile and one or more simulator arms
   */
  public static void main(String[] args) {
    PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
    if (args.length < 4) {
      System.err.println("usage: TailDiagnosis TRACE LOAD PROFILE ARM...");
      System.exit(2);
    }
    double load;
    PredictorProfile profile;
    try {
      load = Double.parseDouble(args[1]);
      if (!(load > 0 && load <= 1.5)) {
        throw new IllegalArgumentException("load must be in (0, 1.5]: " + args[1]);
      }
      profile = PredictorProfile.of(args[2]);
      for (int i = 3; i < args.length; i++) {
        Arms.simulated(args[i]);
      }
    } catch (IllegalArgumentException e) {
      System.err.println("TailDiagnosis: " + e.getMessage());
      System.exit(2);
      return;
    }
    Trace trace;
    try {
      trace = TraceFormat.read(args[0]);
    } catch (TraceException e) {
      System.err.println("TailDiagnosis: " + e.getMessage());
      System.exit(1);
      return;
    }
    SimInput input = SimInput.atLoad(trace, trace.size() / 2, WORKERS, load);
    SimRun fifo = Simulator.run(input, Arms.simulated("fifo"), SEED, profile.config());
    int n = fifo.jobs();
    double[] fifoLatency = new double[n];
    for (int j = 0; j < n; j++) {
      fifoLatency[j] = fifo.latencyNanos(j);
    }
    double[] sorted = fifoLatency.clone();
    Arrays.sort(sorted);
    double fifoP99 = NearestRank.of(sorted, 99);
    out.printf(
        Locale.ROOT,
        "# Tail diagnosis: %s at load %.2f, profile %s%n%nFIFO P99 latency %s; victims are the"
            + " jobs whose latency exceeds it.%n",
        args[0],
        load,
        profile.label(),
        hours(fifoP99));
    for (int i = 3; i < args.length; i++) {
      ArmDefinition arm = Arms.simulated(args[i]);
      SimRun run = Simulator.run(input, arm, SEED, profile.config());
      report(out, run, fifo, fifoP99);
    }
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
        hours(NearestRank.of(latency, 99)),
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
          hours(wait[l] / jobs[l]),
          hours(fifoWait[l] / jobs[l]),
          victims[l],
          victimsEstimated[l],
          victims[l] == 0 ? "-" : hours(victimWait[l] / victims[l]),
          victims[l] == 0 ? "-" : hours(victimFifoWait[l] / victims[l]),
          victims[l] == 0 ? "-" : hours(victimDuration[l] / victims[l]));
    }
  }

  private static String hours(double nanos) {
    return String.format(Locale.ROOT, "%.2f h", nanos / 3.6e12);
  }
}
