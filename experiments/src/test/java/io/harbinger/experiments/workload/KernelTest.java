package io.harbinger.experiments.workload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class KernelTest {

  @ParameterizedTest
  @CsvSource({
    "RENDER, 16, 128",
    "INVOICE, 10, 80",
    "RESIZE, 250000, 2000000",
    "REINDEX, 2500, 20000",
    "EXPORT, 1, 8"
  })
  void run_eightTimesTheUnits_costsClearlyMore(Kernel kernel, long small, long large) {
    for (int i = 0; i < 3; i++) { // warm-up: both sizes compiled before anything is timed
      Sink.consume(kernel.run(small, i));
      Sink.consume(kernel.run(large, i));
    }

    long smallNanos = fastest(kernel, small);
    long largeNanos = fastest(kernel, large);

    assertThat(largeNanos).as(kernel.name()).isGreaterThan(2 * smallNanos);
  }

  /**
   * The least thread CPU time of seven runs: CPU time ignores time the thread spends preempted by
   * other processes, and the minimum ignores runs disturbed by a collection or a compilation.
   */
  private static long fastest(Kernel kernel, long units) {
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    long best = Long.MAX_VALUE;
    for (int i = 0; i < 7; i++) {
      long start = threads.getCurrentThreadCpuTime();
      Sink.consume(kernel.run(units, i + 7));
      best = Math.min(best, threads.getCurrentThreadCpuTime() - start);
    }
    return best;
  }

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
