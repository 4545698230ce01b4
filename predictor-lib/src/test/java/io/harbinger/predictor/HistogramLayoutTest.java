package io.harbinger.predictor;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.DoubleRange;
import org.junit.jupiter.api.Test;

class HistogramLayoutTest {

  @Test
  void layout_range_resolvesTenMicrosToBeyondOneHour() {
    assertThat(HistogramLayout.lowerEdge(1)).isEqualTo(10_000.0);
    assertThat(HistogramLayout.MAX_NANOS).isGreaterThanOrEqualTo(Duration.ofHours(1).toNanos());
  }

  @Test
  void layout_everyGeometricBin_isAtMostThirtyThreePercentWide() {
    for (int b = 1; b < HistogramLayout.BIN_COUNT; b++) {
      double ratio = HistogramLayout.upperEdge(b) / HistogramLayout.lowerEdge(b);
      assertThat(ratio).as("bin %d", b).isLessThanOrEqualTo(1.33).isGreaterThan(1.0);
    }
  }

  @Test
  void binOf_knownValues_landInDocumentedBins() {
    assertThat(HistogramLayout.binOf(0)).isZero();
    assertThat(HistogramLayout.binOf(9_999)).isZero();
    assertThat(HistogramLayout.binOf(10_000)).isEqualTo(1);
    assertThat(HistogramLayout.binOf(3_000_000)).isEqualTo(25);
    assertThat(HistogramLayout.binOf(1e18)).isEqualTo(HistogramLayout.BIN_COUNT - 1);
  }

  @Property
  void binOf_anyDuration_liesWithinItsBinEdges(
      @ForAll @DoubleRange(min = 0, max = 5.3e12) double nanos) {
    int bin = HistogramLayout.binOf(nanos);
    assertThat(nanos).isGreaterThanOrEqualTo(HistogramLayout.lowerEdge(bin) * (1 - 1e-12));
    assertThat(nanos).isLessThanOrEqualTo(HistogramLayout.upperEdge(bin) * (1 + 1e-12));
  }
}
