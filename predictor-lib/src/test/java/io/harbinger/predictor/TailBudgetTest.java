package io.harbinger.predictor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class TailBudgetTest {

  private static final double MS = 1_000_000;

  /**
   * A production-like mix: 40% of the jobs at 3 ms, 30% at 10 ms, 15% at 25 ms and 15% at 100 ms.
   * The work is 1.2 + 3 + 3.75 + 15 = 22.95 units, so the 85% of jobs under 100 ms carry 34.6% of
   * it and the 70% under 25 ms carry 18.3%. The tertiles put the 25 ms jobs in the last level.
   */
  private static HistogramPredictor warmed(PredictorConfig config) {
    HistogramPredictor p = new HistogramPredictor(config, new ManualTicker(), Mode.PREDICTIVE);
    double[] cycle = {3, 3, 3, 3, 3, 3, 3, 3, 10, 10, 10, 10, 10, 10, 25, 25, 25, 100, 100, 100};
    for (int i = 0; i < 2_000; i++) {
      p.observe(Keys.of("shop", "t" + (i % cycle.length)), cycle[i % cycle.length] * MS);
    }
    return p;
  }

  /** The predictor of seed paper equation 2: every boundary at the equal quantiles. */
  private static PredictorConfig equalQuantiles() {
    return PredictorConfig.builder().tailBudget(0).build();
  }

  @Test
  void boundaries_withoutABudget_areTheEqualQuantiles() {
    Boundaries b = warmed(equalQuantiles()).boundaries().orElseThrow();
    // Tertiles of the observations: the 33rd percentile among the 3 ms jobs, the 67th among the
    // 10 ms ones.
    assertThat(b.nanos(0)).isBetween(2.5 * MS, 3.5 * MS);
    assertThat(b.nanos(1)).isBetween(8.5 * MS, 11.5 * MS);
  }

  @Test
  void boundaries_withABudget_raiseTheLastOneWhileTheWorkAboveStaysWithinIt() {
    // (1 - 1/1.5) / 0.8 = 41.7% of the work may lie above the last level: all the 25 ms jobs
    // (34.6% with everything shorter) fit, the 100 ms ones do not.
    PredictorConfig config = PredictorConfig.builder().tailBudget(1.5).build();
    assertThat(PooledHistogram.workShareAbove(config, PredictorTuning.defaults()))
        .isCloseTo(5.0 / 12, within());
    HistogramPredictor p = warmed(config);
    Boundaries b = p.boundaries().orElseThrow();

    assertThat(b.nanos(1)).isBetween(25 * MS, 100 * MS);
    // The level above splits the observations under the last boundary equally, so the first
    // boundary is at their median, among the 10 ms jobs.
    assertThat(b.nanos(0)).isBetween(8 * MS, 12 * MS);
    assertThat(p.predict(Keys.of("shop", "t17")).level()).isEqualTo(2); // 100 ms
    assertThat(p.predict(Keys.of("shop", "t14")).level()).isEqualTo(1); // 25 ms
    assertThat(p.predict(Keys.of("shop", "t0")).level()).isZero(); // 3 ms
    HistogramPredictor plain = warmed(equalQuantiles());
    assertThat(plain.predict(Keys.of("shop", "t14")).level()).isEqualTo(2);
  }

  @Test
  void workShareAbove_followsCobhamAtTheSafeguardLoad() {
    // The last level waits 1 / (1 - s) times FIFO's when the levels before it carry a load s.
    assertThat(
            PooledHistogram.workShareAbove(
                PredictorConfig.builder().tailBudget(1.25).build(),
                PredictorTuning.builder().safeguardLoad(0.8).build()))
        .isCloseTo(0.25, within());
    assertThat(
            PooledHistogram.workShareAbove(
                PredictorConfig.builder().tailBudget(2).build(),
                PredictorTuning.builder().safeguardLoad(0.5).build()))
        .isCloseTo(1, within());
    assertThat(PooledHistogram.workShareAbove(equalQuantiles(), PredictorTuning.defaults()))
        .isZero();
  }

  @Test
  void boundaries_withATightBudget_keepTheEqualQuantilesRatherThanLowerTheLastOne() {
    // 1.05: only 5.95% of the work above, less than the tertiles give; the budget never takes
    // work away from the levels above, so the boundaries are the tertiles.
    PredictorConfig config = PredictorConfig.builder().tailBudget(1.05).build();
    Boundaries tight = warmed(config).boundaries().orElseThrow();
    Boundaries plain = warmed(equalQuantiles()).boundaries().orElseThrow();

    assertThat(tight.toArray()).containsExactly(plain.toArray());
  }

  @Test
  void config_tailBudgetOutOfRange_isRejectedNamingIt() {
    assertThat(PredictorConfig.defaults().tailBudget())
        .isEqualTo(PredictorConfig.DEFAULT_TAIL_BUDGET)
        .isEqualTo(1.25);
    for (double bad : new double[] {-1, 0.5, 1, 100.5, Double.NaN}) {
      assertThatThrownBy(() -> PredictorConfig.builder().tailBudget(bad).build())
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("tailBudget must be 0 or in (1, 100]: " + bad);
    }
  }

  @Test
  void defaults_boundaryInsideOneKeysMass_neverSplitsTheKey() {
    // The default budget, (1 - 1/1.25) / 0.8 = 25% of the work above the last level, ends inside
    // the 25 ms jobs' mass: those shorter carry 18.3%, with them 34.6%. A boundary cannot split a
    // key, whose estimate is one number: the 25 ms key stays last, and the budget still moves the
    // 10 ms jobs up to the middle level, where the tertiles left them at the boundary.
    HistogramPredictor p = warmed(PredictorConfig.defaults());
    Boundaries b = p.boundaries().orElseThrow();
    assertThat(b.nanos(1)).isBetween(12 * MS, 25 * MS);
    assertThat(p.predict(Keys.of("shop", "t14")).level()).isEqualTo(2); // 25 ms
    assertThat(p.predict(Keys.of("shop", "t17")).level()).isEqualTo(2); // 100 ms
    assertThat(p.predict(Keys.of("shop", "t8")).level()).isEqualTo(1); // 10 ms
    assertThat(p.predict(Keys.of("shop", "t0")).level()).isZero(); // 3 ms
  }

  private static org.assertj.core.data.Offset<Double> within() {
    return org.assertj.core.data.Offset.offset(1e-9);
  }
}
