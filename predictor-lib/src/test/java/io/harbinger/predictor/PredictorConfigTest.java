package io.harbinger.predictor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class PredictorConfigTest {

  @Test
  void defaults_matchSeedPaperTableOne_butForgetNothingByTheClock() {
    PredictorConfig c = PredictorConfig.defaults();
    assertThat(c.levels()).isEqualTo(3).isEqualTo(PredictorConfig.DEFAULT_LEVELS);
    assertThat(c.defaultLevel()).isEqualTo(1);
    assertThat(c.keyDecay()).isEqualTo(0.995).isEqualTo(PredictorConfig.DEFAULT_KEY_DECAY);
    // Table 1 has 30 minutes; the default departs from it (PredictorConfig's notes).
    assertThat(c.staleAfter()).isZero();
    assertThat(c.minObservations()).isEqualTo(20);
    assertThat(c.maxSpreadRatio()).isEqualTo(16);
    assertThat(c.maxKeys()).isEqualTo(16_384).isEqualTo(PredictorConfig.DEFAULT_MAX_KEYS);
    assertThat(c.sizeBins()).isFalse().isEqualTo(PredictorConfig.DEFAULT_SIZE_BINS);
    assertThat(c.safeguard()).isTrue().isEqualTo(PredictorConfig.DEFAULT_SAFEGUARD);
  }

  @Test
  void record_holdsExactlyTheTenPublicSettings() {
    assertThat(
            Arrays.stream(PredictorConfig.class.getRecordComponents())
                .map(java.lang.reflect.RecordComponent::getName))
        .containsExactly(
            "levels",
            "keyDecay",
            "staleAfter",
            "minObservations",
            "maxSpreadRatio",
            "maxKeys",
            "sizeBins",
            "safeguard",
            "tailBudget",
            "untrustedLast");
  }

  @Test
  void build_invalidValues_failWithTheRuleAndTheValue() {
    assertThatThrownBy(() -> PredictorConfig.builder().levels(12).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("levels must be in [2, 10]: 12");
    assertThatThrownBy(() -> PredictorConfig.builder().levels(1).build())
        .hasMessage("levels must be in [2, 10]: 1");
    assertThatThrownBy(() -> PredictorConfig.builder().keyDecay(0).build())
        .hasMessage("keyDecay must be in (0, 1]: 0.0");
    assertThatThrownBy(() -> PredictorConfig.builder().keyDecay(Double.NaN).build())
        .hasMessageContaining("keyDecay");
    assertThatThrownBy(() -> PredictorConfig.builder().minObservations(0).build())
        .hasMessage("minObservations must be at least 1: 0");
    assertThatThrownBy(() -> PredictorConfig.builder().maxSpreadRatio(0.5).build())
        .hasMessageContaining("maxSpreadRatio");
    assertThatThrownBy(() -> PredictorConfig.builder().staleAfter(Duration.ofSeconds(-1)).build())
        .hasMessageContaining("staleAfter must not be negative");
    assertThatThrownBy(() -> PredictorConfig.builder().staleAfter(null).build())
        .isInstanceOf(NullPointerException.class)
        .hasMessageContaining("staleAfter");
    assertThatThrownBy(() -> PredictorConfig.builder().maxKeys(0).build())
        .hasMessage("maxKeys must be at least 1: 0");
  }

  @Test
  void predictor_fewerKeysThanLockShards_isRefusedNamingBoth() {
    PredictorConfig four = PredictorConfig.builder().maxKeys(4).build();
    assertThatThrownBy(() -> new HistogramPredictor(four))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("maxKeys must be at least shards (16): 4");
    assertThat(PredictorTuning.defaults().shards()).isEqualTo(PredictorConfig.MIN_MAX_KEYS);
    assertThat(new HistogramPredictor(PredictorConfig.builder().maxKeys(16).build()).levels())
        .isEqualTo(3);
  }

  @Test
  void toBuilder_roundTrips() {
    PredictorConfig c = PredictorConfig.builder().levels(5).sizeBins(true).build();
    assertThat(c.toBuilder().build()).isEqualTo(c);
    assertThat(PredictorConfig.defaults().toBuilder().build())
        .isEqualTo(PredictorConfig.defaults());
  }
}
