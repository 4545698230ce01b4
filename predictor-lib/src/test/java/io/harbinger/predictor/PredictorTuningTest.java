package io.harbinger.predictor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class PredictorTuningTest {

  private static HistogramPredictor predictor(PredictorConfig config, PredictorTuning tuning) {
    return new HistogramPredictor(config, tuning, new ManualTicker(), Mode.PREDICTIVE);
  }

  @Test
  void defaults_matchSeedPaperTableOne_butForgetNothingByTheClock() {
    PredictorTuning t = PredictorTuning.defaults();
    assertThat(t.pooledDecay()).isEqualTo(0.9999);
    // Table 1 has 10 minutes; the default departs from it (PredictorTuning's notes).
    assertThat(t.idleHalfLife()).isZero().isEqualTo(PredictorTuning.DEFAULT_IDLE_HALF_LIFE);
    assertThat(t.maxCensoredShare()).isEqualTo(0.05);
    assertThat(t.spreadQuantile()).isEqualTo(0.99);
    assertThat(t.boundaryMinObservations()).isEqualTo(100);
    assertThat(t.boundaryRefreshEvery()).isEqualTo(256);
    assertThat(t.boundaryHysteresis()).isEqualTo(0.10);
    assertThat(t.shards()).isEqualTo(16);
  }

  @Test
  void build_invalidValues_failWithTheRuleAndTheValue() {
    assertThatThrownBy(() -> PredictorTuning.builder().pooledDecay(1.5).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("pooledDecay must be in (0, 1]: 1.5");
    assertThatThrownBy(() -> PredictorTuning.builder().maxCensoredShare(-0.1).build())
        .hasMessageContaining("maxCensoredShare");
    assertThatThrownBy(() -> PredictorTuning.builder().spreadQuantile(0.3).build())
        .hasMessageContaining("spreadQuantile");
    assertThatThrownBy(() -> PredictorTuning.builder().idleHalfLife(null).build())
        .isInstanceOf(NullPointerException.class)
        .hasMessageContaining("idleHalfLife");
    assertThatThrownBy(() -> PredictorTuning.builder().idleHalfLife(Duration.ofSeconds(-1)).build())
        .hasMessage("idleHalfLife must not be negative: PT-1S");
    assertThatThrownBy(() -> PredictorTuning.builder().boundaryHysteresis(1).build())
        .hasMessageContaining("boundaryHysteresis");
    assertThatThrownBy(() -> PredictorTuning.builder().shards(300).build())
        .hasMessage("shards must be in [1, 256]: 300");
  }

  @Test
  void predictor_fewerKeysThanShards_isRefusedNamingBoth() {
    assertThatThrownBy(
            () ->
                predictor(
                    PredictorConfig.builder().maxKeys(4).build(),
                    PredictorTuning.builder().shards(16).build()))
        .hasMessage("maxKeys must be at least shards (16): 4");
    assertThat(
            predictor(
                    PredictorConfig.builder().maxKeys(4).build(),
                    PredictorTuning.builder().shards(4).build())
                .levels())
        .isEqualTo(3);
  }

  @Test
  void build_invalidSafeguardAndReachValues_failWithTheRangeAndTheValue() {
    assertThatThrownBy(() -> PredictorTuning.builder().mispredictionEnter(0).build())
        .hasMessage("mispredictionEnter must be in (0, 2]: 0.0");
    assertThatThrownBy(() -> PredictorTuning.builder().mispredictionExit(0.9).build())
        .hasMessage("mispredictionExit must be in (0, mispredictionEnter = 0.8): 0.9");
    assertThatThrownBy(() -> PredictorTuning.builder().mispredictionMemory(1).build())
        .hasMessage("mispredictionMemory must be in [2, 100000]: 1");
    assertThatThrownBy(() -> PredictorTuning.builder().safeguardMargin(1).build())
        .hasMessage("safeguardMargin must be in [-1, 1): 1.0");
    assertThatThrownBy(() -> PredictorTuning.builder().safeguardHysteresis(-0.1).build())
        .hasMessage("safeguardHysteresis must be in [0, 1): -0.1");
    assertThatThrownBy(() -> PredictorTuning.builder().safeguardLoad(1).build())
        .hasMessage("safeguardLoad must be in [0.05, 0.99]: 1.0");
    assertThatThrownBy(() -> PredictorTuning.builder().safeguardMinReports(0).build())
        .hasMessage("safeguardMinReports must be at least 1: 0");
    assertThatThrownBy(() -> PredictorTuning.builder().safeguardDecay(1).build())
        .hasMessage("safeguardDecay must be in (0, 1): 1.0");
    assertThatThrownBy(() -> PredictorTuning.builder().safeguardMinReports(600).build())
        .hasMessageStartingWith("safeguardMinReports must be below the decayed weight")
        .hasMessageEndingWith(": 600");
    assertThatThrownBy(() -> PredictorTuning.builder().relativeIdle(Double.NaN).build())
        .hasMessage("relativeIdle must be in [0, 1000]: NaN");
  }

  @Test
  void promoteColdAfter_isCheckedAgainstTheConfigurationsMinObservations() {
    PredictorConfig defaults = PredictorConfig.defaults();
    assertThatThrownBy(
            () -> predictor(defaults, PredictorTuning.builder().promoteColdAfter(20).build()))
        .hasMessage("promoteColdAfter must be 0 or in [1, minObservations = 20): 20");
    assertThatThrownBy(
            () -> predictor(defaults, PredictorTuning.builder().promoteColdAfter(-1).build()))
        .hasMessage("promoteColdAfter must be 0 or in [1, minObservations = 20): -1");
    assertThatThrownBy(
            () ->
                PredictorTuning.builder()
                    .promoteColdAfter(5)
                    .build()
                    .check(PredictorConfig.builder().minObservations(5).build()))
        .hasMessage("promoteColdAfter must be 0 or in [1, minObservations = 5): 5");
    assertThat(predictor(defaults, PredictorTuning.builder().promoteColdAfter(19).build()).levels())
        .isEqualTo(3);
    assertThat(PredictorTuning.defaults().promoteColdAfter()).isZero();
  }

  @Test
  void defaults_guardBothWaysAndKeepFixedIdleLimits() {
    PredictorTuning t = PredictorTuning.defaults();
    assertThat(t.keyGuard()).isTrue();
    assertThat(PredictorConfig.defaults().safeguard()).isTrue();
    assertThat(t.borrowFromProducer()).isTrue();
    assertThat(t.borrowFromSize()).isTrue();
    assertThat(t.relativeIdle()).isZero();
    assertThat(t.toBuilder().build()).isEqualTo(t);
  }

  @Test
  void tailLimit_zeroOrOneToHundred_otherwiseNamed() {
    assertThat(PredictorTuning.defaults().tailLimit()).isZero();
    assertThat(PredictorTuning.builder().tailLimit(1).build().tailLimit()).isEqualTo(1);
    assertThat(PredictorTuning.builder().tailLimit(100).build().tailLimit()).isEqualTo(100);
    for (double bad : new double[] {0.5, -1, 101, Double.NaN, Double.POSITIVE_INFINITY}) {
      assertThatThrownBy(() -> PredictorTuning.builder().tailLimit(bad).build())
          .hasMessage("tailLimit must be 0 or in [1, 100]: " + bad);
    }
  }

  @Test
  void tailSink_zeroOrOneToHundred_otherwiseNamed() {
    assertThat(PredictorTuning.defaults().tailSink()).isZero();
    assertThat(PredictorTuning.builder().tailSink(1).build().tailSink()).isEqualTo(1);
    assertThat(PredictorTuning.builder().tailSink(100).build().tailSink()).isEqualTo(100);
    for (double bad : new double[] {0.5, -1, 101, Double.NaN, Double.POSITIVE_INFINITY}) {
      assertThatThrownBy(() -> PredictorTuning.builder().tailSink(bad).build())
          .hasMessage("tailSink must be 0 or in [1, 100]: " + bad);
    }
  }

  @Test
  void predictorWithDefaultTuning_behavesAsTheProductPredictor() {
    ManualTicker a = new ManualTicker();
    ManualTicker b = new ManualTicker();
    HistogramPredictor product =
        new HistogramPredictor(PredictorConfig.defaults(), a, Mode.PREDICTIVE);
    HistogramPredictor lab =
        new HistogramPredictor(
            PredictorConfig.defaults(), PredictorTuning.defaults(), b, Mode.PREDICTIVE);
    String[] keys = {Keys.of("shop", "fast"), Keys.of("shop", "mid"), Keys.of("shop", "slow")};
    double[] nanos = {2e6, 40e6, 2e9};
    java.util.SplittableRandom random = new java.util.SplittableRandom(3);
    for (int i = 0; i < 3_000; i++) {
      int k = random.nextInt(3);
      double d = nanos[k] * (0.5 + random.nextDouble());
      a.advance(Duration.ofMillis(5));
      b.advance(Duration.ofMillis(5));
      product.observe(keys[k], d);
      lab.observe(keys[k], d);
      assertThat(lab.predict(keys[k])).isEqualTo(product.predict(keys[k]));
    }
    assertThat(lab.boundaries()).isEqualTo(product.boundaries());
  }
}
