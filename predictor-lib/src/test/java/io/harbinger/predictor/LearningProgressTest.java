package io.harbinger.predictor;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** When a predictor with the defaults starts reordering, as {@link LearningProgress} reports it. */
class LearningProgressTest {

  private final ManualTicker ticker = new ManualTicker();
  private final HistogramPredictor predictor =
      new HistogramPredictor(PredictorConfig.defaults(), ticker, Mode.PREDICTIVE);

  private static String key(String jobType) {
    return Keys.of("producer", jobType);
  }

  private void observe(String key, double millis, int times) {
    for (int i = 0; i < times; i++) {
      predictor.observe(key, millis * 1e6 * (1 + 0.01 * (i % 5)));
      ticker.advanceNanos(1_000_000);
    }
  }

  @Test
  void of_newPredictor_isLearningWithNothingYet() {
    LearningProgress p = LearningProgress.of(predictor);

    assertThat(p.reordering()).isFalse();
    assertThat(p.trustedKeys()).isZero();
    assertThat(p.boundaries()).isFalse();
    assertThat(p.safeguardEstimate()).isFalse();
    assertThat(p.describe())
        .isEqualTo(
            "learning: 0 keys trusted, 0 learning (20 observations each), 0 untrusted; 0 reports"
                + " pooled (levels from 100); safeguard estimate after 356 reports");
  }

  @Test
  void of_thirtyJobsOfTwoTypes_hasNoLevelsYet() {
    observe(key("send_email"), 5, 30);
    observe(key("export"), 2_000, 30);

    LearningProgress p = LearningProgress.of(predictor);

    assertThat(p.trustedKeys()).isZero();
    assertThat(p.learningKeys()).isEqualTo(2);
    assertThat(p.pooledReports()).isEqualTo(60);
    assertThat(p.boundaries()).isFalse();
    assertThat(p.reordering()).isFalse();
    assertThat(predictor.predict(key("send_email")).level())
        .isEqualTo(predictor.predict(key("export")).level());
  }

  @Test
  void of_fiftyJobsOfTwoTypes_reorders() {
    observe(key("send_email"), 5, 50);
    observe(key("export"), 2_000, 50);
    observe(key("new_type"), 50, 3);

    LearningProgress p = LearningProgress.of(predictor);

    assertThat(p.boundaries()).isTrue();
    assertThat(p.trustedKeys()).isEqualTo(2);
    assertThat(p.learningKeys()).isEqualTo(1);
    assertThat(p.safeguardEstimate()).isFalse();
    assertThat(p.reordering()).isTrue();
    assertThat(predictor.predict(key("send_email")).level())
        .isLessThan(predictor.predict(key("export")).level());
    assertThat(p.describe())
        .startsWith("reordering: 2 keys trusted, 1 learning (20 observations each), 0 untrusted;")
        .endsWith("safeguard estimate after 356 reports");
  }

  @Test
  void of_after356Reports_hasTheSafeguardsEstimate() {
    observe(key("send_email"), 5, 178);
    observe(key("export"), 2_000, 177);
    assertThat(LearningProgress.of(predictor).safeguardEstimate()).isFalse();
    observe(key("export"), 2_000, 1);

    LearningProgress p = LearningProgress.of(predictor);

    assertThat(p.safeguardEstimate()).isTrue();
    assertThat(p.safeguardHolding()).isFalse();
    assertThat(p.describe()).endsWith("safeguard estimate made");
  }

  @Test
  void of_shadowMode_isNeverReordering() {
    predictor.setMode(Mode.SHADOW);
    observe(key("send_email"), 5, 60);
    observe(key("export"), 2_000, 60);

    LearningProgress p = LearningProgress.of(predictor);

    assertThat(p.trustedKeys()).isEqualTo(2);
    assertThat(p.reordering()).isFalse();
    assertThat(p.describe()).startsWith("shadow mode, not reordering: 2 keys trusted");
  }
}
