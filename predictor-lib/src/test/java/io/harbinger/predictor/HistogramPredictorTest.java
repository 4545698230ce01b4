package io.harbinger.predictor;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class HistogramPredictorTest {

  private static final double MS = 1_000_000;
  private static final String FAST = Keys.of("shop", "reserve_inventory");
  private static final String MID = Keys.of("shop", "send_email");
  private static final String SLOW = Keys.of("shop", "export_report");

  private final ManualTicker ticker = new ManualTicker(1_000_000_000L);

  private HistogramPredictor predictor(PredictorConfig config) {
    return new HistogramPredictor(config, ticker, Mode.PREDICTIVE);
  }

  private HistogramPredictor predictor(PredictorConfig config, PredictorTuning tuning) {
    return new HistogramPredictor(config, tuning, ticker, Mode.PREDICTIVE);
  }

  /**
   * The defaults but with untrusted keys at the default level of seed paper section 3.5 and Table
   * 1's idle limits: most tests here place keys against that level ({@code UntrustedLastTest}
   * covers the last) and some let keys idle into staleness.
   */
  private HistogramPredictor predictor() {
    return predictor(tableOneIdle().untrustedLast(false).build(), tableOneHalfLife().build());
  }

  /** The defaults with seed paper Table 1's staleness (30 min). */
  private static PredictorConfig.Builder tableOneIdle() {
    return PredictorConfig.builder().staleAfter(Duration.ofMinutes(30));
  }

  /** The default tuning with seed paper Table 1's idle half-life (10 min). */
  private static PredictorTuning.Builder tableOneHalfLife() {
    return PredictorTuning.builder().idleHalfLife(Duration.ofMinutes(10));
  }

  /**
   * The boundaries of seed paper equation 2 (no tail budget): with {@link #warm}'s keys, the top
   * boundary lies near 40 ms. The default budget moves it into the 2 s key's mass, since that key
   * carries 97% of the work, so the tests of placement against the top boundary pin it.
   */
  private static PredictorConfig.Builder equalQuantiles() {
    return PredictorConfig.builder().tailBudget(0).untrustedLast(false);
  }

  /**
   * Observes three keys of 2 ms, 40 ms and 2 s, 40 times each, interleaved: boundaries get
   * published.
   */
  private static void warm(Predictor p) {
    for (int i = 0; i < 40; i++) {
      p.observe(FAST, 2 * MS);
      p.observe(MID, 40 * MS);
      p.observe(SLOW, 2000 * MS);
    }
  }

  private static void observe(Predictor p, String key, double nanos, int times) {
    for (int i = 0; i < times; i++) {
      p.observe(key, nanos);
    }
  }

  @Test
  void predict_warmKeys_routeShortWorkFirst() {
    HistogramPredictor p = predictor();
    warm(p);
    assertThat(p.boundaries()).isPresent();
    assertThat(p.predict(FAST))
        .extracting(Prediction::level, Prediction::outcome)
        .containsExactly(0, Outcome.PREDICTED);
    assertThat(p.predict(MID).level()).isEqualTo(1);
    assertThat(p.predict(SLOW).level()).isEqualTo(2);
    assertThat(p.predict(FAST).estimateNanos()).isBetween(1.5 * MS, 2.6 * MS);
  }

  @Test
  void fewObservations_predictAKeyFromItsFirstObservationAndIgnoreItsSpread() {
    String once = Keys.of("batch", "render_thumbnail");
    String wide = Keys.of("batch", "train_model");
    HistogramPredictor paper = predictor(PredictorConfig.builder().untrustedLast(false).build());
    HistogramPredictor few =
        predictor(PredictorConfig.builder().untrustedLast(false).fewObservations().build());
    for (HistogramPredictor p : List.of(paper, few)) {
      warm(p);
      p.observe(once, 2 * MS);
      for (int i = 0; i < 30; i++) {
        p.observe(wide, (i % 10 == 0 ? 60 : 2) * MS);
      }
    }

    assertThat(paper.predict(once).outcome()).isEqualTo(Outcome.COLD);
    assertThat(few.predict(once))
        .extracting(Prediction::level, Prediction::outcome)
        .containsExactly(0, Outcome.PREDICTED);
    assertThat(paper.predict(wide).outcome()).isEqualTo(Outcome.SPREAD);
    assertThat(few.predict(wide))
        .extracting(Prediction::level, Prediction::outcome)
        .containsExactly(0, Outcome.PREDICTED);
  }

  @Test
  void fewObservations_setOnlyItsThreeSettings() {
    PredictorConfig c = PredictorConfig.builder().fewObservations().build();

    assertThat(c.minObservations()).isEqualTo(1);
    assertThat(c.maxSpreadRatio()).isEqualTo(1000.0);
    assertThat(c.tailBudget()).isEqualTo(1.1);
    assertThat(c.toBuilder().minObservations(20).maxSpreadRatio(16).tailBudget(1.25).build())
        .isEqualTo(PredictorConfig.defaults());
  }

  @Test
  void predict_invalidKey_fallsBackBeforeAnyOtherGate() {
    HistogramPredictor p = predictor();
    assertThat(p.predict(null).outcome()).isEqualTo(Outcome.INVALID_KEY);
    assertThat(p.predict("").outcome()).isEqualTo(Outcome.INVALID_KEY);
    assertThat(p.predict("k".repeat(257)).outcome()).isEqualTo(Outcome.INVALID_KEY);
    assertThat(p.predict("k".repeat(257)).level()).isEqualTo(1);
    assertThat(p.predict(FAST).outcome()).isEqualTo(Outcome.UNREADY);
    assertThat(p.stats().predictions())
        .containsEntry(Outcome.INVALID_KEY, 4L)
        .containsEntry(Outcome.UNREADY, 1L);
  }

  @Test
  void predict_beforeHundredPooledObservations_isUnready() {
    HistogramPredictor p = predictor();
    observe(p, FAST, 2 * MS, 99);
    assertThat(p.predict(FAST).outcome()).isEqualTo(Outcome.UNREADY);
    assertThat(p.boundaries()).isEmpty();
    p.observe(FAST, 2 * MS);
    assertThat(p.boundaries()).isPresent();
    assertThat(p.predict(FAST).outcome()).isEqualTo(Outcome.PREDICTED);
  }

  @Test
  void predict_fewerThanTwentyObservations_isCold() {
    HistogramPredictor p = predictor();
    warm(p);
    String key = Keys.of("shop", "new_job");
    assertThat(p.predict(key).outcome()).isEqualTo(Outcome.COLD);
    observe(p, key, 2 * MS, 19);
    assertThat(p.predict(key).outcome()).isEqualTo(Outcome.COLD);
    p.observe(key, 2 * MS);
    assertThat(p.predict(key).outcome()).isEqualTo(Outcome.PREDICTED);
  }

  @Test
  void predict_bimodalKey_isNeverRoutedByItsFastMedian() {
    for (boolean demote : new boolean[] {true, false}) {
      HistogramPredictor p =
          predictor(
              equalQuantiles().build(), PredictorTuning.builder().demoteUntrusted(demote).build());
      warm(p);
      String bimodal = Keys.of("shop", "sometimes_slow");
      String plain = Keys.of("shop", "always_fast");
      for (int i = 0; i < 50; i++) {
        // 92% at 3 ms, 8% at 3,000 ms (seed paper section 3.5).
        p.observe(bimodal, i % 25 < 2 ? 3000 * MS : 3 * MS);
        p.observe(plain, 1 * MS);
      }
      Prediction b = p.predict(bimodal);
      assertThat(b.outcome()).isEqualTo(Outcome.SPREAD);
      assertThat(p.keyStats(bimodal).orElseThrow().medianNanos()).isLessThan(4 * MS);
      // Its mean, about 240 ms, is beyond the top boundary: demoted to the last level; without
      // demotion it takes the default level of seed paper section 3.5. Never the fast level.
      assertThat(b.level()).isEqualTo(demote ? 2 : p.defaultLevel());
      Prediction f = p.predict(plain);
      assertThat(f.outcome()).isEqualTo(Outcome.PREDICTED);
      assertThat(f.level()).isZero();
    }
    // Under the default tail budget the last level holds the 2 s key alone, and the bimodal key's
    // mean lies in the middle level: still never the fast one.
    HistogramPredictor p = predictor();
    warm(p);
    String bimodal = Keys.of("shop", "sometimes_slow");
    for (int i = 0; i < 50; i++) {
      p.observe(bimodal, i % 25 < 2 ? 3000 * MS : 3 * MS);
    }
    assertThat(p.predict(bimodal))
        .extracting(Prediction::level, Prediction::outcome)
        .containsExactly(1, Outcome.SPREAD);
  }

  @Test
  void predict_keyWithASlowSucceedingTail_isPlacedByItsMeanNotTheMiddle() {
    HistogramPredictor p = predictor(equalQuantiles().build());
    warm(p);
    // A webhook: 86% near 40 ms, 12% at 300 ms, 2% at 1,500 ms, all succeeding. Its 99th
    // percentile is about 35 times its median: untrusted, but its expected cost is well above the
    // top boundary, and the middle level would put it ahead of cheaper work.
    String webhook = Keys.of("partner", "deliver_webhook");
    for (int i = 0; i < 200; i++) {
      int r = i % 50;
      p.observe(webhook, r == 0 ? 1500 * MS : r < 7 ? 300 * MS : 40 * MS);
    }
    Prediction w = p.predict(webhook);
    assertThat(w.outcome()).isEqualTo(Outcome.SPREAD);
    assertThat(w.estimateNanos()).isBetween(70 * MS, 130 * MS);
    assertThat(p.boundaries().orElseThrow().nanos(1)).isLessThan(w.estimateNanos());
    assertThat(w.level()).isEqualTo(2);
    assertThat(w.predictedLevel()).isEqualTo(2);
    assertThat(p.stats().predictions()).containsEntry(Outcome.SPREAD, 1L);
  }

  @Test
  void predict_untrustedKeyWithACheapMean_isNeverPromotedAboveTheDefault() {
    HistogramPredictor p = predictor();
    warm(p);
    // 95% at 1 ms, 5% at 30 ms: spread (30x), mean about 2.5 ms, which alone would be level 0.
    String jittery = Keys.of("shop", "jittery");
    for (int i = 0; i < 100; i++) {
      p.observe(jittery, i % 20 == 0 ? 30 * MS : 1 * MS);
    }
    Prediction j = p.predict(jittery);
    assertThat(j.outcome()).isEqualTo(Outcome.SPREAD);
    assertThat(j.level()).isEqualTo(p.defaultLevel());
    assertThat(j.estimateNanos()).isNaN();
  }

  @Test
  void predict_coldKeyWhoseEveryDurationIsBeyondTheTopBoundary_isDemotedAfterThree() {
    HistogramPredictor p = predictor(equalQuantiles().build());
    warm(p);
    String export = Keys.of("analytics", "new_export");
    observe(p, export, 1800 * MS, 2);
    assertThat(p.predict(export))
        .extracting(Prediction::level, Prediction::outcome)
        .containsExactly(p.defaultLevel(), Outcome.COLD);
    p.observe(export, 2400 * MS);
    Prediction e = p.predict(export);
    assertThat(e.outcome()).isEqualTo(Outcome.COLD);
    assertThat(e.level()).isEqualTo(2);
    assertThat(e.estimateNanos()).isBetween(1400 * MS, 1800 * MS);
    // One cheap duration among them is enough doubt: back to the default level.
    p.observe(export, 2 * MS);
    assertThat(p.predict(export).level()).isEqualTo(p.defaultLevel());
  }

  @Test
  void predict_coldKeyWhoseEveryDurationIsUnderTheFirstBoundary_isPromotedOnlyWhenAskedFor() {
    String ping = Keys.of("tools", "ping");
    HistogramPredictor plain = predictor();
    warm(plain);
    observe(plain, ping, 1 * MS, 5);
    assertThat(plain.predict(ping))
        .extracting(Prediction::level, Prediction::outcome)
        .containsExactly(plain.defaultLevel(), Outcome.COLD);

    HistogramPredictor p =
        predictor(
            PredictorConfig.builder().untrustedLast(false).build(),
            PredictorTuning.builder().promoteColdAfter(3).build());
    warm(p);
    observe(p, ping, 1 * MS, 2);
    assertThat(p.predict(ping))
        .extracting(Prediction::level, Prediction::outcome)
        .containsExactly(p.defaultLevel(), Outcome.COLD);
    p.observe(ping, 1.2 * MS);
    Prediction promoted = p.predict(ping);
    assertThat(promoted)
        .extracting(Prediction::level, Prediction::predictedLevel, Prediction::outcome)
        .containsExactly(0, 0, Outcome.COLD);
    // Placed by the upper edge of its highest observation's bin, [1.02 ms, 1.28 ms).
    assertThat(promoted.estimateNanos()).isBetween(1.2 * MS, 1.3 * MS);
    assertThat(promoted.isPredicted()).isFalse();
    // One slow observation is enough doubt: back to the default level.
    p.observe(ping, 40 * MS);
    assertThat(p.predict(ping))
        .extracting(Prediction::level, Prediction::outcome)
        .containsExactly(p.defaultLevel(), Outcome.COLD);
  }

  @Test
  void predict_promotableColdKey_staleOrInShadowMode_isNotRoutedAbove() {
    PredictorConfig config = tableOneIdle().untrustedLast(false).build();
    PredictorTuning tuning = tableOneHalfLife().promoteColdAfter(3).build();
    String ping = Keys.of("tools", "ping");
    HistogramPredictor p = predictor(config, tuning);
    warm(p);
    observe(p, ping, 1 * MS, 3);
    assertThat(p.predict(ping).level()).isZero();
    // Idle past stale-after: its few old observations no longer place it.
    ticker.advance(Duration.ofMinutes(31));
    assertThat(p.predict(ping))
        .extracting(Prediction::level, Prediction::outcome)
        .containsExactly(p.defaultLevel(), Outcome.COLD);

    HistogramPredictor shadow = new HistogramPredictor(config, tuning, ticker, Mode.SHADOW);
    warm(shadow);
    observe(shadow, ping, 1 * MS, 3);
    Prediction s = shadow.predict(ping);
    assertThat(s.level()).isEqualTo(shadow.defaultLevel());
    assertThat(s.predictedLevel()).isZero();
  }

  @Test
  void predict_withoutDemotion_everyUntrustedKeyTakesTheDefaultLevel() {
    HistogramPredictor p =
        predictor(
            PredictorConfig.builder().untrustedLast(false).build(),
            PredictorTuning.builder().demoteUntrusted(false).build());
    warm(p);
    String export = Keys.of("analytics", "new_export");
    observe(p, export, 1800 * MS, 10);
    String webhook = Keys.of("partner", "deliver_webhook");
    for (int i = 0; i < 200; i++) {
      int r = i % 50;
      p.observe(webhook, r == 0 ? 1500 * MS : r < 7 ? 300 * MS : 40 * MS);
    }
    assertThat(p.predict(export))
        .extracting(Prediction::level, Prediction::outcome)
        .containsExactly(p.defaultLevel(), Outcome.COLD);
    assertThat(p.predict(webhook))
        .extracting(Prediction::level, Prediction::outcome)
        .containsExactly(p.defaultLevel(), Outcome.SPREAD);
  }

  @Test
  void predict_demotedKeyInShadowMode_isReportedButRoutedToTheDefault() {
    HistogramPredictor p = new HistogramPredictor(equalQuantiles().build(), ticker, Mode.SHADOW);
    warm(p);
    String export = Keys.of("analytics", "new_export");
    observe(p, export, 1800 * MS, 5);
    Prediction e = p.predict(export);
    assertThat(e.level()).isEqualTo(p.defaultLevel());
    assertThat(e.predictedLevel()).isEqualTo(2);
    assertThat(e.outcome()).isEqualTo(Outcome.COLD);
  }

  @Test
  void predict_censoredShareAboveFivePercent_fallsBack() {
    HistogramPredictor p = predictor();
    warm(p);
    String hangs = Keys.of("shop", "hangs");
    String rarely = Keys.of("shop", "rarely_hangs");
    for (int i = 0; i < 40; i++) {
      p.observe(hangs, 2 * MS);
      p.observe(rarely, 2 * MS);
      if (i % 10 == 9) {
        p.observeCensored(hangs, -1); // 4 of 44: 9%
      }
      if (i == 39) {
        p.observeCensored(rarely, -1); // 1 of 41: 2.4%
      }
    }
    assertThat(p.predict(hangs).outcome()).isEqualTo(Outcome.CENSORED);
    assertThat(p.predict(rarely).outcome()).isEqualTo(Outcome.PREDICTED);
    assertThat(p.keyStats(hangs).orElseThrow().observations()).isEqualTo(40);
  }

  @Test
  void predict_gatesApplyInOrder() {
    HistogramPredictor p = predictor();
    warm(p);
    // Cold and censored: cold wins.
    String coldCensored = Keys.of("shop", "cold_censored");
    observe(p, coldCensored, 2 * MS, 5);
    p.observeCensored(coldCensored, -1);
    // Stale and censored: stale wins.
    String staleCensored = Keys.of("shop", "stale_censored");
    observe(p, staleCensored, 2 * MS, 30);
    p.observeCensored(staleCensored, -1);
    p.observeCensored(staleCensored, -1);
    // Censored and spread: censored wins.
    String censoredSpread = Keys.of("shop", "censored_spread");
    for (int i = 0; i < 100; i++) {
      p.observe(censoredSpread, i % 10 == 0 ? 5000 * MS : 2 * MS);
    }
    for (int i = 0; i < 10; i++) {
      p.observeCensored(censoredSpread, -1);
    }
    assertThat(p.predict(coldCensored).outcome()).isEqualTo(Outcome.COLD);
    assertThat(p.predict(censoredSpread).outcome()).isEqualTo(Outcome.CENSORED);
    ticker.advance(Duration.ofMinutes(31));
    assertThat(p.predict(staleCensored).outcome()).isEqualTo(Outcome.STALE);
    assertThat(p.predict(coldCensored).outcome()).isEqualTo(Outcome.COLD);
  }

  @Test
  void predict_whileFresh_countsAsActivitySoBackloggedKeysStayPredicted() {
    HistogramPredictor p = predictor();
    warm(p);
    String waiting = Keys.of("shop", "waiting");
    String ignored = Keys.of("shop", "ignored");
    observe(p, waiting, 2 * MS, 30);
    observe(p, ignored, 2 * MS, 30);
    ticker.advance(Duration.ofMinutes(20));
    assertThat(p.predict(waiting).outcome()).isEqualTo(Outcome.PREDICTED);
    ticker.advance(Duration.ofMinutes(20));
    assertThat(p.predict(waiting).outcome()).isEqualTo(Outcome.PREDICTED);
    assertThat(p.predict(ignored).outcome()).isEqualTo(Outcome.STALE);
    // Predicting a stale key does not revive it.
    ticker.advance(Duration.ofMinutes(1));
    assertThat(p.predict(ignored).outcome()).isEqualTo(Outcome.STALE);
    assertThat(p.stats().predictions().get(Outcome.STALE)).isEqualTo(2);
  }

  @Test
  void observe_staleKey_discardsOldHistoryInsteadOfBlending() {
    HistogramPredictor p = predictor();
    warm(p);
    String key = Keys.of("shop", "changes_while_away");
    observe(p, key, 2 * MS, 200);
    ticker.advance(Duration.ofMinutes(31));
    observe(p, key, 40 * MS, 20);
    KeyStats stats = p.keyStats(key).orElseThrow();
    assertThat(stats.observations()).isEqualTo(20);
    assertThat(stats.medianNanos()).isBetween(30 * MS, 45 * MS);
    assertThat(p.predict(key).outcome()).isEqualTo(Outcome.PREDICTED);
  }

  @Test
  void observe_regimeShift_withoutAShiftRun_isFollowedWithinAboutOneHalfLife() {
    // Decay alone (seed paper section 3.4); the default shift run is in ShiftRunTest.
    HistogramPredictor p =
        predictor(PredictorConfig.defaults(), PredictorTuning.builder().shiftRun(0).build());
    warm(p);
    String key = Keys.of("shop", "got_slower");
    observe(p, key, 2 * MS, 2000);
    int n = 0;
    while (p.keyStats(key).orElseThrow().medianNanos() < 20 * MS) {
      p.observe(key, 300 * MS);
      n++;
    }
    // Half-life of 0.995 per observation: ln 0.5 / ln 0.995 = 138.3.
    assertThat(n).isBetween(110, 166);
  }

  @Test
  void observe_afterIdleGap_oldHistoryWeighsLess() {
    // Idle decay alone: without a shift run, which would replace either history after 8 slow ones.
    PredictorConfig config = tableOneIdle().build();
    PredictorTuning decayOnly = tableOneHalfLife().shiftRun(0).build();
    HistogramPredictor idle = predictor(config, decayOnly);
    HistogramPredictor busy =
        new HistogramPredictor(
            config, decayOnly, new ManualTicker(1_000_000_000L), Mode.PREDICTIVE);
    String key = Keys.of("shop", "returns_after_lunch");
    observe(idle, key, 2 * MS, 300);
    observe(busy, key, 2 * MS, 300);
    ticker.advance(Duration.ofMinutes(20)); // two idle half-lives: old weight x 0.25
    observe(idle, key, 200 * MS, 60);
    observe(busy, key, 200 * MS, 60);
    assertThat(busy.keyStats(key).orElseThrow().medianNanos()).isLessThan(3 * MS);
    assertThat(idle.keyStats(key).orElseThrow().medianNanos()).isGreaterThan(150 * MS);
  }

  @Test
  void boundaries_equalThePooledQuantilesAndMoveOnlyBeyondTheHysteresis() {
    HistogramPredictor p = predictor(equalQuantiles().build());
    DurationHistogram reference = new DurationHistogram();
    double[] cycle = {1 * MS, 10 * MS, 100 * MS};
    for (int i = 0; i < 100; i++) {
      p.observe(FAST, cycle[i % 3]);
      reference.add(cycle[i % 3], 1 / 0.9999);
    }
    Boundaries first = p.boundaries().orElseThrow();
    assertThat(first.sequence()).isEqualTo(1);
    assertThat(first.nanos(0)).isEqualTo(reference.quantile(1.0 / 3));
    assertThat(first.nanos(1)).isEqualTo(reference.quantile(2.0 / 3));
    // Up to the refresh at 256 the same mix: the quantiles move a little, the boundaries stay.
    for (int i = 100; i < 256; i++) {
      p.observe(FAST, cycle[i % 3]);
    }
    assertThat(p.boundaries().orElseThrow()).isEqualTo(first);
    // Then a much slower mix: the boundaries move, with a new sequence number.
    for (int i = 256; i < 1024; i++) {
      p.observe(FAST, 50 * cycle[i % 3]);
    }
    Boundaries moved = p.boundaries().orElseThrow();
    assertThat(moved.sequence()).isGreaterThan(1);
    assertThat(moved.nanos(1)).isGreaterThan(first.nanos(1) * 1.1);
    assertThat(p.stats().boundaryPublications()).isEqualTo(moved.sequence());
  }

  @Test
  void levelOf_isBisectRightWithHysteresisAroundTheHeldLevel() {
    Boundaries b = Boundaries.of(1, 10 * MS, 100 * MS);
    assertThat(b.levelOf(9.99 * MS)).isZero();
    assertThat(b.levelOf(10 * MS)).isEqualTo(1);
    assertThat(b.levelOf(100 * MS)).isEqualTo(2);
    // Held level 0 survives an estimate up to 10% above its boundary; not beyond.
    assertThat(b.levelOf(10.9 * MS, 0, 0.10)).isZero();
    assertThat(b.levelOf(11.1 * MS, 0, 0.10)).isEqualTo(1);
    // Held level 1 survives down to 9 ms and up to 110 ms.
    assertThat(b.levelOf(9.1 * MS, 1, 0.10)).isEqualTo(1);
    assertThat(b.levelOf(8.9 * MS, 1, 0.10)).isZero();
    assertThat(b.levelOf(109 * MS, 1, 0.10)).isEqualTo(1);
    // With the band off the level flips at the boundary.
    assertThat(b.levelOf(10.5 * MS, 0, 0)).isEqualTo(1);
  }

  @Test
  void predict_keyNearABoundary_keepsItsLevelInsideTheBand() {
    // A wide band (50%) so that the 26% bins cannot hide the effect; the exact 10% margin is tested
    // on levelOf.
    // Boundaries published once and then frozen, so only the key moves; no shift run, which would
    // forget the held level when the key moves by more than an octave.
    PredictorTuning wide =
        PredictorTuning.builder()
            .tierHysteresis(0.5)
            .boundaryRefreshEvery(1_000_000)
            .shiftRun(0)
            .build();
    HistogramPredictor held = predictor(PredictorConfig.defaults(), wide);
    HistogramPredictor unheld =
        predictor(PredictorConfig.defaults(), wide.toBuilder().tierHysteresis(0).build());
    String key = Keys.of("shop", "borderline");
    for (HistogramPredictor p : List.of(held, unheld)) {
      warm(p);
      double b1 = p.boundaries().orElseThrow().nanos(0);
      observe(p, key, 0.3 * b1, 40);
      assertThat(p.predict(key).level()).isZero();
      observe(p, key, 1.25 * b1, 400);
      assertThat(p.keyStats(key).orElseThrow().medianNanos()).isBetween(b1, 1.5 * b1);
    }
    assertThat(held.predict(key).level()).isZero();
    assertThat(unheld.predict(key).level()).isEqualTo(1);
    double b1 = held.boundaries().orElseThrow().nanos(0);
    observe(held, key, 3 * b1, 400);
    assertThat(held.predict(key).level()).isEqualTo(1);
  }

  @Test
  void observe_fullShard_evictsOnlyAfterIdleGraceAndCountsOverflow() {
    HistogramPredictor p =
        predictor(
            PredictorConfig.builder().maxKeys(1).build(),
            PredictorTuning.builder().shards(1).build());
    assertThat(p.observe("a", 2 * MS)).isEqualTo(ObserveResult.ACCEPTED);
    assertThat(p.observe("b", 2 * MS)).isEqualTo(ObserveResult.UNTRACKED);
    assertThat(p.keyStats("b")).isEmpty();
    assertThat(p.stats().untracked()).isEqualTo(1);
    assertThat(p.stats().pooledObservations()).isEqualTo(2);

    ticker.advance(Duration.ofSeconds(31)); // "a" is unproven: 30 s grace
    assertThat(p.observe("b", 2 * MS)).isEqualTo(ObserveResult.ACCEPTED);
    assertThat(p.keyStats("a")).isEmpty();
    assertThat(p.stats().evictions()).isEqualTo(1);

    observe(p, "b", 2 * MS, 25); // "b" is proven: 10 min grace
    ticker.advance(Duration.ofMinutes(5));
    assertThat(p.observe("c", 2 * MS)).isEqualTo(ObserveResult.UNTRACKED);
    ticker.advance(Duration.ofMinutes(6));
    assertThat(p.observe("c", 2 * MS)).isEqualTo(ObserveResult.ACCEPTED);
    assertThat(p.stats().keys()).isEqualTo(1);
    assertThat(p.stats().evictions()).isEqualTo(2);
  }

  @Test
  void observe_fullShard_evictsTheLeastRecentlyActiveCountingPredictions() {
    HistogramPredictor p =
        predictor(
            PredictorConfig.builder().maxKeys(2).build(),
            PredictorTuning.builder().shards(1).build());
    warm(p); // FAST, MID and SLOW compete for two places: SLOW is untracked
    assertThat(p.keyStats()).extracting(KeyStats::key).containsExactly(FAST, MID);
    ticker.advance(Duration.ofMinutes(11));
    p.predict(FAST); // FAST is active again; MID has been idle for 11 minutes
    assertThat(p.observe(SLOW, 2000 * MS)).isEqualTo(ObserveResult.ACCEPTED);
    assertThat(p.keyStats()).extracting(KeyStats::key).containsExactlyInAnyOrder(FAST, SLOW);
  }

  @Test
  void modes_shadowRoutesLikeOffButLearnsExactlyLikePredictive() {
    HistogramPredictor off = new HistogramPredictor(PredictorConfig.defaults(), ticker, Mode.OFF);
    HistogramPredictor shadow =
        new HistogramPredictor(PredictorConfig.defaults(), ticker, Mode.SHADOW);
    HistogramPredictor predictive = predictor(PredictorConfig.defaults());
    List<HistogramPredictor> all = List.of(off, shadow, predictive);
    List<Prediction> shadowSeen = new ArrayList<>();
    List<Prediction> predictiveSeen = new ArrayList<>();
    java.util.Random random = new java.util.Random(7);
    String[] keys = {FAST, MID, SLOW, Keys.of("shop", "other")};
    double[] costs = {2 * MS, 40 * MS, 2000 * MS, 300 * MS};
    for (int i = 0; i < 2_000; i++) {
      int k = random.nextInt(keys.length);
      double cost = costs[k] * (0.8 + 0.4 * random.nextDouble());
      for (HistogramPredictor p : all) {
        p.observe(keys[k], cost);
      }
      int q = random.nextInt(keys.length);
      Prediction o = off.predict(keys[q]);
      Prediction s = shadow.predict(keys[q]);
      Prediction r = predictive.predict(keys[q]);
      assertThat(o.level()).isEqualTo(off.defaultLevel());
      assertThat(s.level()).isEqualTo(o.level());
      shadowSeen.add(
          new Prediction(r.level(), s.predictedLevel(), s.outcome(), s.estimateNanos(), r.mode()));
      predictiveSeen.add(r);
      ticker.advance(Duration.ofMillis(random.nextInt(1500)));
    }
    assertThat(shadowSeen).isEqualTo(predictiveSeen);
    assertThat(shadow.keyStats()).isEqualTo(predictive.keyStats());
    assertThat(predictiveSeen).anyMatch(pr -> pr.level() != predictive.defaultLevel());
    assertThat(off.stats().predictions()).containsEntry(Outcome.OFF, 2_000L);
  }

  @Test
  void observe_badDurations_areRejectedAndCountedWithoutTouchingHistograms() {
    HistogramPredictor p = predictor();
    warm(p);
    KeyStats before = p.keyStats(FAST).orElseThrow();
    long pooledBefore = p.stats().pooledObservations();
    double[] bad = {
      Double.NaN,
      -1,
      Double.NEGATIVE_INFINITY,
      Double.POSITIVE_INFINITY,
      Duration.ofDays(2).toNanos()
    };
    for (double d : bad) {
      assertThat(p.observe(FAST, d)).isEqualTo(ObserveResult.REJECTED_DURATION);
    }
    assertThat(p.observe(null, MS)).isEqualTo(ObserveResult.REJECTED_KEY);
    assertThat(p.observe("", MS)).isEqualTo(ObserveResult.REJECTED_KEY);
    assertThat(p.observe("x".repeat(300), MS)).isEqualTo(ObserveResult.REJECTED_KEY);
    assertThat(p.observeCensored(null, -1)).isEqualTo(ObserveResult.REJECTED_KEY);
    assertThat(p.keyStats(FAST).orElseThrow()).isEqualTo(before);
    assertThat(p.stats().rejectedDurations()).isEqualTo(5);
    assertThat(p.stats().rejectedKeys()).isEqualTo(4);
    assertThat(p.stats().pooledObservations()).isEqualTo(pooledBefore);
  }

  @Test
  void observe_beyondTheTopEdgeButPlausible_isSaturatedNotRejected() {
    HistogramPredictor p = predictor();
    assertThat(p.observe(SLOW, Duration.ofHours(3).toNanos())).isEqualTo(ObserveResult.ACCEPTED);
    assertThat(p.stats().saturated()).isEqualTo(1);
  }

  @Test
  void predict_coldSizeBin_borrowsItsParentAndPooledCountsOnce() {
    HistogramPredictor p = predictor(PredictorConfig.builder().sizeBins(true).build());
    warm(p);
    long pooledBefore = p.stats().pooledObservations();
    String resize = Keys.of("shop", "resize_image");
    for (int i = 0; i < 30; i++) {
      p.observe(resize, 1_000_000, 2000 * MS);
      p.observe(resize, 1_000, 2 * MS);
    }
    assertThat(p.stats().pooledObservations()).isEqualTo(pooledBefore + 60);
    assertThat(p.keyStats(resize).orElseThrow().observations()).isEqualTo(60);
    assertThat(p.predict(resize, 1_000).level()).isZero();
    assertThat(p.predict(resize, 1_000_000).level()).isEqualTo(2);
    // A size never seen: the bin is cold, so the parent (a 50/50 mix: spread) is asked; it falls
    // back.
    assertThat(p.predict(resize, 50).outcome()).isEqualTo(Outcome.COLD);
    String email = Keys.of("shop", "email");
    observe(p, email, 1 * MS, 30);
    Prediction borrowed = p.predict(email, 70_000);
    assertThat(borrowed.outcome()).isEqualTo(Outcome.PREDICTED);
    assertThat(borrowed.level()).isZero();
    assertThat(p.stats().parentFallbacks()).isEqualTo(1);
  }

  @Test
  void score_tracksAgreementAndLatchesTheDriftAlert() {
    HistogramPredictor p = predictor();
    warm(p);
    p.score(0, 2 * MS, 4 * MS);
    DriftSignals first = p.stats().drift();
    assertThat(first.scored()).isEqualTo(1);
    assertThat(first.log2ErrorEwma()).isCloseTo(1.0, org.assertj.core.api.Assertions.within(1e-9));
    for (int i = 0; i < 600; i++) {
      p.score(0, 2 * MS, 2000 * MS); // predicted fast, was slow
    }
    assertThat(p.stats().drift().alert()).isTrue();
    assertThat(p.stats().drift().alerts()).isEqualTo(1);
    for (int i = 0; i < 400; i++) {
      p.score(0, 2 * MS, 2 * MS);
    }
    DriftSignals recovered = p.stats().drift();
    assertThat(recovered.alert()).isFalse();
    assertThat(recovered.windowAgreement()).isGreaterThan(0.6);
    // Informational only: routing is unchanged.
    assertThat(p.predict(FAST).level()).isZero();
  }

  @Test
  void modeOff_predictsNothingButKeepsLearning() {
    HistogramPredictor p = new HistogramPredictor(PredictorConfig.defaults(), ticker, Mode.OFF);
    warm(p);
    assertThat(p.predict(FAST).outcome()).isEqualTo(Outcome.OFF);
    p.setMode(Mode.PREDICTIVE);
    assertThat(p.predict(FAST).outcome()).isEqualTo(Outcome.PREDICTED);
  }

  @Test
  void peek_changesNothing() {
    HistogramPredictor p = predictor();
    warm(p);
    ticker.advance(Duration.ofMinutes(20));
    assertThat(p.peek(FAST).level()).isZero();
    ticker.advance(Duration.ofMinutes(11));
    assertThat(p.peek(FAST).outcome()).isEqualTo(Outcome.STALE);
    assertThat(p.stats().predictions().values()).allMatch(v -> v == 0);
  }
}
