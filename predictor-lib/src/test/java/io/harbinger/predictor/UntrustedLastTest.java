package io.harbinger.predictor;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Unmeasured keys routed at the last level ({@code untrustedLast}, on by default). */
class UntrustedLastTest {

  private static final double MS = UndecidedWork.MS;
  private static final String FAST = UndecidedWork.FAST;
  private static final String SLOW = UndecidedWork.SLOW;
  private static final String FRESH = Keys.of("tenant-new", "import");

  private final ManualTicker ticker = new ManualTicker(1_000_000_000L);

  private HistogramPredictor predictor(PredictorConfig config, Mode mode) {
    return new HistogramPredictor(config, ticker, mode);
  }

  private static void rounds(Predictor p, int from, int to) {
    for (int r = from; r < to; r++) {
      UndecidedWork.round(p, r);
    }
  }

  @Test
  void defaults_routeUntrustedKeysLast() {
    assertThat(PredictorConfig.defaults().untrustedLast())
        .isEqualTo(PredictorConfig.DEFAULT_UNTRUSTED_LAST)
        .isTrue();
    assertThat(PredictorConfig.builder().untrustedLast(false).build().toBuilder().build())
        .extracting(PredictorConfig::untrustedLast)
        .isEqualTo(false);
  }

  @Test
  void predict_keyNeverSeen_goesLastWithTheLongJobsNotAheadOfThem() {
    HistogramPredictor p = predictor(PredictorConfig.defaults(), Mode.PREDICTIVE);
    rounds(p, 0, 100);

    assertThat(p.routesUntrustedLast()).isTrue();
    Prediction fresh = p.predict(FRESH);
    // Routed last; placed, for the safeguard and the drift signals, where the paper places it.
    assertThat(fresh)
        .extracting(
            Prediction::level,
            Prediction::predictedLevel,
            Prediction::outcome,
            Prediction::isPredicted)
        .containsExactly(2, 1, Outcome.COLD, false);
    assertThat(fresh.estimateNanos()).isNaN();
    assertThat(p.stats().tailSunk()).isEqualTo(1);
    assertThat(p.predict(SLOW))
        .extracting(Prediction::level, Prediction::outcome)
        .containsExactly(2, Outcome.PREDICTED);
    assertThat(p.predict(FAST))
        .extracting(Prediction::level, Prediction::outcome)
        .containsExactly(0, Outcome.PREDICTED);
    // The global safeguard judges the paper's placement, with the imports at the default level.
    SafeguardStatus s = p.safeguard();
    assertThat(s.jobShares().get(1)).as("%s", s).isGreaterThan(0.4);
    assertThat(s.holding()).isFalse();
    assertThat(s.estimatedGain()).isPositive();
  }

  @Test
  void predict_withoutIt_theKeyNeverSeenTakesTheDefaultLevel() {
    HistogramPredictor p =
        predictor(PredictorConfig.builder().untrustedLast(false).build(), Mode.PREDICTIVE);
    rounds(p, 0, 100);
    assertThat(p.routesUntrustedLast()).isFalse();
    assertThat(p.predict(FRESH))
        .extracting(Prediction::level, Prediction::predictedLevel, Prediction::outcome)
        .containsExactly(1, 1, Outcome.COLD);
  }

  @Test
  void predict_beforeTheSafeguardHasJudged_keepsTheDefaultLevel() {
    HistogramPredictor p = predictor(PredictorConfig.defaults(), Mode.PREDICTIVE);
    // 20 reports a round: boundaries, but fewer decayed reports than the safeguard needs (200).
    rounds(p, 0, 5);
    assertThat(p.boundaries()).isPresent();
    assertThat(p.routesUntrustedLast()).isFalse();
    assertThat(p.predict(FRESH).level()).isEqualTo(1);
    rounds(p, 5, 20);
    assertThat(p.routesUntrustedLast()).isTrue();
    assertThat(p.predict(FRESH).level()).isEqualTo(2);
    // Without the global safeguard's hold the estimate is still made: untrusted keys go last once
    // it exists, as with the safeguard on, and only then.
    HistogramPredictor unguarded =
        predictor(PredictorConfig.builder().safeguard(false).build(), Mode.PREDICTIVE);
    rounds(unguarded, 0, 5);
    assertThat(unguarded.routesUntrustedLast()).isFalse();
    assertThat(unguarded.predict(FRESH).level()).isEqualTo(1);
    rounds(unguarded, 5, 20);
    assertThat(unguarded.routesUntrustedLast()).isTrue();
    assertThat(unguarded.predict(FRESH).level()).isEqualTo(2);
    assertThat(unguarded.safeguard().holding()).isFalse();
  }

  @Test
  void predict_inShadowMode_routesAndStampsTheDefaultLevel() {
    HistogramPredictor p = predictor(PredictorConfig.defaults(), Mode.SHADOW);
    rounds(p, 0, 20);
    assertThat(p.predict(FRESH))
        .extracting(Prediction::level, Prediction::predictedLevel, Prediction::outcome)
        .containsExactly(p.defaultLevel(), p.defaultLevel(), Outcome.COLD);
    assertThat(p.stats().tailSunk()).isZero();
  }

