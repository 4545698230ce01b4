package io.harbinger.experiments.workload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class KernelTest {

  @Test
  void run_sameInput_sameChecksum_otherSaltOtherChecksum() {
    for (Kernel k : Kernel.values()) {
      if (k == Kernel.NONE) {
        continue;
      }
      long units = k == Kernel.EXPORT ? 1 : k.calibrationUnits() / 4;
      assertThat(k.run(units, 5)).as(k.name()).isEqualTo(k.run(units, 5));
      assertThat(k.run(units, 5)).as(k.name()).isNotEqualTo(k.run(units, 6));
    }
  }

  @Test
  void run_unitsOutOfBounds_failsWithRule() {
    assertThatThrownBy(() -> Kernel.EXPORT.run(201, 1))
        .hasMessage("EXPORT units must be in [0, 200]: 201");
    assertThatThrownBy(() -> Kernel.RENDER.run(-1, 1))
        .hasMessage("RENDER units must be in [0, 4096]: -1");
  }

  @Test
  void measure_fakeTicker_medianOfFiveOverCalibrationSize() {
    // Each timed run advances the clock by 10, 50, 20, 40, 30 ms: the median is 30 ms.
    long[] steps = {10, 50, 20, 40, 30};
    long[] now = {0};
    int[] call = {0};
    io.harbinger.predictor.Ticker ticker =
        () -> {
          int c = call[0]++;
          if (c % 2 == 1) {
            now[0] += steps[c / 2] * 1_000_000;
          }
          return now[0];
        };

    double msPerMegapixel = KernelCalibration.measure(Kernel.RESIZE, ticker);

    assertThat(msPerMegapixel).isEqualTo(15.0); // 30 ms over 2 MP
  }
}
