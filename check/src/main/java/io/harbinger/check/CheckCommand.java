package io.harbinger.check;

import io.harbinger.check.sim.SimulatedWhatIf;
import io.harbinger.check.sim.WhatIf;
import io.harbinger.check.trace.Trace;
import io.harbinger.check.trace.TraceException;
import io.harbinger.check.trace.TraceFormat;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code harbinger check HISTORY}: reads a history in any supported format and says whether
 * Harbinger's predictions would help on it.
 *
 * <p>Example: {@code check swf:logs/LPC-EGEE-2004-1.2-cln.swf.gz?key=user-queue}, or {@code java
 * -jar harbinger-check.jar history.csv} with the runnable jar the module builds. Exit codes: 0 when
 * the check ran (whatever the verdict), 1 when the history cannot be read, 2 for bad command-line
 * arguments.
 */
@Command(
    name = "check",
    sortOptions = false,
    description = {
      "Checks whether per-key duration predictions would help on a job history: coverage,"
          + " held-out accuracy of per-key medians against a global median, a replay of the"
          + " real predictor, and a verdict (turn it on / run in shadow only / not useful here).",
      "",
      "HISTORY is format:path[?option=value,...] with format one of swf, azure2021, alibaba2026,"
          + " csv, synthetic, or just a path ending in .csv or .swf (optionally .gz), which takes"
          + " its format from its name; gzip is detected from the file's content. Examples:",
      "  history.csv         (the same as csv:history.csv)",
      "  swf:logs/CTC-SP2-1996-3.1-cln.swf.gz",
      "  swf:logs/LPC-EGEE-2004-1.2-cln.swf.gz?key=user-queue",
      "  azure2021:invocations.csv",
      "  alibaba2026:lora_request_trace.csv?key=predict_type",
      "  csv:jobs.csv        (arrival_s,duration_s,key[,size])",
      "  synthetic:seed=7,jobs=100000,keys=50,distribution=bimodal"
    },
    exitCodeOnExecutionException = 1)
public final class CheckCommand implements Callable<Integer> {

  /** Workers of the simulated what-if, as in the paper's trace simulations. */
  private static final int WHAT_IF_WORKERS = 64;

  @Spec private CommandSpec spec;

  @Parameters(
      index = "0",
      paramLabel = "HISTORY",
      description = "the history, as format:path[?option=value,...] or a .csv or .swf path")
  private String history;

  @Option(
      names = "--min-observations",
      defaultValue = "20",
      description = "history jobs a key needs to be routable (default ${DEFAULT-VALUE})")
  private int minObservations;

  @Option(
      names = "--floor-millis",
      defaultValue = "0",
      description =
          "floor for durations before logs and tiers, in ms (default: the trace's resolution)")
  private double floorMillis;

  @Option(
      names = "--no-what-if",
      description = "skip the simulated what-if (FIFO, predictive, weights with pausing aging)")
  private boolean noWhatIf;

  @Option(names = "--json", description = "print the result as JSON instead of text")
  private boolean json;

  @Option(
      names = {"-h", "--help"},
      usageHelp = true,
      description = "show this help and exit")
  private boolean help;

  /** Creates the command; picocli fills the fields. */
  public CheckCommand() {}

  /**
   * Runs the check and prints the result.
   *
   * @return 0 when the check ran, 1 when the history cannot be read
   */
  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    if (minObservations < 1 || minObservations > 1_000_000) {
      throw new CommandLine.ParameterException(
          spec.commandLine(), "--min-observations must be in [1, 1000000]: " + minObservations);
    }
    if (!(floorMillis >= 0 && floorMillis <= 86_400_000)) {
      throw new CommandLine.ParameterException(
          spec.commandLine(), "--floor-millis must be in [0, 86400000]: " + floorMillis);
    }
    Trace trace;
    try {
      trace = TraceFormat.read(history);
    } catch (TraceException e) {
      err.println("harbinger check: " + e.getMessage());
      err.flush();
      return 1;
    }
    if (trace.size() < 2) {
      err.println("harbinger check: " + history + " holds " + trace.size() + " job; need 2");
      err.flush();
      return 1;
    }
    PredictabilityCheck.Options options =
        new PredictabilityCheck.Options(minObservations, Math.round(floorMillis * 1e6));
    WhatIf whatIf = noWhatIf ? WhatIf.NOT_AVAILABLE : new SimulatedWhatIf(WHAT_IF_WORKERS);
    CheckResult result = PredictabilityCheck.run(trace, options, whatIf);
    out.print(json ? CheckReport.json(result) : CheckReport.text(result));
    out.flush();
    return 0;
  }

  /**
   * Runs the command line and exits with its code.
   *
   * @param args the arguments
   */
  public static void main(String[] args) {
    System.exit(new CommandLine(new CheckCommand()).execute(args));
  }
}
