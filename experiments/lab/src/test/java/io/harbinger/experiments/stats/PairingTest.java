package io.harbinger.experiments.stats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PairingTest {

  @Test
  void pair_relativeDelta_perSeedInSeedOrder() {
    PairedValues pairs =
        Pairing.pair(
            Map.of("22", 6.6, "11", 6.0, "100", 9.0),
            Map.of("11", 8.0, "22", 8.8, "100", 9.0),
            PairedStatistic.RELATIVE_DELTA);

    assertThat(pairs.evaluable()).isTrue();
    assertThat(pairs.units()).containsExactly("11", "22", "100");
    assertThat(pairs.values().get(0)).isCloseTo(-0.25, within(1e-12));
    assertThat(pairs.values().get(1)).isCloseTo(-0.25, within(1e-12));
    assertThat(pairs.values().get(2)).isCloseTo(0.0, within(1e-12));
    assertThat(pairs.armValues()).containsExactly(6.0, 6.6, 9.0);
  }

  @Test
  void pair_ratio_armOverBaseline() {
    PairedValues pairs =
        Pairing.pair(
            Map.of("11", 23.4, "22", 10.0), Map.of("11", 22.5, "22", 10.0), PairedStatistic.RATIO);

    assertThat(pairs.values().get(0)).isCloseTo(1.04, within(1e-12));
    assertThat(pairs.values().get(1)).isEqualTo(1.0);
  }

  @Test
  void pair_unitOnOneSideOnly_isDropped() {
    PairedValues pairs =
        Pairing.pair(
            Map.of("11", 1.0, "22", 2.0, "33", 3.0),
            Map.of("22", 1.0, "33", 1.0, "44", 1.0),
            PairedStatistic.RATIO);

    assertThat(pairs.units()).containsExactly("22", "33");
    assertThat(pairs.values()).containsExactly(2.0, 3.0);
  }

  @Test
  void pair_singlePair_unevaluable() {
    PairedValues pairs =
        Pairing.pair(Map.of("11", 1.0), Map.of("11", 2.0), PairedStatistic.RELATIVE_DELTA);

    assertThat(pairs.evaluable()).isFalse();
    assertThat(pairs.unevaluableReason()).isEqualTo("at least 2 paired units are required: 1");
  }

  @Test
  void pair_zeroOrMissingBaseline_unevaluable() {
    PairedValues zero =
        Pairing.pair(
            Map.of("11", 1.0, "22", 1.0),
            Map.of("11", 0.0, "22", 2.0),
            PairedStatistic.RELATIVE_DELTA);
    Map<String, Double> withNull = new HashMap<>();
    withNull.put("11", null);
    withNull.put("22", 2.0);
    PairedValues missing =
        Pairing.pair(Map.of("11", 1.0, "22", 1.0), withNull, PairedStatistic.RATIO);

    assertThat(zero.evaluable()).isFalse();
    assertThat(zero.unevaluableReason())
        .isEqualTo("baseline value of unit 11 is zero or missing: 0.0");
    assertThat(missing.unevaluableReason())
        .isEqualTo("baseline value of unit 11 is zero or missing: null");
  }

  @Test
  void pair_noCommonUnits_unevaluable() {
    PairedValues pairs = Pairing.pair(Map.of("11", 1.0), Map.of(), PairedStatistic.RELATIVE_DELTA);

    assertThat(pairs.evaluable()).isFalse();
    assertThat(pairs.units()).isEmpty();
  }
}
