package io.harbinger.experiments.levels;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.harbinger.experiments.workload.Job;
import io.harbinger.experiments.workload.JobType;
import io.harbinger.experiments.workload.Phase;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RecoveryTest {

  /** 100 invoices before the shift, then 300 in it, one every 100 ms. */
  private static List<Job> invoices() {
    List<Job> jobs = new ArrayList<>();
    for (int i = 0; i < 400; i++) {
      Phase phase = i < 100 ? Phase.RECOVERY : Phase.SHIFTED;
      jobs.add(new Job(i, JobType.GENERATE_INVOICE, phase, i * 100_000_000L, 1, 1, 4, 0, 5, 0));
    }
    return jobs;
  }

  @Test
  void of_anInvoiceThatMovesUpAfterTwentySeconds_settlesThere() {
    List<Job> jobs = invoices();
    DecisionLog log = new DecisionLog(jobs, 3);
    for (Job j : jobs) {
      // Level 0 before the shift; in it, level 0 for the first 200 invoices (20 s), then 2, with
      // a stray level 1 every tenth message that the 90% share tolerates.
      int inPhase = (int) j.seq() - 100;
      int level = inPhase < 200 ? 0 : inPhase % 10 == 0 ? 1 : 2;
      log.record(j.seq(), j.arrivalNanos(), level, "predicted", 5);
    }
    Recovery r = Recovery.of(log, JobType.GENERATE_INVOICE, 0.995, 1.0);
    assertThat(r.before()).isZero();
    assertThat(r.settled()).isEqualTo(2);
    assertThat(r.moved()).isTrue();
    // Windows that start a few messages before the switch still hold 90% at level 2.
    assertThat(r.seconds()).isBetween(19.0, 20.1);
    // Half-life: ln 0.5 / ln 0.995 = 138.3 observations at 6 invoices/s in the shifted phase.
    assertThat(r.halfLives()).isCloseTo(r.seconds() / (138.28 / 6.0), within(0.01));
  }

  @Test
  void of_aTypeThatKeepsItsLevel_didNotMove() {
    List<Job> jobs = invoices();
    DecisionLog log = new DecisionLog(jobs, 3);
    for (Job j : jobs) {
      log.record(j.seq(), j.arrivalNanos(), 1, "predicted", 5);
    }
    Recovery r = Recovery.of(log, JobType.GENERATE_INVOICE, 0.995, 1.0);
    assertThat(r.moved()).isFalse();
    assertThat(r.seconds()).isZero();
  }

  @Test
  void of_tooFewMessagesInThePhase_isNullAndABadDecayIsRefused() {
    List<Job> jobs = invoices().subList(0, 120);
    DecisionLog log = new DecisionLog(jobs, 3);
    for (Job j : jobs) {
      log.record(j.seq(), j.arrivalNanos(), 0, "predicted", 5);
    }
    assertThat(Recovery.of(log, JobType.GENERATE_INVOICE, 0.995, 1.0)).isNull();
    assertThatThrownBy(() -> Recovery.of(log, JobType.GENERATE_INVOICE, 1.0, 1.0))
        .hasMessage("keyDecay must be in (0, 1): 1.0");
  }

  @Test
  void read_givesBackWhatTheLogWrote_andNamesTheLineOfAMalformedRow(@TempDir Path dir)
      throws Exception {
    List<Job> jobs = invoices();
    DecisionLog log = new DecisionLog(jobs, 3);
    for (Job j : jobs) {
      log.record(j.seq(), j.arrivalNanos(), j.seq() < 250 ? 0 : 2, "predicted", 5);
    }
    log.write(dir, "test");
    List<Recovery.Point> points = Recovery.read(dir.resolve(DecisionLog.DECISIONS_FILE));
    assertThat(points).hasSize(400);
    Recovery fromFile = Recovery.of(points, 3, JobType.GENERATE_INVOICE, 0.995, 1.0);
    assertThat(fromFile).isEqualTo(Recovery.of(log, JobType.GENERATE_INVOICE, 0.995, 1.0));
    assertThat(fromFile.settled()).isEqualTo(2);
    Path file = dir.resolve(DecisionLog.DECISIONS_FILE);
    List<String> lines = new ArrayList<>(Files.readAllLines(file));
    lines.set(3, lines.get(3).replace("generate_invoice", "bake_bread"));
    Files.write(file, lines);
    assertThatThrownBy(() -> Recovery.read(file))
        .hasMessageStartingWith(file + ": line 4: ")
        .hasMessageContaining("bake_bread");
  }
}
