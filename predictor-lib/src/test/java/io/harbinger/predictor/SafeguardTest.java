package io.harbinger.predictor;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class SafeguardTest {

  private static final double MS = 1_000_000;
  private static final String FAST = Keys.of("shop", "reserve_inventory");
  private static final String MID = Keys.of("shop", "send_email");
  private static final String SLOW = Keys.of("shop", "export_report");

  private final ManualTicker ticker = new ManualTicker(1_000_000_000L);

  private HistogramPredictor predictor(PredictorConfig config, Mode mode) {
    return new HistogramPredictor(config, ticker, mode);
  }

  private HistogramPredictor predictor(PredictorConfig config, PredictorTuning tuning, Mode mode) {
    return new HistogramPredictor(config, tuning, ticker, mode);
  }

  private static void warm(Predictor p, int rounds) {
    for (int i = 0; i < rounds; i++) {
      p.observe(FAST, 2 * MS);
      p.observe(MID, 40 * MS);
      p.observe(SLOW, 2000 * MS);
    }
  }

  @Test
  void predict_keyNoBetterThanAGlobalMedian_fallsBackAsMispredictedAndRecovers() {
    // Equal-quantile boundaries (no tail budget), so that the mixed key's mean lies beyond the top
    // boundary and it is placed by it; with the budget it lies in the default level's interval.
    HistogramPredictor p =
        predictor(PredictorConfig.builder().tailBudget(0).build(), Mode.PREDICTIVE);
    String tight = Keys.of("shop", "tight");
    String mixed = Keys.of("shop", "mixed");
    double[] cycle = {10 * MS, 40 * MS, 150 * MS};
    for (int i = 0; i < 90; i++) {
      p.observe(tight, 40 * MS);
      p.observe(Keys.of("shop", "a"), 10 * MS);
      p.observe(Keys.of("shop", "c"), 150 * MS);
      p.observe(mixed, cycle[i % 3]);
    }

    // The mixed key passes the spread gate (150 / 40 < 16) but its median misses by as much as
    // the global median does: the per-key safeguard distrusts it and places it by its mean.
    Prediction m = p.predict(mixed);
    assertThat(m.outcome()).isEqualTo(Outcome.MISPREDICTED);
    assertThat(m.estimateNanos()).isBetween(55 * MS, 80 * MS);
    assertThat(p.predict(tight).outcome()).isEqualTo(Outcome.PREDICTED);
    assertThat(p.stats().predictions()).containsEntry(Outcome.MISPREDICTED, 1L);

    int recoveredAfter = -1;
    for (int i = 1; i <= 200 && recoveredAfter < 0; i++) {
      p.observe(mixed, 40 * MS);
      if (p.peek(mixed).isPredicted()) {
        recoveredAfter = i;
      }
    }
    // Hysteresis: not at the first good observation, but well within the error's memory.
    assertThat(recoveredAfter).isBetween(2, 64);
  }

  /**
   * Per-key gates loosened, no shift run, and equal-quantile boundaries, so that only the global
   * safeguard can catch an inversion; the default tail budget places these keys otherwise, and
   * {@link #predict_invertedKeysWithDefaults_perKeyGatesPlaceThemByTheirMeanAtOnce} covers it.
   */
  private static PredictorConfig globalOnly() {
    return PredictorConfig.builder().tailBudget(0).maxSpreadRatio(10_000).build();
  }

  /** The lab hooks of {@link #globalOnly}: no per-key safeguard, shift run or demotion. */
  private static PredictorTuning globalOnlyTuning() {
    return PredictorTuning.builder().keyGuard(false).shiftRun(0).demoteUntrusted(false).build();
  }

  @Test
  void predict_invertedKeysWithDefaults_perKeyGatesPlaceThemByTheirMeanAtOnce() {
    HistogramPredictor p = predictor(PredictorConfig.defaults(), Mode.PREDICTIVE);
    warm(p, 120);
    for (int i = 0; i < 25; i++) {
      p.observe(FAST, 2000 * MS);
      p.observe(MID, 40 * MS);
      p.observe(SLOW, 2 * MS);
    }

    // The short type turned long no longer jumps the queue, so the order still helps.
    assertThat(p.predict(FAST).level()).isEqualTo(2);
    assertThat(p.safeguard().holding()).isFalse();
    assertThat(p.safeguard().estimatedGain()).isPositive();
  }

  @Test
  void predict_invertedKeys_safeguardHoldsFifoOrderThenReleases() {
    HistogramPredictor p = predictor(globalOnly(), globalOnlyTuning(), Mode.PREDICTIVE);
    warm(p, 120);
    assertThat(p.predict(FAST).level()).isZero();
    assertThat(p.safeguard().holding()).isFalse();
    assertThat(p.safeguard().estimatedGain()).isGreaterThan(0.2);

    // The short type turns long and the long one short.
    int heldAt = -1;
    int releasedAt = -1;
    for (int i = 1; i <= 2_000 && releasedAt < 0; i++) {
      p.observe(FAST, 2000 * MS);
      p.observe(MID, 40 * MS);
      p.observe(SLOW, 2 * MS);
      SafeguardStatus s = p.safeguard();
      if (heldAt < 0 && s.holding()) {
        heldAt = i;
        Prediction f = p.predict(FAST);
        assertThat(f.level()).isEqualTo(p.defaultLevel());
        assertThat(f.predictedLevel()).isZero();
        assertThat(p.predict(SLOW).level()).isEqualTo(p.defaultLevel());
        assertThat(s.reason()).contains("FIFO order");
        assertThat(p.stats().safeguardHeld()).isPositive();
      } else if (heldAt > 0 && !s.holding()) {
        releasedAt = i;
      }
    }
    assertThat(heldAt).isBetween(1, 100);
    // Two key half-lives: ln 2 / (1 - 0.995), about 138 observations each.
    assertThat(releasedAt).as("held at %d, %s", heldAt, p.safeguard()).isBetween(heldAt + 1, 276);
    assertThat(p.predict(SLOW).level()).isZero();
    assertThat(p.predict(FAST).level()).isEqualTo(2);
  }

  @Test
  void safeguard_reportsTheLoadAndTheMarginItJudgesBy() {
    SafeguardStatus product = predictor(PredictorConfig.defaults(), Mode.PREDICTIVE).safeguard();
    assertThat(product.load()).isEqualTo(0.8);
    assertThat(product.margin()).isEqualTo(0.02);
    SafeguardStatus tuned =
        predictor(
                PredictorConfig.defaults(),
                PredictorTuning.builder().safeguardLoad(0.5).safeguardMargin(0.1).build(),
                Mode.PREDICTIVE)
            .safeguard();
    assertThat(tuned.load()).isEqualTo(0.5);
    assertThat(tuned.margin()).isEqualTo(0.1);
  }

  @Test
  void predict_safeguardOff_keepsTheLevelsOfAnInvertedAssignment() {
    HistogramPredictor p =
        predictor(
            globalOnly().toBuilder().safeguard(false).build(), globalOnlyTuning(), Mode.PREDICTIVE);
    warm(p, 120);
    for (int i = 0; i < 40; i++) {
      p.observe(FAST, 2000 * MS);
      p.observe(SLOW, 2 * MS);
    }

    assertThat(p.safeguard().holding()).isFalse();
    assertThat(p.safeguard().reason())
        .startsWith("safeguard off: estimated gain ")
        .endsWith("%, levels kept");
    assertThat(p.safeguard().estimatedGain()).isFinite();
    assertThat(p.predict(SLOW).level()).isEqualTo(2);
  }

  @Test
  void record_noOrDegenerateData_keepsRoutingAndSaysWhy() {
    GainSafeguard g = new GainSafeguard(PredictorConfig.defaults(), PredictorTuning.defaults());
    assertThat(g.status().reason()).isEqualTo("no reports yet");
    assertThat(g.status().estimatedGain()).isNaN();

    for (int i = 0; i < 100; i++) {
      g.record(0, 0, 5 * MS);
    }
    assertThat(g.status().reason()).startsWith("too few reports: 9");
    for (int i = 0; i < 400; i++) {
      g.record(0, 1, 5 * MS);
    }
    assertThat(g.status().reason())
        .isEqualTo("estimated gain 0.0%: FIFO order until it reaches 5.0% (margin 2.0%)");
    assertThat(g.holding()).isTrue();

    GainSafeguard one = new GainSafeguard(PredictorConfig.defaults(), PredictorTuning.defaults());
    for (int i = 0; i < 1_000; i++) {
      one.record(0, 2, 5 * MS);
    }
    assertThat(one.holding()).isFalse();
    assertThat(one.status().reason()).startsWith("one level holds every job");

    GainSafeguard zero = new GainSafeguard(PredictorConfig.defaults(), PredictorTuning.defaults());
    for (int i = 0; i < 1_000; i++) {
      zero.record(0, i % 3, 0);
    }
    assertThat(zero.holding()).isFalse();
    assertThat(zero.status().reason()).startsWith("every duration is zero");
  }

  @Test
  void record_gainAroundTheMargin_switchesWithHysteresis() {
    GainSafeguard g = new GainSafeguard(PredictorConfig.defaults(), PredictorTuning.defaults());
    // Short first: a large gain.
    for (int i = 0; i < 2_000; i++) {
      g.record(0, i % 10 == 0 ? 1 : 0, i % 10 == 0 ? 10 * MS : MS);
    }
    assertThat(g.holding()).isFalse();
    assertThat(g.status().estimatedGain()).isGreaterThan(0.4);
    // Long first: the gain turns negative and the safeguard holds.
    for (int i = 0; i < 2_000 && !g.holding(); i++) {
      g.record(0, i % 10 == 0 ? 0 : 1, i % 10 == 0 ? 10 * MS : MS);
    }
    assertThat(g.holding()).isTrue();
    assertThat(g.status().holds()).isEqualTo(1);
    // Back to short first: released only once the gain clears margin + hysteresis.
    double lastHeldGain = Double.NaN;
    for (int i = 0; i < 4_000 && g.holding(); i++) {
      g.record(0, i % 10 == 0 ? 1 : 0, i % 10 == 0 ? 10 * MS : MS);
      if (g.holding()) {
        lastHeldGain = g.status().estimatedGain();
      }
    }
    assertThat(g.holding()).isFalse();
    assertThat(lastHeldGain).isBetween(0.02, 0.05);
  }

  @Test
  void predict_coldTypeOfAKnownProducer_borrowsTheProducersEstimate() {
    HistogramPredictor p = predictor(PredictorConfig.defaults(), Mode.PREDICTIVE);
    warm(p, 60);
    for (int i = 0; i < 40; i++) {
      p.observe(Keys.of("mailer", "welcome"), 40 * MS);
      p.observe(Keys.of("mailer", "reset"), 45 * MS);
    }
    String digest = Keys.of("mailer", "digest");
    p.observe(digest, 42 * MS);

    Prediction d = p.predict(digest);
    assertThat(d.outcome()).isEqualTo(Outcome.BORROWED);
    assertThat(d.estimateNanos()).isBetween(39 * MS, 46 * MS);
    assertThat(d.level()).isEqualTo(p.boundaries().orElseThrow().levelOf(d.estimateNanos()));
    assertThat(p.stats().predictions()).containsEntry(Outcome.BORROWED, 1L);
    // The aggregate is not a key of its own: it is neither listed nor counted.
    assertThat(p.keyStats()).noneMatch(k -> k.key().startsWith("mailer\u001F\u001F"));
    assertThat(p.stats().keys()).isEqualTo(6);

    // A producer whose types differ widely (the shop) has a spread aggregate: nothing to borrow.
    String newShopType = Keys.of("shop", "new_type");
    p.observe(newShopType, 3 * MS);
    assertThat(p.predict(newShopType).outcome()).isEqualTo(Outcome.COLD);
    HistogramPredictor off =
        predictor(
            PredictorConfig.defaults(),
            PredictorTuning.builder().borrowFromProducer(false).build(),
            Mode.PREDICTIVE);
    warm(off, 60);
    for (int i = 0; i < 40; i++) {
      off.observe(Keys.of("mailer", "welcome"), 40 * MS);
    }
    assertThat(off.predict(digest).outcome()).isEqualTo(Outcome.COLD);
  }

  @Test
  void predict_coldKeyWithASizeHint_borrowsTheAggregateOfItsSizeBin() {
    HistogramPredictor p = predictor(PredictorConfig.defaults(), Mode.PREDICTIVE);
    warm(p, 60);
    // Many kinds of job, none seen often enough to be predicted: small requests finish in about 3
    // ms, large ones in about 2 s.
    for (int kind = 0; kind < 10; kind++) {
      for (int i = 0; i < 5; i++) {
        p.observe("exe=" + kind, 100 + i, (3 + 0.1 * i) * MS);
        p.observe("exe=" + (100 + kind), 100_000 + i, (2000 + 10 * i) * MS);
      }
    }
    String fresh = "exe=never-seen";

    Prediction small = p.predict(fresh, 120);
    Prediction large = p.predict(fresh, 120_000);
    assertThat(small.outcome()).isEqualTo(Outcome.BORROWED);
    assertThat(small.estimateNanos()).isBetween(2.9 * MS, 3.5 * MS);
    assertThat(small.level())
        .isEqualTo(p.boundaries().orElseThrow().levelOf(small.estimateNanos()));
    assertThat(large.outcome()).isEqualTo(Outcome.BORROWED);
    assertThat(large.estimateNanos()).isBetween(1700 * MS, 2200 * MS);
    assertThat(large.level()).isGreaterThan(small.level());
    // Without a hint, or in a bin nobody has filled, the key stays cold.
    assertThat(p.predict(fresh).outcome()).isEqualTo(Outcome.COLD);
    assertThat(p.predict(fresh, 5_000_000).outcome()).isEqualTo(Outcome.COLD);
    // The aggregates are not keys of their own: neither listed nor counted.
    assertThat(p.keyStats()).noneMatch(k -> k.key().startsWith("\u001F"));
    assertThat(p.stats().keys()).isEqualTo(23);
    // A producer's trusted aggregate comes first.
    for (int i = 0; i < 40; i++) {
      p.observe(Keys.of("mailer", "welcome"), 40 * MS);
    }
    Prediction typed = p.predict(Keys.of("mailer", "digest"), 120_000);
    assertThat(typed.outcome()).isEqualTo(Outcome.BORROWED);
    assertThat(typed.estimateNanos()).isBetween(35 * MS, 45 * MS);

    HistogramPredictor off =
        predictor(
            PredictorConfig.defaults(),
            PredictorTuning.builder().borrowFromSize(false).build(),
            Mode.PREDICTIVE);
    warm(off, 60);
    for (int i = 0; i < 50; i++) {
      off.observe("exe=" + i, 100, 3 * MS);
    }
    assertThat(off.predict(fresh, 120).outcome()).isEqualTo(Outcome.COLD);
  }

  @Test
  void predict_sizeBinWhoseJobsDifferWidely_lendsNothing() {
    HistogramPredictor p = predictor(PredictorConfig.defaults(), Mode.PREDICTIVE);
    warm(p, 60);
    for (int kind = 0; kind < 20; kind++) {
      p.observe("exe=" + kind, 100, (kind % 2 == 0 ? 2 : 2000) * MS);
      p.observe("exe=" + kind, 100, (kind % 2 == 0 ? 2 : 2000) * MS);
    }

    assertThat(p.predict("exe=never-seen", 100).outcome()).isEqualTo(Outcome.COLD);
  }

  /** Warms the predictor, then observes a 40 ms key 30 times, two hours apart. */
  private void recurEveryTwoHours(HistogramPredictor p, String key) {
    warm(p, 60);
    for (int i = 0; i < 30; i++) {
      ticker.advance(Duration.ofHours(2));
      p.observe(key, 40 * MS);
    }
  }

  @Test
  void predict_keyRecurringEveryTwoHours_staleUnderTableOneLimits_unlessRelativeOrNone() {
    String hourly = Keys.of("batch", "nightly");
    for (double relative : new double[] {0, 3}) {
      HistogramPredictor p =
          predictor(
              PredictorConfig.builder().staleAfter(Duration.ofMinutes(30)).build(),
              PredictorTuning.builder()
                  .idleHalfLife(Duration.ofMinutes(10))
                  .relativeIdle(relative)
                  .build(),
              Mode.PREDICTIVE);
      recurEveryTwoHours(p, hourly);
      ticker.advance(Duration.ofHours(2));
      Prediction h = p.predict(hourly);
      if (relative == 0) {
        assertThat(h.outcome()).isIn(Outcome.STALE, Outcome.COLD);
      } else {
        assertThat(h.outcome()).isEqualTo(Outcome.PREDICTED);
        ticker.advance(Duration.ofHours(7));
        assertThat(p.predict(hourly).outcome()).isEqualTo(Outcome.STALE);
      }
    }
    // The defaults have no idle limits: the key stays predicted however long it sits idle.
    HistogramPredictor p = predictor(PredictorConfig.defaults(), Mode.PREDICTIVE);
    recurEveryTwoHours(p, hourly);
    ticker.advance(Duration.ofDays(30));
    Prediction h = p.predict(hourly);
    assertThat(h.outcome()).isEqualTo(Outcome.PREDICTED);
    assertThat(h.estimateNanos()).isBetween(30.0 * MS, 50.0 * MS);
  }

  @Test
  void predict_longKeyBehindUndecidedWork_tailGuardRoutesItAtTheDefaultLevel() {
    HistogramPredictor p =
        predictor(
            PredictorConfig.builder().untrustedLast(false).build(),
            PredictorTuning.builder().tailLimit(2).build(),
            Mode.PREDICTIVE);
    for (int r = 0; r < 100; r++) {
      UndecidedWork.round(p, r);
    }

    // The cold imports (half the jobs, about 70% of the work) wait at the default level, so the
    // long key's jobs at level 2 would wait behind all of them: 1 / (1 - 0.8 x 0.71) = 2.3x.
    SafeguardStatus s = p.safeguard();
    assertThat(s.tailWaitRatio()).as("%s", s).isBetween(2.0, 2.6);
    assertThat(s.lifting()).isTrue();
    assertThat(s.lifts()).isEqualTo(1);
    assertThat(s.holding()).isFalse();
    assertThat(s.reason()).contains("last level's wait estimated at").contains("limit 2.00x");
    Prediction slow = p.predict(SLOW);
    assertThat(slow.outcome()).isEqualTo(Outcome.PREDICTED);
    assertThat(slow.predictedLevel()).isEqualTo(2);
    assertThat(slow.level()).isEqualTo(p.defaultLevel());
    assertThat(p.predict(FAST).level()).isZero();
    assertThat(p.stats().tailLifted()).isEqualTo(1);
    assertThat(p.liftsBelowDefault()).isTrue();

    // The imports stop: nothing undecided is left above the long key, and the guard lets go.
    int releasedAt = -1;
    for (int i = 1; i <= 2_000 && releasedAt < 0; i++) {
      for (int j = 0; j < 9; j++) {
        p.observe(FAST, 2 * MS);
      }
      p.observe(SLOW, 2000 * MS);
      if (!p.safeguard().lifting()) {
        releasedAt = i;
      }
    }
    assertThat(releasedAt).as("%s", p.safeguard()).isBetween(2, 300);
    assertThat(p.predict(SLOW).level()).isEqualTo(2);
  }

  @Test
  void predict_longKeyBehindUndecidedWork_staysLowWithoutTheTailGuardOrInShadow() {
    HistogramPredictor off = predictor(PredictorConfig.defaults(), Mode.PREDICTIVE);
    HistogramPredictor shadow =
        predictor(
            PredictorConfig.builder().untrustedLast(false).build(),
            PredictorTuning.builder().tailLimit(2).build(),
            Mode.SHADOW);
    for (int r = 0; r < 100; r++) {
      UndecidedWork.round(off, r);
      UndecidedWork.round(shadow, r);
    }

    assertThat(off.predict(SLOW).level()).isEqualTo(2);
    assertThat(off.safeguard().lifting()).isFalse();
    assertThat(off.safeguard().tailWaitRatio()).isNaN();
    // Shadow mode reports what the guard would do and routes everything at the default level.
    assertThat(shadow.safeguard().lifting()).isTrue();
    assertThat(shadow.predict(SLOW).level()).isEqualTo(shadow.defaultLevel());
    assertThat(shadow.stats().tailLifted()).isZero();
  }

  @Test
  void predict_undecidedWorkAheadOfTheLongKey_sinkGuardRoutesItAtTheLastLevel() {
    HistogramPredictor p =
        predictor(
            PredictorConfig.builder().untrustedLast(false).build(),
            PredictorTuning.builder().tailSink(2).build(),
            Mode.PREDICTIVE);
    for (int r = 0; r < 100; r++) {
      UndecidedWork.round(p, r);
    }

    // As above, 2.3x: the cold imports, not the long key, are what moves.
    SafeguardStatus s = p.safeguard();
    assertThat(s.tailWaitRatio()).as("%s", s).isBetween(2.0, 2.6);
    assertThat(s.sinking()).isTrue();
    assertThat(s.sinks()).isEqualTo(1);
    assertThat(s.lifting()).isFalse();
    assertThat(s.holding()).isFalse();
    assertThat(s.reason()).contains("sink limit 2.00x");
    Prediction cold = p.predict(Keys.of("tenant-new", "import"));
    assertThat(cold.outcome()).isEqualTo(Outcome.COLD);
    assertThat(cold.predictedLevel()).isEqualTo(p.defaultLevel());
    assertThat(cold.level()).isEqualTo(2);
    assertThat(p.predict(SLOW).level()).isEqualTo(2);
    assertThat(p.predict(FAST).level()).isZero();
    assertThat(p.stats().tailSunk()).isEqualTo(1);
    assertThat(p.stats().tailLifted()).isZero();

    // The imports stop, and the guard lets go: a new cold key takes the default level again.
    int releasedAt = -1;
    for (int i = 1; i <= 2_000 && releasedAt < 0; i++) {
      for (int j = 0; j < 9; j++) {
        p.observe(FAST, 2 * MS);
      }
      p.observe(SLOW, 2000 * MS);
      if (!p.safeguard().sinking()) {
        releasedAt = i;
      }
    }
    assertThat(releasedAt).as("%s", p.safeguard()).isBetween(2, 300);
    assertThat(p.predict(Keys.of("tenant-newer", "import")).level()).isEqualTo(p.defaultLevel());
  }

  @Test
  void predict_undecidedWork_staysAtTheDefaultWithoutTheSinkGuardOrInShadow() {
    HistogramPredictor off =
        predictor(PredictorConfig.builder().untrustedLast(false).build(), Mode.PREDICTIVE);
    HistogramPredictor shadow =
        predictor(
            PredictorConfig.builder().untrustedLast(false).build(),
            PredictorTuning.builder().tailSink(2).build(),
            Mode.SHADOW);
    for (int r = 0; r < 100; r++) {
      UndecidedWork.round(off, r);
      UndecidedWork.round(shadow, r);
    }

    String fresh = Keys.of("tenant-new", "import");
    assertThat(off.predict(fresh).level()).isEqualTo(off.defaultLevel());
    assertThat(off.safeguard().sinking()).isFalse();
    assertThat(shadow.safeguard().sinking()).isTrue();
    assertThat(shadow.predict(fresh).level()).isEqualTo(shadow.defaultLevel());
    assertThat(shadow.stats().tailSunk()).isZero();
  }
}
