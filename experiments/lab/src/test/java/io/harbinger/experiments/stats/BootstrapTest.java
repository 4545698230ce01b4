package io.harbinger.experiments.stats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class BootstrapTest {

  private static final List<Double> SHIFTED = List.of(-0.30, -0.25, -0.28, -0.31, -0.26);

  @Test
  void indices_referenceResampleCount_are250And9749() {
    assertThat(Bootstrap.lowIndex(10_000, 0.95)).isEqualTo(250);
    assertThat(Bootstrap.highIndex(10_000, 0.95)).isEqualTo(9749);
    assertThat(Bootstrap.lowIndex(2_000, 0.95)).isEqualTo(50);
    assertThat(Bootstrap.highIndex(2_000, 0.95)).isEqualTo(1949);
  }

  @Test
  void meanInterval_constantValues_zeroWidthAtTheValue() {
    Interval ci = PercentileBootstrap.defaults().meanInterval(List.of(0.5, 0.5, 0.5, 0.5));

    assertThat(ci.point()).isEqualTo(0.5);
    assertThat(ci.low()).isEqualTo(0.5);
    assertThat(ci.high()).isEqualTo(0.5);
    assertThat(ci.n()).isEqualTo(4);
  }

  @Test
  void meanInterval_sameSeed_identicalInterval_otherSeed_differs() {
    List<Double> noisy = List.of(-0.2, 0.1, -0.05, 0.3, -0.4, 0.02, 0.15);

    Interval a = PercentileBootstrap.defaults().meanInterval(noisy);
    Interval b = PercentileBootstrap.defaults().meanInterval(noisy);
    Interval c = new PercentileBootstrap(10_000, 7, 0.95).meanInterval(noisy);

    assertThat(b).isEqualTo(a);
    assertThat(c).isNotEqualTo(a);
  }

  @Test
  void meanInterval_shiftedSample_excludesZeroAndStaysWithinRange() {
    Interval ci = PercentileBootstrap.defaults().meanInterval(SHIFTED);

    assertThat(ci.point()).isCloseTo(-0.28, org.assertj.core.data.Offset.offset(1e-12));
    assertThat(ci.high()).isLessThan(0);
    assertThat(ci.low()).isGreaterThanOrEqualTo(-0.31).isLessThan(ci.point());
    assertThat(ci.high()).isLessThanOrEqualTo(-0.25).isGreaterThan(ci.point());
  }

  @Test
  void meanInterval_centredNoise_containsZero() {
    List<Double> centred = List.of(-0.1, 0.1, -0.05, 0.05, 0.0, -0.08, 0.08);

    Interval ci = PercentileBootstrap.defaults().meanInterval(centred);

    assertThat(ci.low()).isLessThan(0);
    assertThat(ci.high()).isGreaterThan(0);
  }

  @Test
  void meanInterval_normalSample_widthMatchesStandardError() {
    SplittableRandom random = new SplittableRandom(1);
    List<Double> sample = new ArrayList<>();
    for (int i = 0; i < 400; i++) {
      sample.add(random.nextGaussian());
    }
    double mean = Percentiles.mean(sample);
    double sd = 0;
    for (double v : sample) {
      sd += (v - mean) * (v - mean);
    }
    sd = Math.sqrt(sd / sample.size());

    Interval ci = PercentileBootstrap.defaults().meanInterval(sample);

    double expectedHalfWidth = 1.96 * sd / Math.sqrt(sample.size());
    assertThat((ci.high() - ci.low()) / 2)
        .isBetween(0.9 * expectedHalfWidth, 1.1 * expectedHalfWidth);
  }

  @Test
  void meanInterval_badValues_failWithRule() {
    assertThatThrownBy(() -> PercentileBootstrap.defaults().meanInterval(List.of()))
        .hasMessage("a bootstrap needs at least one value: 0 given");
    assertThatThrownBy(() -> PercentileBootstrap.defaults().meanInterval(List.of(1.0, Double.NaN)))
        .hasMessage("values must be finite: NaN at index 1");
    assertThatThrownBy(() -> new PercentileBootstrap(10, 1, 0.95))
        .hasMessage("resamples must be at least 100: 10");
    assertThatThrownBy(() -> new PercentileBootstrap(1000, 1, 1.5))
        .hasMessage("confidence must be in (0, 1): 1.5");
    assertThatThrownBy(() -> new MovingBlockBootstrap(0, 1000, 1, 0.95))
        .hasMessage("blockLength must be at least 1: 0");
  }

  @Test
  void movingBlock_constantValues_zeroWidth() {
    Interval ci =
        MovingBlockBootstrap.defaults().meanInterval(java.util.Collections.nCopies(28, 2.0));

    assertThat(ci.low()).isEqualTo(2.0);
    assertThat(ci.high()).isEqualTo(2.0);
  }

  @Test
  void movingBlock_sameSeed_identical_andShiftedSampleExcludesZero() {
    List<Double> windows = new ArrayList<>();
    SplittableRandom random = new SplittableRandom(3);
    for (int i = 0; i < 28; i++) {
      windows.add(-0.2 + 0.05 * random.nextGaussian());
    }

    Interval a = MovingBlockBootstrap.defaults().meanInterval(windows);
    Interval b = MovingBlockBootstrap.defaults().meanInterval(windows);

    assertThat(b).isEqualTo(a);
    assertThat(a.high()).isLessThan(0);
    assertThat(a.low()).isLessThan(a.point());
  }

  @Test
  void movingBlock_autocorrelatedWindows_widerThanIidInterval() {
    // Seven runs of four identical windows: the blocks keep each run together, so the effective
    // sample is seven values, not 28, and the interval must be wider than the i.i.d. one.
    double[] levels = {-0.5, 0.3, -0.1, 0.4, -0.3, 0.2, 0.0};
    List<Double> windows = new ArrayList<>();
    for (double level : levels) {
      for (int i = 0; i < 4; i++) {
        windows.add(level);
      }
    }

    Interval block = MovingBlockBootstrap.defaults().meanInterval(windows);
    Interval iid = PercentileBootstrap.defaults().meanInterval(windows);

    assertThat(block.high() - block.low()).isGreaterThan(1.3 * (iid.high() - iid.low()));
  }

  @Test
  void movingBlock_fewerValuesThanBlock_isZeroWidth() {
    Interval ci = MovingBlockBootstrap.defaults().meanInterval(List.of(1.0, 3.0));

    assertThat(ci.point()).isEqualTo(2.0);
    assertThat(ci.low()).isEqualTo(2.0);
    assertThat(ci.high()).isEqualTo(2.0);
  }
}
