package io.harbinger.experiments.sim;

import io.harbinger.check.sim.SimInput;
import io.harbinger.check.sim.SimulatedArm;
import io.harbinger.check.trace.Trace;
import io.harbinger.check.trace.TraceException;
import io.harbinger.check.trace.TraceFormat;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code harbinger simulate TRACE}: replays a trace's second half through the discrete-event
 * simulator for several arms and loads, and judges the simulation gates.
 *
 * <p>Example: {@code simulate swf:traces/CTC-SP2-1996-3.1-cln.swf.gz --load 0.5,0.8,0.95 --out
 * results/sim/ctc-sp2}. Exit codes: 0 when the simulation ran (whatever the gates say), 1 when the
 * trace cannot be read or is too short, or the output cannot be written, 2 for bad arguments.
 */
@Command(
    name = "simulate",
    sortOptions = false,
    description = {
      "Replays the held-out half of a trace through the discrete-event simulator (non-preemptive"
          + " workers, Harbinger's levels, aging and predictor on simulated time) for each arm"
          + " at each offered load, and judges gates A and B against FIFO.",
      "",
      "TRACE is format:path[?option=value,...] with format one of swf, azure2021, alibaba2026,"
          + " csv, synthetic. Arms: fifo, static_history, static_hindsight, static_random, oracle,"
          + " predictive_cold, predictive_warm, each with optional +weights, +pausing, +following, +no_aging."
    },
    exitCodeOnExecutionException = 1)
public final class SimulateCommand implements Callable<Integer> {

  /** The arms simulated when {@code --arms} is not given. */
  static final String DEFAULT_ARMS =
      "fifo,static_history,static_random,oracle,predictive_cold,predictive_warm,"
          + "predictive_warm+weights+pausing,oracle+weights+pausing,"
          + "predictive_warm+no_aging,oracle+no_aging";

  @Spec private CommandSpec spec;

  @Parameters(index = "0", paramLabel = "TRACE", description = "the trace, as format:path")
  private String traceSpec;

  @Option(
      names = "--load",
      split = ",",
      defaultValue = "0.5,0.8,0.95",
      description =
          "offered loads of the evaluation half, each in (0, 1.5] (default ${DEFAULT-VALUE})")
  private List<Double> loads;

  @Option(
      names = "--arms",
      split = ",",
      defaultValue = DEFAULT_ARMS,
      description = "arms to simulate; fifo is always added (default ${DEFAULT-VALUE})")
  private List<String> armNames;

  @Option(
      names = "--workers",
      defaultValue = "64",
      description = "non-preemptive workers, in [1, 100000] (default ${DEFAULT-VALUE})")
  private int workers;

  @Option(
      names = "--history-fraction",
      defaultValue = "0.5",
      description =
          "share of jobs, by arrival, that form the history, in (0, 1) (default ${DEFAULT-VALUE})")
  private double historyFraction;

  @Option(
      names = "--predictors",
      split = ",",
      defaultValue = "defaults",
      description =
          "predictor profiles, named for what they contain: the product's, seed paper Table 1"
              + " without the defaults' departures, the few-observation settings, and the defaults"
              + " with one departure undone each (defaults, table1, few_observations,"
              + " without_size_borrowing, without_producer_borrowing, with_clock_forgetting,"
              + " without_tail_budget, without_shift_run, untrusted_at_default_level,"
              + " without_safeguards, without_demotion), each optionally followed by"
              + " :NAME=VALUE overrides ("
              + PredictorOverrides.NAMES
              + "): predictive arms run under each; the first keeps the arm names, the others are"
              + " named ARM@PROFILE[:NAME=VALUE...] (default ${DEFAULT-VALUE})")
  private List<String> predictorNames;

  @Option(
      names = "--seed",
      defaultValue = "2026",
      description = "seed of static_random (default ${DEFAULT-VALUE})")
  private long seed;

  @Option(
      names = "--out",
      paramLabel = "DIR",
      description = "also write DIR/load-L/table.md and summary.json for each load")
  private Path out;

