package io.harbinger.predictor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class ShiftRunTest {

  private static final double MS = 1_000_000;
  private static final String FAST = Keys.of("shop", "reserve_inventory");
  private static final String MID = Keys.of("shop", "send_order_email");
  private static final String SLOW = Keys.of("shop", "export_report");

  private final ManualTicker ticker = new ManualTicker(1_000_000_000L);

  private HistogramPredictor predictor(int shiftRun) {
    // Equal-quantile boundaries, so that the levels are those of the tertiles.
    PredictorConfig config = PredictorConfig.builder().safeguard(false).tailBudget(0).build();
    PredictorTuning tuning = PredictorTuning.builder().shiftRun(shiftRun).keyGuard(false).build();
    return new HistogramPredictor(config, tuning, ticker, Mode.PREDICTIVE);
  }

  /** Three keys at 3 ms, 40 ms and 2 s, so that the levels are 0, 1 and 2 in that order. */
  private static void warm(Predictor p, int rounds) {
    for (int i = 0; i < rounds; i++) {
      p.observe(FAST, 3 * MS);
      p.observe(MID, 40 * MS);
      p.observe(SLOW, 2000 * MS);
    }
  }

  @Test
  void observe_keyTurnedTenTimesCheaper_reachesTheFastLevelAfterOneRun() {
    HistogramPredictor guarded = predictor(8);
    HistogramPredictor plain = predictor(0);
    for (HistogramPredictor p : new HistogramPredictor[] {guarded, plain}) {
      warm(p, 300);
      assertThat(p.predict(MID).level()).isEqualTo(1);
      for (int i = 0; i < 8; i++) {
        p.observe(MID, 2.5 * MS);
        p.observe(FAST, 3 * MS);
        p.observe(SLOW, 2000 * MS);
      }
    }

    Prediction rebased = guarded.predict(MID);
    assertThat(rebased.outcome()).isEqualTo(Outcome.PREDICTED);
    assertThat(rebased.level()).isZero();
    assertThat(rebased.estimateNanos()).isBetween(2 * MS, 3 * MS);
    assertThat(guarded.stats().rebases()).isEqualTo(1);
    // The key stays proven: its observation count goes on.
    assertThat(guarded.keyStats(MID).orElseThrow().observations()).isEqualTo(308);

    // Decay alone still holds the old regime after the same eight observations.
    assertThat(plain.predict(MID).level()).isEqualTo(1);
    assertThat(plain.stats().rebases()).isZero();
  }

  @Test
  void observe_keyTurnedTenTimesCostlier_leavesTheFastLevelAfterOneRun() {
    HistogramPredictor p = predictor(8);
    warm(p, 300);
    for (int i = 0; i < 7; i++) {
      p.observe(FAST, 40 * MS);
    }
    assertThat(p.stats().rebases()).isZero();
    p.observe(FAST, 40 * MS);

    assertThat(p.stats().rebases()).isEqualTo(1);
    assertThat(p.predict(FAST).level()).isEqualTo(1);
  }

  @Test
  void observe_bimodalKeyOfSeedPaperSection35_isNeverRebased() {
    HistogramPredictor p = predictor(8);
    warm(p, 100);
    String bimodal = Keys.of("shop", "bimodal");
    // 92% of its jobs at 3 ms and 8% at 3 s, interleaved: the slow ones never come eight in a row.
    for (int i = 0; i < 5000; i++) {
      p.observe(bimodal, i % 25 < 2 ? 3000 * MS : 3 * MS);
    }

    assertThat(p.stats().rebases()).isZero();
    Prediction b = p.predict(bimodal);
    assertThat(b.outcome()).isEqualTo(Outcome.SPREAD);
    assertThat(b.level()).isEqualTo(2);
  }

  @Test
  void defaults_haveAShiftRunOfEight_andLeaveTheBimodalKeyDrawnAtRandomAlone() {
    assertThat(PredictorTuning.defaults().shiftRun())
        .isEqualTo(PredictorTuning.DEFAULT_SHIFT_RUN)
        .isEqualTo(8);
    HistogramPredictor p =
        new HistogramPredictor(PredictorConfig.defaults(), ticker, Mode.PREDICTIVE);
    warm(p, 100);
    String bimodal = Keys.of("shop", "bimodal");
    // Section 3.5's key with its slow 8% drawn at random, so that slow jobs do cluster: eight in a
    // row come with probability 0.08^8, about once in 600 million observations.
    SplittableRandom random = new SplittableRandom(18);
    for (int i = 0; i < 20_000; i++) {
      p.observe(bimodal, random.nextDouble() < 0.08 ? 3000 * MS : 3 * MS);
      if (i % 100 == 0) {
        warm(p, 1);
      }
      ticker.advance(Duration.ofMillis(5));
    }

    assertThat(p.stats().rebases()).isZero();
    assertThat(p.predict(bimodal).outcome()).isEqualTo(Outcome.SPREAD);
  }

  @Test
  void observe_runBrokenByAnObservationNearTheEstimate_startsAgain() {
    HistogramPredictor p = predictor(8);
    warm(p, 300);
    for (int round = 0; round < 20; round++) {
      for (int i = 0; i < 7; i++) {
        p.observe(MID, 3.5 * MS);
      }
      p.observe(MID, 40 * MS);
    }
    // Seven one-sided observations, then one at the estimate: never a run of eight.
    assertThat(p.stats().rebases()).isZero();

    // A run that changes side starts again too: 4 below, then 4 above, is no run of eight.
    HistogramPredictor q = predictor(8);
    warm(q, 300);
    for (int i = 0; i < 4; i++) {
      q.observe(MID, 3.5 * MS);
    }
    for (int i = 0; i < 4; i++) {
      q.observe(MID, 400 * MS);
    }
    assertThat(q.stats().rebases()).isZero();
  }

  @Test
  void observe_coldKey_isNotJudgedForAShift() {
    HistogramPredictor p = predictor(8);
    warm(p, 100);
    String fresh = Keys.of("shop", "fresh");
    for (int i = 0; i < 10; i++) {
      p.observe(fresh, 40 * MS);
    }
    for (int i = 0; i < 9; i++) {
      p.observe(fresh, 3 * MS);
    }
    // Nineteen observations, one short of the 20 that prove a key: no estimate to depart from.
    assertThat(p.stats().rebases()).isZero();
  }

  @Test
  void config_shiftRunOutOfRange_isRejectedNamingIt() {
    assertThatThrownBy(() -> PredictorTuning.builder().shiftRun(-1).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("shiftRun must be in [0, 1000]: -1");
    assertThatThrownBy(() -> PredictorTuning.builder().shiftRun(1001).build())
        .hasMessage("shiftRun must be in [0, 1000]: 1001");
  }
}
