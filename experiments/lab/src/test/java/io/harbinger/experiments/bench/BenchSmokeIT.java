package io.harbinger.experiments.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.harbinger.experiments.workload.MessageRecord;
import io.harbinger.experiments.workload.RunRecord;
import io.harbinger.experiments.workload.RunRecords;
import io.harbinger.testing.Prerequisite;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * Runs the smoke profile end to end against the real RabbitMQ and Redis on loopback and Harbinger's
 * broker in this JVM: a few seconds, three arms, one seed.
 */
class BenchSmokeIT {

  @TempDir Path out;

  private static final Prerequisite BACKENDS =
      Prerequisite.of(
          "a backend of the smoke profile",
          "The smoke profile runs on RabbitMQ at RABBITMQ_URI and Redis at REDIS_URI");

  @BeforeAll
  static void brokersUp() {
    String unavailable = null;
    try {
      BenchCommand.probe(Profile.SMOKE.arms(), Endpoints.fromEnvironment());
    } catch (BenchCommand.BackendUnavailable e) {
      unavailable = e.getMessage();
    }
    BACKENDS.require(unavailable == null, unavailable);
  }

  @Test
  void smokeProfile_everyArm_accountsForEveryMessageAndWritesTheReport() throws Exception {
    String[] args = {"--profile", "smoke", "--out", out.toString()};
    StringWriter err = new StringWriter();
    StringWriter stdout = new StringWriter();
    CommandLine cmd = BenchCommand.command(args, Clock.systemUTC());
    cmd.setErr(new PrintWriter(err, true));
    cmd.setOut(new PrintWriter(stdout, true));

    int exit = cmd.execute(args);

    assertThat(exit).as("exit code; stderr: %s", err).isZero();
    List<RunRecord> runs = RunRecords.readAll(out.resolve("runs"));
    assertThat(runs)
        .extracting(RunRecord::arm)
        .containsExactlyInAnyOrder("rabbitmq-fifo", "redis-fifo", "broker-predictive");
    for (RunRecord run : runs) {
      assertThat(run.messages()).as(run.arm()).isNotEmpty().allMatch(MessageRecord::completed);
      assertThat(run.submitErrors()).as(run.arm()).isZero();
      assertThat(run.messages())
          .as("%s: a failing webhook is retried once", run.arm())
          .anyMatch(m -> m.attempts() == 2);
    }
    for (String file : List.of("summary.json", "report.md", "command.txt", "charts/deltas.svg")) {
      assertThat(out.resolve(file)).as(file).isRegularFile();
    }
    assertThat(Files.readString(out.resolve("command.txt")))
        .contains("command: ./harbinger bench --profile smoke")
        .contains("git_commit: ")
        .contains("seeds: 11")
        .contains("cores: ");
    assertThat(stdout.toString()).contains("wrote 3 runs of 3 arms");
  }

  @Test
  void sidecarArm_smokeRun_learnsThroughTheSidecarAndLosesNothing() throws Exception {
    RunRecord sidecar = smokeRunBesideFifo("rabbitmq-sidecar");
    assertThat(sidecar.messages()).isNotEmpty().allMatch(MessageRecord::completed);
    assertThat(sidecar.submitErrors()).isZero();
    assertThat(Long.parseLong(sidecar.attributes().get("sidecar_table_version")))
        .as("route tables pushed by the sidecar")
        .isPositive();
    // Counted when the last message completes, before the final flush of the report buffer.
    assertThat(Long.parseLong(sidecar.attributes().get("reports_sent")))
        .as("reports the consumers sent")
        .isPositive()
        .isLessThanOrEqualTo(sidecar.messages().stream().mapToLong(MessageRecord::attempts).sum());
    assertThat(sidecar.attributes()).containsEntry("reports_dropped", "0");
  }

  @Test
  void quorumLanesArm_smokeRun_consumesQuorumQueuesAndLosesNothing() throws Exception {
    RunRecord quorum = smokeRunBesideFifo("rabbitmq-lanes-quorum");
    assertThat(quorum.messages()).isNotEmpty().allMatch(MessageRecord::completed);
    assertThat(quorum.submitErrors()).isZero();
    assertThat(quorum.attributes())
        .containsEntry("layout", "quorum_lanes")
        .containsEntry("levels", "3");
  }

  /** Runs the smoke profile with FIFO and one arm, checks the exit code, returns that arm's run. */
  private RunRecord smokeRunBesideFifo(String arm) throws Exception {
    String[] args = {
      "--profile", "smoke", "--arms", "rabbitmq-fifo," + arm, "--out", out.toString()
    };
    StringWriter err = new StringWriter();
    CommandLine cmd = BenchCommand.command(args, Clock.systemUTC());
    cmd.setErr(new PrintWriter(err, true));
    cmd.setOut(new PrintWriter(new StringWriter(), true));

    int exit = cmd.execute(args);

    assertThat(exit).as("exit code; stderr: %s", err).isZero();
    return RunRecords.readAll(out.resolve("runs")).stream()
        .filter(r -> r.arm().equals(arm))
        .findFirst()
        .orElseThrow();
  }
}
