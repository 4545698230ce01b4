package io.harbinger.predictor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class PriorityGainTest {

  /** Seed paper Table 18, the all-jobs column: short share p, size ratio r, load rho. */
  @ParameterizedTest
  @CsvSource({
    "0.9, 10, 0.5, 0.72",
    "0.9, 10, 0.8, 0.45",
    "0.9, 10, 0.95, 0.26",
    "0.9, 100, 0.5, 0.57",
    "0.9, 100, 0.8, 0.30",
    "0.9, 100, 0.95, 0.16",
    "0.5, 100, 0.5, 0.75",
    "0.5, 100, 0.8, 0.60",
    "0.5, 100, 0.95, 0.53"
  })
  void meanWaitRatio_shortFirst_matchesTable18(double p, double r, double rho, double table) {
    double shortWork = p / (p + (1 - p) * r);

    double ratio =
        PriorityGain.meanWaitRatio(
            new double[] {p, 1 - p}, new double[] {shortWork, 1 - shortWork}, rho);

    assertThat(ratio).isCloseTo(table, within(0.006));
  }

  @Test
  void meanWaitRatio_longJobsServedFirst_isAboveFifo() {
    double shortWork = 0.9 / 1.9;

    double ratio =
        PriorityGain.meanWaitRatio(
            new double[] {0.1, 0.9}, new double[] {1 - shortWork, shortWork}, 0.5);

    assertThat(ratio).isCloseTo(1.29, within(0.01));
    assertThat(
            PriorityGain.gain(
                new double[] {0.1, 0.9}, new double[] {1 - shortWork, shortWork}, 0.5))
        .isNegative();
  }

  @Test
  void meanWaitRatio_levelsOfEqualMeans_equalsFifo() {
    double ratio =
        PriorityGain.meanWaitRatio(new double[] {0.2, 0.3, 0.5}, new double[] {0.2, 0.3, 0.5}, 0.9);

    assertThat(ratio).isCloseTo(1, within(1e-12));
  }

  @Test
  void meanWaitRatio_badInput_failsNamingTheRule() {
    assertThatThrownBy(
            () -> PriorityGain.meanWaitRatio(new double[] {1}, new double[] {0.5, 0.5}, 0.5))
        .hasMessage("jobShares and workShares must have the same non-zero length: 1 and 2");
    assertThatThrownBy(
            () -> PriorityGain.meanWaitRatio(new double[] {0.5, 0.6}, new double[] {0.5, 0.5}, 0.5))
        .hasMessageStartingWith("jobShares must sum to 1: 1.1");
    assertThatThrownBy(
            () ->
                PriorityGain.meanWaitRatio(
                    new double[] {0.5, 0.5}, new double[] {Double.NaN, 0.5}, 0.5))
        .hasMessageStartingWith("workShares must be non-negative and finite");
    assertThatThrownBy(
            () -> PriorityGain.meanWaitRatio(new double[] {0.5, 0.5}, new double[] {0.5, 0.5}, 1))
        .hasMessage("load must be in (0, 1): 1.0");
  }

  @Test
  void tailWaitRatio_lastLevelBehindTheWorkAboveIt_isOneOverOneMinusThatLoad() {
    // Short jobs with 30% of the work ahead of the rest, at load 0.8: 1 / (1 - 0.24).
    assertThat(
            PriorityGain.tailWaitRatio(new double[] {0.7, 0.3}, new double[] {0.3, 0.7}, 0.8, 0.01))
        .isCloseTo(1 / (1 - 0.24), within(1e-9));
    // An undecided middle level with 85% of the work above a few long jobs (5% of the jobs).
    assertThat(
            PriorityGain.tailWaitRatio(
                new double[] {0.45, 0.5, 0.05}, new double[] {0.05, 0.8, 0.15}, 0.8, 0.01))
        .isCloseTo(1 / (1 - 0.8 * 0.85), within(1e-9));
  }

  @Test
  void tailWaitRatio_lastLevelBelowTheMinimumShare_isJudgedByTheLevelAboveIt() {
    double[] jobs = {0.6, 0.395, 0.005};
    double[] work = {0.1, 0.5, 0.4};

    double ratio = PriorityGain.tailWaitRatio(jobs, work, 0.8, 0.01);

    // Level 1 waits (1 - 0.8) / ((1 - 0.08) (1 - 0.48)) of FIFO's: below 1, so 1.
    assertThat(ratio).isEqualTo(1.0);
    assertThat(PriorityGain.tailWaitRatio(jobs, work, 0.8, 0.005))
        .isCloseTo(1 / (1 - 0.48), within(1e-9));
  }

  @Test
  void tailWaitRatio_badInput_failsNamingTheRule() {
    assertThatThrownBy(
            () ->
                PriorityGain.tailWaitRatio(
                    new double[] {0.5, 0.5}, new double[] {0.5, 0.5}, 0.8, 0))
        .hasMessage("minJobShare must be in (0, 1]: 0.0");
    assertThatThrownBy(
            () ->
                PriorityGain.tailWaitRatio(
                    new double[] {0.5, 0.6}, new double[] {0.5, 0.5}, 0.8, 0.01))
        .hasMessageStartingWith("jobShares must sum to 1: 1.1");
  }
}
