package io.harbinger.experiments.analysis;

import static org.assertj.core.api.Assertions.assertThat;

import io.harbinger.experiments.workload.HandlerMode;
import io.harbinger.experiments.workload.JobType;
import io.harbinger.experiments.workload.Phase;
import io.harbinger.experiments.workload.RunRecord;
import io.harbinger.experiments.workload.RunRecords;
import io.harbinger.experiments.workload.WorkloadConfig;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class AnalysisMainTest {

  @TempDir Path dir;
  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();

  private int run(String... args) {
    CommandLine cmd = AnalysisMain.command(new PrintWriter(out, true));
    cmd.setErr(new PrintWriter(err, true));
    return cmd.execute(args);
  }

  private static RunRecord run(String arm, long seed, long latencyMs) {
    List<io.harbinger.experiments.workload.MessageRecord> messages = new ArrayList<>();
    long seq = 0;
    for (JobType t : JobType.values()) {
      messages.add(
          RunMetricsTest.done(seq, t, Phase.STEADY, seq, seq + latencyMs / 2, seq + latencyMs));
      seq++;
    }
    return new RunRecord(
        arm, seed, HandlerMode.SLEEP, WorkloadConfig.reference(seed), 0, Map.of(), messages);
  }

  @Test
  void main_recordedRuns_writesReportAndPrintsVerdicts() throws Exception {
    for (long seed : List.of(11L, 22L, 33L)) {
      RunRecords.write(dir.resolve("runs/fifo-" + seed), run("fifo", seed, 1000 + seed));
      RunRecords.write(dir.resolve("runs/fast-" + seed), run("fast", seed, 500 + seed));
    }

    int code =
        run("--runs", dir.resolve("runs").toString(), "--out", dir.resolve("out").toString());

    assertThat(code).isZero();
    assertThat(out.toString()).contains("analysed 6 runs of 2 arms").contains("fast vs fifo: gate");
    assertThat(dir.resolve("out/summary.json")).exists();
    assertThat(dir.resolve("out/report.md")).exists();
    assertThat(dir.resolve("out/charts/per-class-fast.svg")).exists();
  }

  @Test
  void main_garbageRunJson_failsWithFileAndReason() throws Exception {
    Files.createDirectories(dir.resolve("runs/bad"));
    Files.writeString(dir.resolve("runs/bad/run.json"), "[1, 2");

    int code =
        run("--runs", dir.resolve("runs").toString(), "--out", dir.resolve("out").toString());

    assertThat(code).isEqualTo(2);
    assertThat(err.toString()).startsWith("analyse: ").contains("run.json: not valid JSON");
  }

  @Test
  void main_noRunsOrMissingDirectory_saysSo() throws Exception {
    Files.createDirectories(dir.resolve("empty"));

    int empty = run("--runs", dir.resolve("empty").toString(), "--out", dir.toString());
    String emptyErr = err.toString();
    int missing = run("--runs", dir.resolve("nowhere").toString(), "--out", dir.toString());

    assertThat(empty).isNotZero();
    assertThat(emptyErr).contains("no run directories (with run.json) under");
    assertThat(missing).isEqualTo(2);
    assertThat(err.toString()).contains("nowhere");
  }
}
