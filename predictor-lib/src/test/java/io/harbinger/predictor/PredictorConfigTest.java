package io.harbinger.predictor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class PredictorConfigTest {

  @Test
  void defaults_matchSeedPaperTableOne_butForgetNothingByTheClock() {
    PredictorConfig c = PredictorConfig.defaults();
    assertThat(c.levels()).isEqualTo(3);
    assertThat(c.defaultLevel()).isEqualTo(1);
    assertThat(c.keyDecay()).isEqualTo(0.995);
    assertThat(c.pooledDecay()).isEqualTo(0.9999);
    // Table 1 has 10 and 30 minutes; the defaults depart from it (PredictorConfig's notes).
    assertThat(c.idleHalfLife()).isZero();
    assertThat(c.staleAfter()).isZero();
    assertThat(c.minObservations()).isEqualTo(20);
    assertThat(c.maxCensoredShare()).isEqualTo(0.05);
    assertThat(c.maxSpreadRatio()).isEqualTo(16);
    assertThat(c.spreadQuantile()).isEqualTo(0.99);
    assertThat(c.boundaryMinObservations()).isEqualTo(100);
    assertThat(c.boundaryRefreshEvery()).isEqualTo(256);
    assertThat(c.boundaryHysteresis()).isEqualTo(0.10);
    assertThat(c.maxKeys()).isEqualTo(16_384);
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
    assertThatThrownBy(() -> PredictorConfig.builder().pooledDecay(1.5).build())
        .hasMessage("pooledDecay must be in (0, 1]: 1.5");
    assertThatThrownBy(() -> PredictorConfig.builder().keyDecay(Double.NaN).build())
        .hasMessageContaining("keyDecay");
    assertThatThrownBy(() -> PredictorConfig.builder().minObservations(0).build())
        .hasMessage("minObservations must be at least 1: 0");
    assertThatThrownBy(() -> PredictorConfig.builder().maxCensoredShare(-0.1).build())
        .hasMessageContaining("maxCensoredShare");
    assertThatThrownBy(() -> PredictorConfig.builder().maxSpreadRatio(0.5).build())
        .hasMessageContaining("maxSpreadRatio");
    assertThatThrownBy(() -> PredictorConfig.builder().spreadQuantile(0.3).build())
        .hasMessageContaining("spreadQuantile");
    assertThatThrownBy(() -> PredictorConfig.builder().staleAfter(Duration.ofSeconds(-1)).build())
        .hasMessageContaining("staleAfter must not be negative");
    assertThatThrownBy(() -> PredictorConfig.builder().idleHalfLife(null).build())
        .isInstanceOf(NullPointerException.class)
        .hasMessageContaining("idleHalfLife");
    assertThatThrownBy(() -> PredictorConfig.builder().boundaryHysteresis(1).build())
        .hasMessageContaining("boundaryHysteresis");
    assertThatThrownBy(() -> PredictorConfig.builder().shards(300).build())
        .hasMessage("shards must be in [1, 256]: 300");
    assertThatThrownBy(() -> PredictorConfig.builder().maxKeys(4).shards(16).build())
        .hasMessage("maxKeys must be at least shards (16): 4");
  }

  @Test
  void toBuilder_roundTrips() {
    PredictorConfig c = PredictorConfig.builder().levels(5).sizeBins(true).build();
    assertThat(c.toBuilder().build()).isEqualTo(c);
  }

  @Test
  void build_invalidSafeguardAndReachValues_failWithTheRangeAndTheValue() {
    assertThatThrownBy(() -> PredictorConfig.builder().mispredictionEnter(0).build())
        .hasMessage("mispredictionEnter must be in (0, 2]: 0.0");
    assertThatThrownBy(() -> PredictorConfig.builder().mispredictionExit(0.9).build())
        .hasMessage("mispredictionExit must be in (0, mispredictionEnter = 0.8): 0.9");
    assertThatThrownBy(() -> PredictorConfig.builder().mispredictionMemory(1).build())
        .hasMessage("mispredictionMemory must be in [2, 100000]: 1");
    assertThatThrownBy(() -> PredictorConfig.builder().safeguardMargin(1).build())
        .hasMessage("safeguardMargin must be in [-1, 1): 1.0");
    assertThatThrownBy(() -> PredictorConfig.builder().safeguardHysteresis(-0.1).build())
        .hasMessage("safeguardHysteresis must be in [0, 1): -0.1");
    assertThatThrownBy(() -> PredictorConfig.builder().safeguardLoad(1).build())
        .hasMessage("safeguardLoad must be in [0.05, 0.99]: 1.0");
    assertThatThrownBy(() -> PredictorConfig.builder().safeguardMinReports(0).build())
        .hasMessage("safeguardMinReports must be at least 1: 0");
    assertThatThrownBy(() -> PredictorConfig.builder().safeguardDecay(1).build())
        .hasMessage("safeguardDecay must be in (0, 1): 1.0");
    assertThatThrownBy(() -> PredictorConfig.builder().safeguardMinReports(600).build())
        .hasMessageStartingWith("safeguardMinReports must be below the decayed weight")
        .hasMessageEndingWith(": 600");
    assertThatThrownBy(() -> PredictorConfig.builder().relativeIdle(Double.NaN).build())
        .hasMessage("relativeIdle must be in [0, 1000]: NaN");
    assertThatThrownBy(() -> PredictorConfig.builder().promoteColdAfter(20).build())
        .hasMessage("promoteColdAfter must be 0 or in [1, minObservations = 20): 20");
    assertThatThrownBy(() -> PredictorConfig.builder().promoteColdAfter(-1).build())
        .hasMessage("promoteColdAfter must be 0 or in [1, minObservations = 20): -1");
    assertThatThrownBy(
            () -> PredictorConfig.builder().minObservations(5).promoteColdAfter(5).build())
        .hasMessage("promoteColdAfter must be 0 or in [1, minObservations = 5): 5");
    assertThat(PredictorConfig.builder().promoteColdAfter(19).build().promoteColdAfter())
        .isEqualTo(19);
    assertThat(PredictorConfig.defaults().promoteColdAfter()).isZero();
  }

  @Test
  void defaults_guardBothWaysAndKeepFixedIdleLimits() {
    PredictorConfig c = PredictorConfig.defaults();
    assertThat(c.keyGuard()).isTrue();
    assertThat(c.safeguard()).isTrue();
    assertThat(c.borrowFromProducer()).isTrue();
    assertThat(c.borrowFromSize()).isTrue();
    assertThat(c.relativeIdle()).isZero();
    assertThat(c.toBuilder().build()).isEqualTo(c);
  }

  @Test
  void tailLimit_zeroOrOneToHundred_otherwiseNamed() {
    assertThat(PredictorConfig.defaults().tailLimit()).isZero();
    assertThat(PredictorConfig.builder().tailLimit(1).build().tailLimit()).isEqualTo(1);
    assertThat(PredictorConfig.builder().tailLimit(100).build().tailLimit()).isEqualTo(100);
    for (double bad : new double[] {0.5, -1, 101, Double.NaN, Double.POSITIVE_INFINITY}) {
      assertThatThrownBy(() -> PredictorConfig.builder().tailLimit(bad).build())
          .hasMessage("tailLimit must be 0 or in [1, 100]: " + bad);
    }
  }

  @Test
  void tailSink_zeroOrOneToHundred_otherwiseNamed() {
    assertThat(PredictorConfig.defaults().tailSink()).isZero();
    assertThat(PredictorConfig.builder().tailSink(1).build().tailSink()).isEqualTo(1);
    assertThat(PredictorConfig.builder().tailSink(100).build().tailSink()).isEqualTo(100);
    for (double bad : new double[] {0.5, -1, 101, Double.NaN, Double.POSITIVE_INFINITY}) {
      assertThatThrownBy(() -> PredictorConfig.builder().tailSink(bad).build())
          .hasMessage("tailSink must be 0 or in [1, 100]: " + bad);
    }
  }
}
