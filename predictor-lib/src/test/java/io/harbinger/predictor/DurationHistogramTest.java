package io.harbinger.predictor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.DoubleRange;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;

class DurationHistogramTest {

  private static final double NO_DECAY = 1.0;

  @Test
  void quantile_empty_isNaN() {
    assertThat(new DurationHistogram().quantile(0.5)).isNaN();
  }

  @Test
  void quantile_singleBin_interpolatesInsideTheBin() {
    DurationHistogram h = new DurationHistogram();
    for (int i = 0; i < 100; i++) {
      h.add(3_000_000, NO_DECAY);
    }
    int bin = HistogramLayout.binOf(3_000_000);
    double lower = HistogramLayout.lowerEdge(bin);
    double upper = HistogramLayout.upperEdge(bin);
    assertThat(h.quantile(0.5)).isCloseTo(lower + 0.5 * (upper - lower), within(1.0));
    assertThat(h.quantile(0.99)).isCloseTo(lower + 0.99 * (upper - lower), within(1.0));
  }

  @Test
  void quantile_twoPopulations_splitsAtTheirShares() {
    DurationHistogram h = new DurationHistogram();
    for (int i = 0; i < 92; i++) {
      h.add(3_000_000, NO_DECAY);
    }
    for (int i = 0; i < 8; i++) {
      h.add(3_000_000_000.0, NO_DECAY);
    }
    assertThat(h.quantile(0.5)).isBetween(2.5e6, 3.3e6);
    assertThat(h.quantile(0.99)).isBetween(2.5e9, 3.3e9);
    assertThat(h.mean()).isCloseTo(0.92 * 3e6 + 0.08 * 3e9, within(1e3));
  }

  @Test
  void add_aboveTopEdge_isStoredAtTheTopAndCountedSaturated() {
    DurationHistogram h = new DurationHistogram();
    assertThat(h.add(HistogramLayout.MAX_NANOS * 3, NO_DECAY)).isTrue();
    assertThat(h.saturated).isEqualTo(1);
    assertThat(h.mean()).isEqualTo(HistogramLayout.MAX_NANOS);
  }

  @Test
  void add_withDecay_oldRegimeLosesHalfItsWeightAfterOneHalfLife() {
    double decay = 0.995;
    DurationHistogram h = new DurationHistogram();
    for (int i = 0; i < 5_000; i++) {
      h.add(2_000_000, 1 / decay);
    }
    int halfLife = (int) Math.round(Math.log(0.5) / Math.log(decay));
    for (int i = 0; i < halfLife; i++) {
      h.add(200_000_000, 1 / decay);
    }
    // The old regime now carries half of the weight: the median sits at the edge between the two.
    double below = h.bins[HistogramLayout.binOf(2_000_000)];
    assertThat(below / h.total).isCloseTo(0.5, within(0.01));
  }

  @Test
  void renormalisation_manyObservations_keepsQuantilesAndScaleBounded() {
    DurationHistogram h = new DurationHistogram();
    for (int i = 0; i < 100_000; i++) {
      h.add(i % 2 == 0 ? 1_000_000 : 9_000_000, 1 / 0.995);
    }
    assertThat(h.scale).isLessThanOrEqualTo(DurationHistogram.RENORMALISE_ABOVE);
    assertThat(h.quantile(0.25)).isBetween(0.8e6, 1.3e6);
    assertThat(h.quantile(0.75)).isBetween(7e6, 1.1e7);
    assertThat(h.observations).isEqualTo(100_000);
  }

  @Test
  void add_noDecayBeyondFloatPrecision_stillCountsNewObservations() {
    // Without decay a float bin stops resolving +1 increments near 2^24; weights are halved at 2^22
    // instead.
    DurationHistogram h = new DurationHistogram();
    for (int i = 0; i < 3_000_000; i++) {
      h.add(1_000_000, NO_DECAY);
    }
    for (int i = 0; i < 1_000_000; i++) {
      h.add(50_000_000, NO_DECAY);
    }
    assertThat(h.total).isLessThanOrEqualTo(DurationHistogram.MAX_WEIGHT_RATIO);
    assertThat(h.quantile(0.5)).isLessThan(2e6);
    assertThat(h.quantile(0.9)).isGreaterThan(4e7);
    double newShare = h.bins[HistogramLayout.binOf(50_000_000)] / h.total;
    assertThat(newShare).isBetween(0.25, 0.45);
  }

