package io.harbinger.experiments.levels;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.harbinger.experiments.workload.Job;
import io.harbinger.experiments.workload.JobType;
import io.harbinger.experiments.workload.KernelCalibration;
import io.harbinger.experiments.workload.Workload;
import io.harbinger.experiments.workload.WorkloadConfig;
import org.junit.jupiter.api.Test;

class PlannedCostLevelsTest {

  private static final Workload WORKLOAD =
      Workload.generate(new WorkloadConfig(11, 60, 1.8, 1), KernelCalibration.REFERENCE);

  @Test
  void of_threeLevels_agreesWithTheWorkloadsOracleTier() {
    PlannedCostLevels tertiles = PlannedCostLevels.of(WORKLOAD, 3);
    assertThat(tertiles.levels()).isEqualTo(3);
    for (Job j : WORKLOAD.jobs()) {
      assertThat(tertiles.levelOf(j.plannedMillis())).isEqualTo(j.oracleTier());
    }
  }

  @Test
  void of_fiveLevels_putsAboutAFifthOfTheJobsInEachLevel() {
    PlannedCostLevels quintiles = PlannedCostLevels.of(WORKLOAD, 5);
    int[] counts = new int[5];
    for (Job j : WORKLOAD.jobs()) {
      counts[quintiles.levelOf(j.plannedMillis())]++;
    }
    int n = WORKLOAD.jobs().size();
    for (int c : counts) {
      // Ties at a cut go to the lower level, so a level may hold a little more than a fifth.
      assertThat((double) c / n).isBetween(0.15, 0.25);
    }
    assertThat(quintiles.cutsMillis()).isSorted();
    // Every export (1 to 2.6 s) is in the last level.
    assertThat(
            WORKLOAD.jobs().stream()
                .filter(j -> j.type() == JobType.EXPORT_REPORT)
                .mapToInt(j -> quintiles.levelOf(j.plannedMillis())))
        .containsOnly(4);
  }

  @Test
  void levelOf_aCostAtACut_fallsInTheLowerLevel() {
    PlannedCostLevels tertiles = PlannedCostLevels.of(WORKLOAD, 3);
    double[] cuts = tertiles.cutsMillis();
    assertThat(tertiles.levelOf(cuts[0])).isZero();
    assertThat(tertiles.levelOf(Math.nextUp(cuts[0]))).isEqualTo(1);
    assertThat(tertiles.levelOf(Double.NaN)).isEqualTo(2);
  }

  @Test
  void of_badLevels_namesTheRule() {
    assertThatThrownBy(() -> PlannedCostLevels.of(WORKLOAD, 11))
        .hasMessage("levels must be in [2, 10]: 11");
  }
}
