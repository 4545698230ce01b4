package io.harbinger.experiments.sim;

import static org.assertj.core.api.Assertions.assertThat;

import io.harbinger.check.trace.Trace;
import io.harbinger.experiments.workload.HandlerMode;
import io.harbinger.experiments.workload.Job;
import io.harbinger.experiments.workload.KernelCalibration;
import io.harbinger.experiments.workload.MessageRecord;
import io.harbinger.experiments.workload.RunRecord;
import io.harbinger.experiments.workload.RunRecords;
import io.harbinger.experiments.workload.Workload;
import io.harbinger.experiments.workload.WorkloadConfig;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class SimulatorGapTest {

  private static final long MS = 1_000_000;

  @TempDir Path dir;

  private static RunRecord run(String arm, long latencyNanos) {
    List<Job> jobs =
        Workload.generate(WorkloadConfig.reference(11), KernelCalibration.REFERENCE).jobs();
    List<MessageRecord> messages = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      long submit = 1_000 * MS + i * 20 * MS;
      messages.add(
          MessageRecord.completed(
              jobs.get(i), submit, submit, submit, submit + latencyNanos, 1, 2.0));
    }
    return new RunRecord(
        arm, 11, HandlerMode.SLEEP, WorkloadConfig.reference(11), 4, Map.of(), messages);
  }

  @Test
  void trace_ofARun_keepsArrivalsRelativeAndHandlerTimes() {
    Trace t = SimulatorGap.trace(run("rabbitmq-fifo", 10 * MS));
    assertThat(t.size()).isEqualTo(200);
    assertThat(t.arrivalNanos(0)).isZero();
    assertThat(t.arrivalNanos(199)).isEqualTo(199 * 20 * MS);
    assertThat(t.durationNanos(5)).isEqualTo(2 * MS);
  }

  @Test
  void gap_comparesMeasuredAndSimulatedChanges() throws Exception {
    RunRecords.write(dir.resolve("runs/rabbitmq-fifo-seed11"), run("rabbitmq-fifo", 10 * MS));
    RunRecords.write(
        dir.resolve("runs/rabbitmq-predictive-seed11"), run("rabbitmq-predictive", 5 * MS));
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    PrintStream original = System.out;
    System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
    int code;
    try {
      code = new CommandLine(new SimulatorGap()).execute("--bench", dir.toString());
    } finally {
      System.setOut(original);
    }
    assertThat(code).isZero();
    // Measured: 5 ms against 10 ms. Simulated: 2 ms jobs every 20 ms on 4 workers never queue, so
    // no change.
    assertThat(out.toString(StandardCharsets.UTF_8))
        .contains("| 11 | -50.0% | 0.0% | +50.0 points |");
  }

  @Test
  void gap_withoutMatchingRuns_exitsWithOne() {
    dir.resolve("runs").toFile().mkdirs();
    CommandLine cli = new CommandLine(new SimulatorGap());
    cli.setErr(new java.io.PrintWriter(new ByteArrayOutputStream()));
    assertThat(cli.execute("--bench", dir.toString())).isEqualTo(1);
  }
}
