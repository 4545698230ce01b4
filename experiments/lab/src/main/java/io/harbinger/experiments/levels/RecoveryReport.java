package io.harbinger.experiments.levels;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.harbinger.experiments.workload.JobType;
import io.harbinger.experiments.workload.RunRecords;
import io.harbinger.predictor.PredictorConfig;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/**
 * Prints how the published levels of the shifted and inverted job types recovered after the shift
 * in every run of a bench directory that has a decision record ({@link Recovery}).
 *
 * <p>Run: {@code java -cp "experiments/target/classes:$(cat experiments/target/classpath.txt)"
 * io.harbinger.experiments.levels.RecoveryReport experiments/results/bench/DIR}. Half-lives are
 * those of the predictor's default key decay.
 */
public final class RecoveryReport {

  private static final ObjectMapper JSON = new ObjectMapper();

  /** The job types reported: the one the reference's shift changes and the two inverted ones. */
  static final List<JobType> TYPES =
      List.of(JobType.RESIZE_IMAGE, JobType.GENERATE_INVOICE, JobType.SEND_ORDER_EMAIL);

  private RecoveryReport() {}

  /**
   * Prints the table for one bench directory.
   *
   * @param benchDir a directory with {@code runs/}
   * @param out where the table goes
   * @throws IOException naming the file that could not be read
   */
  static void print(Path benchDir, PrintStream out) throws IOException {
    Path runs = benchDir.resolve("runs");
    if (!Files.isDirectory(runs)) {
      throw new IOException(benchDir + ": no runs directory");
    }
    double keyDecay = PredictorConfig.builder().build().keyDecay();
    out.println("Recovery after the shift in " + benchDir + ". " + Recovery.TABLE_NOTE);
    out.println();
    out.println(Recovery.TABLE_HEADER);
    List<Path> dirs;
    try (Stream<Path> s = Files.list(runs)) {
      dirs =
          s.filter(d -> Files.isRegularFile(d.resolve(DecisionLog.DECISIONS_FILE)))
              .sorted()
              .toList();
    }
    for (Path dir : dirs) {
      Path runFile = dir.resolve(RunRecords.RUN_FILE);
      JsonNode run = JSON.readTree(runFile.toFile());
      if (run == null || !run.path("rate_scale").isNumber()) {
        throw new IOException(runFile + ": rate_scale must be a number");
      }
      int levels = run.path("attributes").path("levels").asInt(3);
      List<Recovery.Point> points = Recovery.read(dir.resolve(DecisionLog.DECISIONS_FILE));
      for (JobType type : TYPES) {
        Recovery r = Recovery.of(points, levels, type, keyDecay, run.get("rate_scale").asDouble());
        if (r == null) {
          continue;
        }
        out.println(r.row(dir.getFileName().toString()));
      }
    }
  }

  /**
   * Prints the table of each bench directory given.
   *
   * @param args bench directories
   */
  public static void main(String[] args) {
    if (args.length == 0) {
      System.err.println("usage: RecoveryReport BENCH_DIR...");
      System.exit(2);
    }
    try {
      for (String a : args) {
        print(Path.of(a), System.out);
        System.out.println();
      }
    } catch (IOException e) {
      System.err.println("harbinger recovery: " + e.getMessage());
      System.exit(1);
    }
  }
}
