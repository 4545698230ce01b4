package io.harbinger.experiments.sim;

import io.harbinger.check.sim.SimInput;
import io.harbinger.check.sim.SimRun;
import io.harbinger.check.sim.SimulatedArm;
import io.harbinger.check.sim.Simulator;
import io.harbinger.check.trace.ReadReport;
import io.harbinger.check.trace.Trace;
import io.harbinger.check.trace.TraceBuilder;
import io.harbinger.experiments.workload.MessageRecord;
import io.harbinger.experiments.workload.RunRecord;
import io.harbinger.experiments.workload.RunRecords;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Simulates the arrivals and handler durations of recorded wall-clock runs and compares the
 * simulated change in mean latency with the measured one: how far the simulator's answer is from
 * the real broker's (seed paper section 5.6 found its simulator overstated the gain by about 41%
 * with CPU-burning handlers).
 *
 * <p>For each seed with both runs under {@code BENCH/runs/}, the baseline run's completed messages
 * become a trace (arrival = submit time, duration = the handler time of the successful attempt, key
 * = job type), which the simulator replays on the same number of workers at the trace's own load
 * with a simulated baseline arm and a simulated treatment arm. RabbitMQ has no aging, so the
 * default treatment is {@code predictive_cold+no_aging} against {@code fifo}. A failed first
 * attempt's time is not in the trace, so the simulated work is slightly less than the real.
 *
 * <p>Run: {@code java -cp "experiments/target/classes:$(cat experiments/target/classpath.txt)"
 * io.harbinger.experiments.sim.SimulatorGap --bench experiments/results/bench/quick-2026-11-29}.
 */
@Command(
    name = "simulator-gap",
    mixinStandardHelpOptions = true,
    description = "Compares simulated and measured mean-latency changes on recorded bench runs.")
public final class SimulatorGap implements Callable<Integer> {

  @Option(
      names = "--bench",
      required = true,
      paramLabel = "DIR",
      description = "A bench output directory.")
  Path bench;

  @Option(
      names = "--baseline",
      defaultValue = "rabbitmq-fifo",
      description = "Measured baseline arm.")
  String baseline;

  @Option(
      names = "--arm",
      defaultValue = "rabbitmq-predictive",
      description = "Measured treatment arm.")
  String arm;

  @Option(
      names = "--sim-arm",
      defaultValue = "predictive_cold+no_aging",
      description = "Simulated treatment arm (the baseline is fifo).")
  String simArm;

  @Option(
      names = "--workers",
      defaultValue = "4",
      description = "Workers; default ${DEFAULT-VALUE}.")
  int workers;

  @Override
  public Integer call() throws IOException {
    SimulatedArm treatment = SimulatedArm.parse(simArm);
    Path runs = bench.resolve("runs");
    List<String> rows = new ArrayList<>();
    double sumMeasured = 0;
    double sumSimulated = 0;
    int n = 0;
    try (var dirs = Files.list(runs)) {
      for (Path dir : dirs.sorted().toList()) {
        String name = dir.getFileName().toString();
        if (!name.startsWith(baseline + "-seed")) {
          continue;
        }
        String seed = name.substring((baseline + "-seed").length());
        Path treated = runs.resolve(arm + "-seed" + seed);
        if (!Files.isDirectory(treated)) {
          continue;
        }
        RunRecord base = RunRecords.read(dir);
        RunRecord measuredArm = RunRecords.read(treated);
        double measured = meanLatency(measuredArm) / meanLatency(base) - 1;
        SimInput input = SimInput.atOwnLoad(trace(base), 1, workers);
        SimRun fifo = Simulator.run(input, SimulatedArm.parse("fifo"), Long.parseLong(seed));
        SimRun sim = Simulator.run(input, treatment, Long.parseLong(seed));
        double simulated = meanLatency(sim) / meanLatency(fifo) - 1;
        rows.add(
            String.format(
                Locale.ROOT,
                "| %s | %.1f%% | %.1f%% | %+.1f points | %.2fx |",
                seed,
                100 * measured,
                100 * simulated,
                100 * (simulated - measured),
                simulated / measured));
        sumMeasured += measured;
        sumSimulated += simulated;
        n++;
      }
    }
    if (n == 0) {
      System.err.println(
          "no seed has both "
              + baseline
              + " and "
              + arm
              + " runs under "
              + runs
              + " (with messages.tsv)");
      return 1;
    }
    System.out.printf(
        "Mean latency of %s against %s, measured on the brokers and simulated (%s against fifo, %d workers):%n%n",
        arm, baseline, simArm, workers);
    System.out.println(
        "| seed | measured | simulated | simulated - measured | simulated / measured |");
    System.out.println("|---|---|---|---|---|");
    rows.forEach(System.out::println);
    System.out.printf(
        Locale.ROOT,
        "| mean | %.1f%% | %.1f%% | %+.1f points | %.2fx |%n",
        100 * sumMeasured / n,
        100 * sumSimulated / n,
        100 * (sumSimulated - sumMeasured) / n,
        sumSimulated / sumMeasured);
    return 0;
  }

  static Trace trace(RunRecord run) {
    List<MessageRecord> done =
        run.messages().stream()
            .filter(MessageRecord::completed)
            .sorted(Comparator.comparingLong(MessageRecord::submitNanos))
            .toList();
    long origin = done.get(0).submitNanos();
    TraceBuilder b = new TraceBuilder(run.arm() + "-seed" + run.seed(), 1);
    for (MessageRecord m : done) {
      b.add(m.submitNanos() - origin, Math.round(m.handlerMillis() * 1e6), m.jobType().name(), -1);
    }
    return b.build(
        new ReadReport(run.arm(), done.size(), done.size(), List.of(), List.of(), List.of()));
  }

  private static double meanLatency(RunRecord run) {
    return run.messages().stream()
        .filter(MessageRecord::completed)
        .mapToLong(m -> m.endNanos() - m.submitNanos())
        .average()
        .orElse(Double.NaN);
  }

  private static double meanLatency(SimRun run) {
    double sum = 0;
    for (int i = 0; i < run.jobs(); i++) {
      sum += run.latencyNanos(i);
    }
    return sum / run.jobs();
  }

  /**
   * Runs the comparison.
   *
   * @param args the command line
   */
  public static void main(String[] args) {
    System.exit(new CommandLine(new SimulatorGap()).execute(args));
  }
}
