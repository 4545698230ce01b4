package io.harbinger.experiments.analysis;

import io.harbinger.experiments.stats.Bootstrap;
import io.harbinger.experiments.stats.GateResult;
import io.harbinger.experiments.stats.MovingBlockBootstrap;
import io.harbinger.experiments.stats.PercentileBootstrap;
import io.harbinger.experiments.workload.RunRecord;
import io.harbinger.experiments.workload.RunRecords;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Analyses recorded runs after the fact: reads every run directory under {@code --runs} and writes
 * summary.json, report.md and the charts to {@code --out}.
 */
@Command(
    name = "analyse",
    mixinStandardHelpOptions = true,
    description = "Analyse production-flow run directories (run.json + messages.tsv).")
public final class AnalysisMain implements Callable<Integer> {

  @Option(names = "--runs", required = true, description = "Directory of run directories.")
  private Path runsDirectory;

  @Option(names = "--out", required = true, description = "Directory for the report.")
  private Path out;

  @Option(
      names = "--block-length",
      description = "Use a moving-block bootstrap with this block length (default 0: i.i.d.).")
  private int blockLength;

  private final PrintWriter stdout;

  AnalysisMain(PrintWriter stdout) {
    this.stdout = stdout;
  }

  /**
   * Runs the analysis.
   *
   * @param args command-line options; {@code --help} lists them
   */
  public static void main(String[] args) {
    PrintWriter stdout = new PrintWriter(System.out, true, StandardCharsets.UTF_8);
    System.exit(command(stdout).execute(args));
  }

  /**
   * Returns the command line of this main, printing failures as one line of text.
   *
   * @param stdout where results go
   * @return the command line
   */
  static CommandLine command(PrintWriter stdout) {
    return new CommandLine(new AnalysisMain(stdout))
        .setExecutionExceptionHandler(
            (e, cmd, parsed) -> {
              cmd.getErr().println("analyse: " + e.getMessage());
              return 2;
            });
  }

  @Override
  public Integer call() throws IOException {
    if (blockLength < 0) {
      throw new IllegalArgumentException(
          "--block-length must be >= 0 (0 = i.i.d. bootstrap): " + blockLength);
    }
    List<RunRecord> runs = RunRecords.readAll(runsDirectory);
    if (runs.isEmpty()) {
      throw new IllegalArgumentException(
          "no run directories (with run.json) under " + runsDirectory);
    }
    Bootstrap bootstrap =
        blockLength > 0
            ? new MovingBlockBootstrap(
                blockLength,
                PercentileBootstrap.DEFAULT_RESAMPLES,
                PercentileBootstrap.DEFAULT_SEED,
                PercentileBootstrap.DEFAULT_CONFIDENCE)
            : PercentileBootstrap.defaults();
    Analysis report = Analysis.analyse(runs, bootstrap);
    ReportFormat.writeAll(report, out);
    stdout.printf("analysed %d runs of %d arms into %s%n", runs.size(), report.arms().size(), out);
    for (String arm : report.arms()) {
      GateResult gate = report.gate(arm);
      if (gate != null) {
        stdout.printf(
            "%s vs %s: gate %s%n",
            arm, report.baseline(arm), gate.passed() ? "PASSED" : "NOT PASSED");
      }
    }
    stdout.flush();
    return 0;
  }
}
