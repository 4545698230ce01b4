package io.harbinger.scheduler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class KeyedCostAverageTest {

  @Test
  void eachKey_keepsItsOwnAverage_theFirstSampleAsIs() {
    KeyedCostAverage costs = new KeyedCostAverage(8);
    costs.add("quick", 2e6);
    costs.add("slow", 100e6);
    costs.add("slow", 200e6);

    assertThat(costs.averageMillis("quick")).isEqualTo(2.0);
    // 100 + 0.05 x (200 - 100)
    assertThat(costs.averageMillis("slow")).isEqualTo(105.0);
    assertThat(costs.averageMillis("never")).isNaN();
  }

  @Test
  void beyondMaxKeys_aNewKeyIsNotTracked_knownKeysStillAre() {
    KeyedCostAverage costs = new KeyedCostAverage(2);
    costs.add("a", 1e6);
    costs.add("b", 1e6);
    costs.add("c", 1e6);
    costs.add("a", 21e6);

    assertThat(costs.keys()).isEqualTo(2);
    assertThat(costs.averageMillis("c")).isNaN();
    assertThat(costs.averageMillis("a")).isEqualTo(2.0);
  }

  @Test
  void garbageDurations_areIgnored_andTrackNoKey() {
    KeyedCostAverage costs = new KeyedCostAverage(4);
    costs.add("a", -1);
    costs.add("a", Double.NaN);
    costs.add("a", Double.POSITIVE_INFINITY);
    assertThat(costs.keys()).isZero();
    costs.add("a", 4e6);
    costs.add("a", Double.NaN);
    assertThat(costs.averageMillis("a")).isEqualTo(4.0);
    assertThatThrownBy(() -> new KeyedCostAverage(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("maxKeys");
  }
}
