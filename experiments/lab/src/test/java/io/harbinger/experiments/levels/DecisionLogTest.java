package io.harbinger.experiments.levels;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.harbinger.experiments.workload.Job;
import io.harbinger.experiments.workload.KernelCalibration;
import io.harbinger.experiments.workload.Phase;
import io.harbinger.experiments.workload.Workload;
import io.harbinger.experiments.workload.WorkloadConfig;
import io.harbinger.predictor.PredictorConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DecisionLogTest {

  @TempDir Path dir;

  private static final Workload WORKLOAD =
      Workload.generate(new WorkloadConfig(11, 60, 1.8, 1), KernelCalibration.REFERENCE);

  @Test
  void summary_givesTheShareOfEachLevelPerPhaseAndTheReasons() {
    List<Job> jobs = WORKLOAD.jobs();
    DecisionLog log = new DecisionLog(jobs, 3);
    int steady = 0;
    for (Job j : jobs) {
      if (j.phase() == Phase.STEADY) {
        // Every fourth steady job at level 0, the rest at level 2.
        log.record(j.seq(), j.arrivalNanos(), steady++ % 4 == 0 ? 0 : 2, "predicted", 1.5);
      }
    }
    Map<String, String> summary = log.summary();
    String[] shares = summary.get("decisions.levels.steady").split(" ");
    assertThat(Double.parseDouble(shares[0])).isBetween(0.24, 0.26);
    assertThat(shares[1]).isEqualTo("0.000");
    assertThat(Double.parseDouble(shares[2])).isBetween(0.74, 0.76);
    assertThat(summary.get("decisions.levels.flash")).isEqualTo("0.000 0.000 0.000");
    assertThat(summary.get("decisions.reasons")).isEqualTo("predicted " + steady);
    assertThat(log.recorded()).isEqualTo(steady);
  }

  @Test
  void write_replayedPredictor_givesRowsBoundariesAndAChart() throws IOException {
    LevelsReplay.ReplayClock clock = new LevelsReplay.ReplayClock();
    Placement p = Placement.predictive(PredictorConfig.defaults(), clock);
    DecisionLog log = new DecisionLog(WORKLOAD.jobs(), 3);
    LevelsReplay.replay(WORKLOAD, p, clock, Duration.ofMillis(5), log);
    log.write(dir, "predictive seed 11");
    List<String> rows = Files.readAllLines(dir.resolve(DecisionLog.DECISIONS_FILE));
    assertThat(rows.get(0)).isEqualTo(DecisionLog.DECISIONS_HEADER.replace(' ', '\t'));
    assertThat(rows).hasSize(WORKLOAD.jobs().size() + 1);
    // The first messages come before any boundary: unready, at the default level, no estimate.
    assertThat(rows.get(1)).endsWith("\t1\tunready\t");
    assertThat(rows).anyMatch(r -> r.contains("\tpredicted\t"));
    List<String> boundaries = Files.readAllLines(dir.resolve(DecisionLog.BOUNDARIES_FILE));
    assertThat(boundaries.get(0)).isEqualTo("at_s\tboundary_1_ms\tboundary_2_ms");
    assertThat(boundaries.size()).isGreaterThan(1);
    String svg = Files.readString(dir.resolve(DecisionLog.CHART_FILE));
    assertThat(svg).startsWith("<svg").contains("predictive seed 11", "export_report", "unready");
  }

  @Test
  void record_outOfRange_namesTheRule() {
    DecisionLog log = new DecisionLog(WORKLOAD.jobs(), 3);
    assertThatThrownBy(() -> log.record(0, 0, 3, "predicted", 1))
        .hasMessage("level must be in [0, 3): 3");
    assertThatThrownBy(() -> log.record(-1, 0, 0, "predicted", 1))
        .hasMessageStartingWith("seq must be in [0, ");
  }
}