  @Option(
      names = "--json",
      description = "print a JSON array (one report per load) instead of Markdown")
  private boolean json;

  @Option(
      names = {"-h", "--help"},
      usageHelp = true,
      description = "show this help and exit")
  private boolean help;

  /** Creates the command; picocli fills the fields. */
  public SimulateCommand() {}

  /**
   * Runs the simulations and prints the reports.
   *
   * @return 0 when they ran, 1 when the trace cannot be read or the output cannot be written
   */
  @Override
  public Integer call() {
    PrintWriter stdout = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    for (double load : loads) {
      if (!(load > 0 && load <= 1.5)) {
        throw bad("--load values must each be in (0, 1.5]: " + load);
      }
    }
    if (workers < 1 || workers > 100_000) {
      throw bad("--workers must be in [1, 100000]: " + workers);
    }
    if (!(historyFraction > 0 && historyFraction < 1)) {
      throw bad("--history-fraction must be in (0, 1): " + historyFraction);
    }
    List<SimulatedArm> arms = new ArrayList<>();
    for (String name : armNames) {
      try {
        arms.add(SimulatedArm.parse(name));
      } catch (IllegalArgumentException e) {
        throw bad("--arms: " + e.getMessage());
      }
    }
    List<PredictorChoice> profiles = new ArrayList<>();
    for (String name : predictorNames) {
      try {
        PredictorChoice p = PredictorChoice.parse(name);
        if (profiles.stream().anyMatch(q -> q.label().equals(p.label()))) {
          throw bad("--predictors: " + p.label() + " given twice");
        }
        profiles.add(p);
      } catch (IllegalArgumentException e) {
        throw bad("--predictors: " + e.getMessage());
      }
    }
    Trace trace;
    try {
      trace = TraceFormat.read(traceSpec);
    } catch (TraceException e) {
      err.println("harbinger simulate: " + e.getMessage());
      err.flush();
      return 1;
    }
    int history = (int) Math.floor(trace.size() * historyFraction);
    if (trace.size() < 16 || history < 1 || history > trace.size() - 8) {
      err.println(
          "harbinger simulate: "
              + traceSpec
              + " holds "
              + trace.size()
              + " jobs; need at least 16, with 8 after the history");
      err.flush();
      return 1;
    }
    String command =
        "harbinger simulate "
            + String.join(" ", spec.commandLine().getParseResult().originalArgs());
    List<String> jsonReports = new ArrayList<>();
    for (double load : loads) {
      SimInput input;
      try {
        input = SimInput.atLoad(trace, history, workers, load);
      } catch (IllegalArgumentException e) {
        err.println("harbinger simulate: " + traceSpec + ": " + e.getMessage());
        err.flush();
        return 1;
      }
      SimulationReport report = Simulations.run(input, arms, seed, command, profiles);
      if (json) {
        jsonReports.add(SimulationFormat.JSON.render(report).strip());
      } else {
        stdout.print(SimulationFormat.MARKDOWN.render(report));
        stdout.flush();
      }
      if (out != null) {
        Path dir = out.resolve(String.format(Locale.ROOT, "load-%.2f", load));
        try {
          Files.createDirectories(dir);
          Files.writeString(
              dir.resolve("table.md"),
              SimulationFormat.MARKDOWN.render(report),
              StandardCharsets.UTF_8);
          Files.writeString(
              dir.resolve("summary.json"),
              SimulationFormat.JSON.render(report),
              StandardCharsets.UTF_8);
        } catch (IOException e) {
          err.println("harbinger simulate: cannot write " + dir + ": " + e.getMessage());
          err.flush();
          return 1;
        }
      }
    }
    if (json) {
      stdout.print("[\n" + String.join(",\n", jsonReports) + "\n]\n");
      stdout.flush();
    }
    return 0;
  }

  private CommandLine.ParameterException bad(String message) {
    return new CommandLine.ParameterException(spec.commandLine(), message);
  }

  /**
   * Runs the command line and exits with its code.
   *
   * @param args the arguments
   */
  public static void main(String[] args) {
    System.exit(new CommandLine(new SimulateCommand()).execute(args));
  }
}