  @Test
  void decayBy_halvesOldWeightRelativeToNewObservations() {
    DurationHistogram h = new DurationHistogram();
    for (int i = 0; i < 100; i++) {
      h.add(1_000_000, NO_DECAY);
    }
    h.decayBy(0.5);
    for (int i = 0; i < 50; i++) {
      h.add(100_000_000, NO_DECAY);
    }
    // Old weight 50 against new weight 50: the median is at the boundary between them.
    double oldShare = h.bins[HistogramLayout.binOf(1_000_000)] / h.total;
    assertThat(oldShare).isCloseTo(0.5, within(1e-6));
  }

  @Test
  void decayBy_astronomicalGap_forgetsOldWeightWithoutOverflow() {
    DurationHistogram h = new DurationHistogram();
    for (int i = 0; i < 100; i++) {
      h.add(1_000_000, 1 / 0.995);
    }
    h.decayBy(1e-300);
    h.decayBy(1e-300);
    h.add(100_000_000, 1 / 0.995);
    assertThat(h.scale).isFinite();
    assertThat(h.quantile(0.01)).isGreaterThan(5e7);
  }

  @Test
  void censoredShare_decaysLikeObservations() {
    DurationHistogram h = new DurationHistogram();
    for (int i = 0; i < 10; i++) {
      h.addCensored(1 / 0.995);
    }
    assertThat(h.censoredShare()).isEqualTo(1.0);
    for (int i = 0; i < 2_000; i++) {
      h.add(1_000_000, 1 / 0.995);
    }
    assertThat(h.censoredShare()).isLessThan(0.001);
    assertThat(h.observations).isEqualTo(2_000);
  }

  @Property
  void bounds_coverEveryBinThatHoldsWeight(
      @ForAll @Size(max = 200) java.util.List<@DoubleRange(min = 0, max = 1e12) Double> values) {
    DurationHistogram h = new DurationHistogram();
    int n = 0;
    for (double v : values) {
      h.add(v, 1 / 0.995);
      if (++n % 50 == 0) {
        h.decayBy(1e-20);
      }
      if (n == 120) {
        h.clear();
      }
      assertBoundsCoverWeight(h);
    }
    DurationHistogram copy = new DurationHistogram();
    copy.copyFrom(h);
    assertBoundsCoverWeight(copy);
    java.util.Arrays.fill(copy.bins, 0f);
    copy.bins[7] = 1f;
    copy.boundsFromBins();
    assertThat(copy.low).isEqualTo(7);
    assertThat(copy.high).isEqualTo(7);
  }

  @Property
  void quantiles_giveExactlyWhatQuantileGivesOneByOne(
      @ForAll @Size(max = 200) java.util.List<@DoubleRange(min = 0, max = 1e12) Double> values,
      @ForAll @DoubleRange(min = 0, max = 1) double a,
      @ForAll @DoubleRange(min = 0, max = 1) double b) {
    DurationHistogram h = new DurationHistogram();
    int n = 0;
    for (double v : values) {
      h.add(v, 1 / 0.995);
      if (++n % 50 == 0) {
        h.decayBy(1e-20);
      }
    }
    double[] qs = {0, Math.min(a, b), Math.max(a, b), 1};
    double[] out = new double[4];
    int[] calls = new int[1];
    h.quantiles(
        qs[1],
        qs[2],
        (index, nanos) -> {
          assertThat(index).isEqualTo(calls[0]++);
          out[index] = nanos;
        });
    assertThat(calls[0]).isEqualTo(4);
    for (int i = 0; i < qs.length; i++) {
      assertThat(Double.doubleToLongBits(out[i]))
          .as("quantile %s", qs[i])
          .isEqualTo(Double.doubleToLongBits(h.quantile(qs[i])));
    }
  }

  private static void assertBoundsCoverWeight(DurationHistogram h) {
    for (int b = 0; b < h.bins.length; b++) {
      if (b < h.low || b > h.high) {
        assertThat(h.bins[b]).as("bin %d outside [%d, %d]", b, h.low, h.high).isZero();
      }
    }
  }

  @Property
  void quantile_isMonotoneInQ(
      @ForAll @Size(min = 1, max = 200)
          java.util.List<@DoubleRange(min = 0, max = 1e12) Double> values) {
    DurationHistogram h = new DurationHistogram();
    for (double v : values) {
      h.add(v, 1 / 0.995);
    }
    double previous = -1;
    for (double q = 0.05; q <= 0.95; q += 0.05) {
      double value = h.quantile(q);
      assertThat(value).isGreaterThanOrEqualTo(previous);
      previous = value;
    }
  }
}
