package io.harbinger.experiments.stats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class PercentilesTest {

  @Test
  void nearestRank_fourValues_picksCeilRankWithoutInterpolation() {
    double[] values = {40, 10, 30, 20};

    assertThat(Percentiles.nearestRank(values, 50)).isEqualTo(20);
    assertThat(Percentiles.nearestRank(values, 25)).isEqualTo(10);
    assertThat(Percentiles.nearestRank(values, 26)).isEqualTo(20);
    assertThat(Percentiles.nearestRank(values, 75)).isEqualTo(30);
    assertThat(Percentiles.nearestRank(values, 99)).isEqualTo(40);
    assertThat(Percentiles.nearestRank(values, 100)).isEqualTo(40);
    assertThat(Percentiles.nearestRank(values, 0)).isEqualTo(10);
  }

  @Test
  void nearestRank_oneToHundred_percentileEqualsRank() {
    List<Integer> values = IntStream.rangeClosed(1, 100).boxed().toList();

    assertThat(Percentiles.nearestRank(values, 50)).isEqualTo(50);
    assertThat(Percentiles.nearestRank(values, 99)).isEqualTo(99);
    assertThat(Percentiles.nearestRank(values, 99.5)).isEqualTo(100);
    assertThat(Percentiles.nearestRank(values, 1)).isEqualTo(1);
  }

  @Test
  void nearestRank_oddCount_medianIsMiddleElement() {
    assertThat(Percentiles.nearestRank(new double[] {5, 1, 3}, 50)).isEqualTo(3);
  }

  @Test
  void nearestRank_doesNotModifyInput() {
    double[] values = {3, 1, 2};

    Percentiles.nearestRank(values, 50);

    assertThat(values).containsExactly(3, 1, 2);
  }

  @Test
  void nearestRank_badInput_failsWithRule() {
    assertThatThrownBy(() -> Percentiles.nearestRank(new double[0], 50))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("a percentile needs at least one value: 0 given");
    assertThatThrownBy(() -> Percentiles.nearestRank(new double[] {1}, 101))
        .hasMessage("percent must be in [0, 100]: 101.0");
    assertThatThrownBy(() -> Percentiles.nearestRank(new double[] {1}, Double.NaN))
        .hasMessage("percent must be in [0, 100]: NaN");
  }

  @Test
  void mean_knownValues_isArithmeticMean() {
    assertThat(Percentiles.mean(new double[] {1, 2, 3, 10})).isEqualTo(4.0);
    assertThat(Percentiles.mean(List.of(2.5, 3.5))).isEqualTo(3.0);
    assertThatThrownBy(() -> Percentiles.mean(new double[0]))
        .hasMessage("a mean needs at least one value: 0 given");
  }
}
