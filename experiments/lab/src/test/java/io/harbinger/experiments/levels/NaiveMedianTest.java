package io.harbinger.experiments.levels;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.harbinger.experiments.workload.JobType;
import io.harbinger.experiments.workload.KernelCalibration;
import io.harbinger.experiments.workload.Workload;
import io.harbinger.experiments.workload.WorkloadConfig;
import org.junit.jupiter.api.Test;

class NaiveMedianTest {

  private final PlannedCostLevels cuts =
      PlannedCostLevels.of(
          Workload.generate(new WorkloadConfig(11, 60, 1.8, 1), KernelCalibration.REFERENCE), 3);

  @Test
  void level_beforeAnyDuration_isTheMiddle() {
    NaiveMedian naive = new NaiveMedian(cuts);
    assertThat(naive.level(JobType.EXPORT_REPORT)).isEqualTo(1);
    assertThat(naive.estimateMillis(JobType.EXPORT_REPORT)).isNaN();
  }

  @Test
  void level_isTheMedianOfTheLast101DurationsWithNoGate() {
    NaiveMedian naive = new NaiveMedian(cuts);
    // 8% of the durations a thousand times the rest: the median is trusted anyway.
    for (int i = 0; i < 100; i++) {
      naive.learn(JobType.DELIVER_WEBHOOK, i % 25 < 2 ? 3000 : 1);
    }
    assertThat(naive.estimateMillis(JobType.DELIVER_WEBHOOK)).isEqualTo(1);
    assertThat(naive.level(JobType.DELIVER_WEBHOOK)).isZero();
    // 101 slow durations push every fast one out of the window.
    for (int i = 0; i < NaiveMedian.WINDOW; i++) {
      naive.learn(JobType.DELIVER_WEBHOOK, 2000);
    }
    assertThat(naive.estimateMillis(JobType.DELIVER_WEBHOOK)).isEqualTo(2000);
    assertThat(naive.level(JobType.DELIVER_WEBHOOK)).isEqualTo(2);
    assertThat(naive.level(JobType.SEND_SMS)).isEqualTo(1);
  }

  @Test
  void estimate_evenCount_averagesTheTwoMiddleValues() {
    NaiveMedian naive = new NaiveMedian(cuts);
    naive.learn(JobType.SEND_SMS, 10);
    naive.learn(JobType.SEND_SMS, 30);
    assertThat(naive.estimateMillis(JobType.SEND_SMS)).isEqualTo(20);
  }

  @Test
  void learn_badDuration_namesIt() {
    NaiveMedian naive = new NaiveMedian(cuts);
    assertThatThrownBy(() -> naive.learn(JobType.SEND_SMS, -1))
        .hasMessage("millis must be finite and >= 0: -1.0");
  }
}
