package io.harbinger.experiments.sim;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;

/**
 * Judges the predictor's safety and reach targets, pass or fail per cell, from the {@code
 * summary.json} files of {@code simulate --predictors REFERENCE,JUDGED,...} runs, such as {@code
 * --predictors table1,defaults}: the arms of the first profile keep their names and are the
 * reference, those of the judged profile are named {@code ARM@JUDGED}.
 *
 * <p>Example: {@code TargetsReport --profile defaults DIR...} prints one Markdown table per target.
 * The targets, on whole-run metrics against FIFO:
 *
 * <ul>
 *   <li>S (safety), each predictive arm of the judged profile: mean at most 2% above FIFO's and P99
 *       at most 1.25 times FIFO's;
 *   <li>K (kept gain), where the reference arm gains at least 5%: the judged arm keeps at least 90%
 *       of the reference's reduction of the mean;
 *   <li>R (reach), at loads 0.8 and 0.95 of the logs named {@code --reach}: the judged arm with
 *       weights and pausing aging closes at least half the gap between the reference arm and the
 *       oracle, both with weights and pausing aging.
 * </ul>
 *
 * <p>Stateless; reads files only.
 */
public final class TargetsReport {

  private static final String[] PREDICTIVE = {
    "predictive_warm", "predictive_warm+weights+pausing", "predictive_warm+no_aging"
  };
  private static final String WEIGHTED = "predictive_warm+weights+pausing";
  private static final String ORACLE = "oracle+weights+pausing";

  private TargetsReport() {}

  /**
   * Prints the targets of result folders.
   *
   * @param args {@code [--profile NAME] [--reach DIR,...] DIR...}: the profile judged (default
   *     defaults), the folders whose reach is judged, and the result folders (each with load-L
   *     sub-folders)
   * @throws IOException when a summary cannot be read
   */
  public static void main(String[] args) throws IOException {
    String profile = PredictorProfile.DEFAULTS.label();
    List<String> reach = new ArrayList<>();
    List<Path> dirs = new ArrayList<>();
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--profile" -> profile = args[++i];
        case "--reach" -> reach.addAll(List.of(args[++i].split(",")));
        default -> dirs.add(Path.of(args[i]));
      }
    }
    System.out.print(render(profile, reach, dirs));
  }

  static String render(String profile, List<String> reach, List<Path> dirs) throws IOException {
    ObjectMapper mapper = new ObjectMapper();
    StringBuilder safety = new StringBuilder();
    StringBuilder kept = new StringBuilder();
    StringBuilder gap = new StringBuilder();
    int[] safe = new int[2];
    int[] keeps = new int[2];
    int[] reaches = new int[2];
    for (Path dir : dirs) {
      List<Path> loads;
      try (Stream<Path> s = Files.list(dir)) {
        loads = s.filter(p -> p.getFileName().toString().startsWith("load-")).sorted().toList();
      }
      for (Path load : loads) {
        JsonNode root = mapper.readTree(load.resolve("summary.json").toFile());
        String cell = dir.getFileName() + " " + load.getFileName().toString().substring(5);
        double fifoMean = metric(root, "fifo", "mean_ms");
        double fifoP99 = metric(root, "fifo", "p99_ms");
        for (String arm : PREDICTIVE) {
          for (String name : new String[] {arm, arm + "@" + profile}) {
            double mean = metric(root, name, "mean_ms");
            double p99 = metric(root, name, "p99_ms");
            if (Double.isNaN(mean)) {
              continue;
            }
            boolean pass = mean <= 1.02 * fifoMean && p99 <= 1.25 * fifoP99;
            if (name.endsWith("@" + profile)) {
              count(safe, pass);
            }
            safety.append(
                String.format(
                    Locale.ROOT,
                    "| %s | %s | %+.1f%% | %.2fx | %s |%n",
                    cell,
                    name,
                    100 * (mean / fifoMean - 1),
                    p99 / fifoP99,
                    pass ? "PASS" : "FAIL"));
          }
          double reference = metric(root, arm, "mean_ms");
          double next = metric(root, arm + "@" + profile, "mean_ms");
          double referenceGain = 1 - reference / fifoMean;
          if (referenceGain >= 0.05 && !Double.isNaN(next)) {
            double share = (1 - next / fifoMean) / referenceGain;
            count(keeps, share >= 0.9);
            kept.append(
                String.format(
                    Locale.ROOT,
                    "| %s | %s | %.1f%% | %.1f%% | %.0f%% | %s |%n",
                    cell,
                    arm,
                    100 * referenceGain,
                    100 * (1 - next / fifoMean),
                    100 * share,
                    share >= 0.9 ? "PASS" : "FAIL"));
          }
        }
        boolean judged =
            reach.contains(dir.getFileName().toString())
                && !load.getFileName().toString().equals("load-0.50");
        if (judged) {
          double reference = metric(root, WEIGHTED, "mean_ms") / fifoMean - 1;
          double next = metric(root, WEIGHTED + "@" + profile, "mean_ms") / fifoMean - 1;
          double oracle = metric(root, ORACLE, "mean_ms") / fifoMean - 1;
          double closed = (reference - next) / (reference - oracle);
          count(reaches, closed >= 0.5);
          gap.append(
              String.format(
                  Locale.ROOT,
                  "| %s | %+.1f%% | %+.1f%% | %+.1f%% | %.0f%% | %s |%n",
                  cell,
                  100 * reference,
                  100 * next,
                  100 * oracle,
                  100 * closed,
                  closed >= 0.5 ? "PASS" : "FAIL"));
        }
      }
    }
    return String.format(
            Locale.ROOT,
            "Passed: safety %d of %d, kept gain %d of %d, reach %d of %d (the %s arms)%n%n",
            safe[0],
            safe[1],
            keeps[0],
            keeps[1],
            reaches[0],
            reaches[1],
            profile)
        + "Safety (S): mean at most +2% and P99 at most 1.25x FIFO, whole run\n\n"
        + "| cell | arm | mean vs FIFO | P99 / FIFO | S |\n|---|---|---|---|---|\n"
        + safety
        + "\nKept gain (K): where the reference arm (the first profile's) gains at least 5%, the "
        + profile
        + " arm keeps at least 90% of it\n\n"
        + "| cell | arm | reference gain | "
        + profile
        + " gain | kept | K |\n|---|---|---|---|---|---|\n"
        + kept
        + "\nReach (R): weights + pausing aging, share of the gap to the oracle closed (at least"
        + " half)\n\n"
        + "| cell | reference | "
        + profile
        + " | oracle | closed | R |\n|---|---|---|---|---|---|\n"
        + gap;
  }

  private static void count(int[] passedOfAll, boolean pass) {
    passedOfAll[0] += pass ? 1 : 0;
    passedOfAll[1]++;
  }

  private static double metric(JsonNode root, String arm, String metric) {
    for (JsonNode a : root.get("arms")) {
      if (a.get("arm").asText().equals(arm)) {
        JsonNode v = a.get("whole").get(metric);
        return v == null || v.isNull() ? Double.NaN : v.asDouble();
      }
    }
    return Double.NaN;
  }
}
