package io.harbinger.experiments.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * Resuming a bench directory, with Harbinger's broker in this JVM so that no outside broker is
 * needed: a few seconds of arrivals per run.
 */
class BenchResumeTest {

  @TempDir Path dir;

  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();

  private int bench(String seeds, String... extra) {
    List<String> args =
        new ArrayList<>(
            List.of(
                "--profile",
                "smoke",
                "--arms",
                "broker-predictive,broker-weighted",
                "--seeds",
                seeds,
                "--arrival-seconds",
                "5",
                "--drain-seconds",
                "10",
                "--out",
                dir.toString()));
    args.addAll(List.of(extra));
    String[] a = args.toArray(String[]::new);
    out.getBuffer().setLength(0);
    CommandLine cmd = BenchCommand.command(a, Clock.systemUTC());
    cmd.setErr(new PrintWriter(err, true));
    cmd.setOut(new PrintWriter(out, true));
    return cmd.execute(a);
  }

  private Path run(String name) {
    return dir.resolve("runs").resolve(name);
  }

  @Test
  void bench_sameOut_skipsCompleteRunsAndAnalysesAllTogether() throws IOException {
    assertThat(bench("11")).as("stderr: %s", err).isZero();
    assertThat(dir.resolve(SavedPlan.FILE)).isRegularFile();
    byte[] firstRun = Files.readAllBytes(run("broker-weighted-seed11").resolve("messages.tsv"));

    // A second seed: the two runs of seed 11 are reused as they are, and analysed with the new.
    assertThat(bench("11,22")).as("stderr: %s", err).isZero();
    assertThat(out.toString())
        .contains("2 of 4 runs already complete, 2 to run")
        .contains("wrote 4 runs of 2 arms");
    assertThat(Files.readAllBytes(run("broker-weighted-seed11").resolve("messages.tsv")))
        .isEqualTo(firstRun);
    assertThat(Files.readString(dir.resolve("summary.json"))).contains("\"22\"");
    assertThat(Files.readString(dir.resolve("command.txt")))
        .contains("reused_runs: broker-predictive-seed11,broker-weighted-seed11");
    assertThat(Files.readString(dir.resolve(SavedPlan.HISTORY_FILE)))
        .contains("seeds: 11\n")
        .contains("git_commit: ");
    assertThat(Files.readString(run("broker-weighted-seed22").resolve("run.json")))
        .contains("\"git_commit\"");

    // A run cut off while writing its messages is run again; the others are kept.
    Path cut = run("broker-weighted-seed22").resolve("messages.tsv");
    List<String> lines = Files.readAllLines(cut);
    Files.write(cut, lines.subList(0, lines.size() / 2));
    assertThat(bench("11,22")).as("stderr: %s", err).isZero();
    assertThat(out.toString()).contains("3 of 4 runs already complete, 1 to run");
    assertThat(Files.readAllLines(cut)).hasSameSizeAs(lines);

    // Asking for one seed still analyses every complete run of the directory.
    assertThat(bench("11")).as("stderr: %s", err).isZero();
    assertThat(out.toString())
        .contains("2 of 2 runs already complete, 0 to run")
        .contains("wrote 4 runs of 2 arms");
  }

  @Test
  void bench_sameOutOtherSettings_isRefusedNamingTheFlag() {
    assertThat(bench("11")).as("stderr: %s", err).isZero();
    assertThat(bench("11", "--webhooks", "succeeding")).isEqualTo(2);
    assertThat(err.toString())
        .contains("--webhooks succeeding differs from the failing of the runs already in ")
        .contains("resume with the same settings, or use another --out");
    assertThat(bench("11", "--rate-scale", "0.9")).isEqualTo(2);
    assertThat(err.toString()).contains("--rate-scale 0.9 differs from the 0.5 of the runs");
  }

  @Test
  void bench_corruptPlanFile_isRefusedWithItsName() throws IOException {
    Files.writeString(dir.resolve(SavedPlan.FILE), "{not json");
    assertThat(bench("11")).isEqualTo(2);
    assertThat(err.toString()).contains("plan.json: not valid JSON").contains("use another --out");
  }
}