  @Test
  void predict_beforeBoundariesOrForAnInvalidKey_keepsTheDefaultLevel() {
    HistogramPredictor p = predictor(PredictorConfig.defaults(), Mode.PREDICTIVE);
    assertThat(p.predict(FAST))
        .extracting(Prediction::level, Prediction::outcome)
        .containsExactly(p.defaultLevel(), Outcome.UNREADY);
    rounds(p, 0, 20);
    assertThat(p.predict("k".repeat(300)))
        .extracting(Prediction::level, Prediction::outcome)
        .containsExactly(p.defaultLevel(), Outcome.INVALID_KEY);
  }

  @Test
  void predict_unmeasuredForAnyReason_goesLastUnlessItsEvidencePlacesItHigher() {
    // Staleness as in seed paper Table 1 (the default has none).
    HistogramPredictor p =
        new HistogramPredictor(
            PredictorConfig.builder().staleAfter(Duration.ofMinutes(30)).build(),
            PredictorTuning.builder()
                .promoteColdAfter(3)
                .idleHalfLife(Duration.ofMinutes(10))
                .build(),
            ticker,
            Mode.PREDICTIVE);
    rounds(p, 0, 20);
    assertThat(p.routesUntrustedLast()).isTrue();
    // Spread: 95% at 1 ms, 5% at 30 ms. Its cheap mean is a cost: it keeps the default level,
    // ahead of the long jobs, where it is never placed above.
    String jittery = Keys.of("shop", "jittery");
    for (int i = 0; i < 100; i++) {
      p.observe(jittery, i % 20 == 0 ? 30 * MS : 1 * MS);
    }
    assertThat(p.predict(jittery))
        .extracting(Prediction::level, Prediction::outcome)
        .containsExactly(p.defaultLevel(), Outcome.SPREAD);
    // A few observations all under the first boundary: promoted, not sent last.
    String ping = Keys.of("tools", "ping");
    for (int i = 0; i < 3; i++) {
      p.observe(ping, 1 * MS);
    }
    assertThat(p.predict(ping))
        .extracting(Prediction::level, Prediction::outcome)
        .containsExactly(0, Outcome.COLD);
    // Stale: idle past the staleness limit, the proven short key no longer goes first.
    ticker.advance(Duration.ofMinutes(31));
    assertThat(p.predict(FAST))
        .extracting(Prediction::level, Prediction::outcome)
        .containsExactly(2, Outcome.STALE);
    assertThat(p.predict(ping))
        .extracting(Prediction::level, Prediction::outcome)
        .containsExactly(2, Outcome.COLD);
  }

  @Test
  void predict_mispredictedKeyWithItsMeanAtTheDefaultLevel_staysThereWhileTheUnknownGoLast() {
    HistogramPredictor p = predictor(PredictorConfig.defaults(), Mode.PREDICTIVE);
    String mixed = Keys.of("media", "resize_image");
    double[] cycle = {10 * MS, 40 * MS, 150 * MS};
    for (int i = 0; i < 90; i++) {
      p.observe(Keys.of("shop", "tight"), 40 * MS);
      p.observe(Keys.of("shop", "a"), 10 * MS);
      p.observe(Keys.of("shop", "c"), 150 * MS);
      p.observe(mixed, cycle[i % 3]);
    }
    assertThat(p.routesUntrustedLast()).isTrue();
    // Its median misses as much as a global median would, but its mean (about 67 ms) is a cost in
    // the default level's interval: behind the 150 ms jobs it would wait for nothing.
    assertThat(p.predict(mixed))
        .extracting(Prediction::level, Prediction::predictedLevel, Prediction::outcome)
        .containsExactly(p.defaultLevel(), p.defaultLevel(), Outcome.MISPREDICTED);
    assertThat(p.predict(FRESH))
        .extracting(Prediction::level, Prediction::predictedLevel, Prediction::outcome)
        .containsExactly(p.levels() - 1, p.defaultLevel(), Outcome.COLD);
  }

  @Test
  void outcome_unmeasuredVerdicts_areTheKeysWithoutACostOfTheirOwn() {
    assertThat(Outcome.values())
        .filteredOn(Outcome::isUnmeasured)
        .containsExactlyInAnyOrder(Outcome.COLD, Outcome.STALE, Outcome.CENSORED);
  }

  @Test
  void outcome_untrustedVerdicts_areTheKeysWithoutATrustedEstimate() {
    assertThat(Outcome.values())
        .filteredOn(Outcome::isUntrusted)
        .containsExactlyInAnyOrder(
            Outcome.COLD, Outcome.STALE, Outcome.CENSORED, Outcome.SPREAD, Outcome.MISPREDICTED);
  }
}
