package io.harbinger.check;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.harbinger.check.sim.WhatIf;
import io.harbinger.check.trace.ReadReport;
import io.harbinger.check.trace.Trace;
import io.harbinger.check.trace.TraceBuilder;
import io.harbinger.check.trace.TraceException;
import io.harbinger.check.trace.TraceFormat;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class PredictabilityCheckTest {

  private static final long MS = 1_000_000L;
  private static final long SECOND = 1_000_000_000L;
  private static final ReadReport REPORT =
      new ReadReport("test", 0, 0, List.of(), List.of(), List.of());

  private static CheckResult check(Trace t) {
    return PredictabilityCheck.run(t, PredictabilityCheck.Options.defaults(), WhatIf.NOT_AVAILABLE);
  }

  /** Four keys with constant durations 1 ms, 10 ms, 100 ms and 1 s, one job a second in turn. */
  private static Trace constantKeys(int jobs) {
    TraceBuilder b = new TraceBuilder("constant", MS);
    long[] durations = {MS, 10 * MS, 100 * MS, SECOND};
    for (int i = 0; i < jobs; i++) {
      b.add(i * SECOND, durations[i % 4], "key" + (i % 4), -1);
    }
    return b.build(REPORT);
  }

  /**
   * A share of jobs on three constant keys, the rest each on a key of its own with a log-uniform
   * duration between 1 ms and 10 s.
   */
  private static Trace mixed(int jobs, double routableShare, long seed) {
    SplittableRandom r = new SplittableRandom(seed);
    TraceBuilder b = new TraceBuilder("mixed", MS);
    long[] durations = {MS, 100 * MS, 10 * SECOND};
    for (int i = 0; i < jobs; i++) {
      if (r.nextDouble() < routableShare) {
        int k = r.nextInt(3);
        b.add(i * SECOND, durations[k], "steady" + k, -1);
      } else {
        long d = Math.round(MS * Math.pow(10, 4 * r.nextDouble()));
        b.add(i * SECOND, d, "once" + i, -1);
      }
    }
    return b.build(REPORT);
  }

  @Test
  void run_constantKeys_perKeyIsExactAndGlobalMedianIsNot() {
    CheckResult r = check(constantKeys(2000));

    assertThat(r.perKey().rows()).isEqualTo(1000);
    assertThat(r.perKey().medianAbsLog2Error()).isZero();
    assertThat(r.perKey().within2x()).isEqualTo(1.0);
    assertThat(r.perKey().tierAccuracy()).isEqualTo(1.0);
    assertThat(r.global().within2x()).isEqualTo(0.25);
    assertThat(r.global().tierAccuracy()).isEqualTo(0.5);
    assertThat(r.split().globalMedianSeconds()).isEqualTo(0.01);
    assertThat(r.coverage().routableShare()).isEqualTo(1.0);
    assertThat(r.coverage().unseenShare()).isZero();
    assertThat(r.coverage().routableKeys()).isEqualTo(4);
    assertThat(r.spread().p50()).isEqualTo(1.0);
    assertThat(r.replay().predictedShare()).isEqualTo(1.0);
    assertThat(r.verdict()).isEqualTo(Advice.TURN_IT_ON);
  }

  @Test
  void run_predictableSynthetic_turnsItOn() throws TraceException {
    CheckResult r = check(TraceFormat.read("synthetic:seed=11,jobs=20000,keys=20,sigma=0.2"));

    assertThat(r.perKey().within2x()).isGreaterThan(0.9);
    assertThat(r.coverage().routableShare()).isGreaterThan(0.99);
    assertThat(r.verdict()).isEqualTo(Advice.TURN_IT_ON);
    assertThat(r.reason()).contains("is at least 50%");
  }

  @Test
  void run_predictableMinority_runsInShadowOnly() {
    CheckResult r = check(mixed(6000, 0.35, 1));

    assertThat(r.coverage().routableShare()).isCloseTo(0.35, within(0.03));
    assertThat(r.coverage().unseenShare()).isCloseTo(0.65, within(0.03));
    assertThat(r.perKey().tierAccuracy()).isEqualTo(1.0);
    assertThat(r.verdict()).isEqualTo(Advice.SHADOW_ONLY);
    assertThat(r.reason()).contains("watch them in shadow mode");
  }

  @Test
  void run_mostlyColdKeys_isNotUseful() {
    CheckResult r = check(mixed(6000, 0.1, 2));

    assertThat(r.coverage().routableShare()).isCloseTo(0.1, within(0.02));
    assertThat(r.verdict()).isEqualTo(Advice.NOT_USEFUL);
    assertThat(r.reason()).contains("is under 20%");
  }

  @Test
  void run_everyKeyOnce_isNotUsefulBecauseNothingIsRoutable() throws TraceException {
    CheckResult r = check(TraceFormat.read("synthetic:seed=12,jobs=3000,keys=3000,zipf=0"));

    assertThat(r.perKey().rows()).isZero();
    assertThat(r.perKey().within2x()).isNaN();
    assertThat(r.verdict()).isEqualTo(Advice.NOT_USEFUL);
    assertThat(r.reason()).startsWith("no held-out job is on a key with enough history");
  }

  @Test
  void run_keysThatSayNothingAboutDuration_isNotUseful() throws TraceException {
    CheckResult r =
        check(
            TraceFormat.read(
                "synthetic:seed=13,jobs=20000,keys=10,sigma=2,minmedian=1,maxmedian=1.1"));

    assertThat(r.perKey().tierAccuracy() - r.global().tierAccuracy()).isLessThan(0.05);
    assertThat(r.verdict()).isEqualTo(Advice.NOT_USEFUL);
    assertThat(r.reason()).contains("points of tier accuracy (needs >= 10)");
  }

  @Test
  void run_zeroDurations_areFlooredAtTheResolution() {
    TraceBuilder b = new TraceBuilder("seconds", SECOND);
    for (int i = 0; i < 100; i++) {
      b.add(i * SECOND, i % 2 == 0 ? 0 : SECOND, "k", -1);
    }

    CheckResult r = check(b.build(REPORT));
    CheckResult tiny =
        PredictabilityCheck.run(
            b.build(REPORT), new PredictabilityCheck.Options(20, MS), WhatIf.NOT_AVAILABLE);

    assertThat(r.trace().floorSeconds()).isEqualTo(1.0);
    assertThat(r.perKey().within2x()).isEqualTo(1.0);
    assertThat(tiny.trace().floorSeconds()).isEqualTo(0.001);
    assertThat(tiny.trace().floorSource()).isEqualTo("--floor-millis");
    assertThat(tiny.perKey().within2x()).isEqualTo(0.5);
  }

  @Test
  void run_minObservations_decidesWhichKeysAreRoutable() {
    Trace t = constantKeys(200);

    CheckResult strict =
        PredictabilityCheck.run(t, new PredictabilityCheck.Options(26, 0), WhatIf.NOT_AVAILABLE);
    CheckResult loose =
        PredictabilityCheck.run(t, new PredictabilityCheck.Options(25, 0), WhatIf.NOT_AVAILABLE);

    assertThat(strict.coverage().routableKeys()).isZero();
    assertThat(loose.coverage().routableKeys()).isEqualTo(4);
  }

  /** Three constant keys, one job every {@code gapSeconds} in turn, each lasting durationNanos. */
  private static Trace steady(int jobs, long gapSeconds, long durationNanos) {
    TraceBuilder b = new TraceBuilder("steady", MS);
    for (int i = 0; i < jobs; i++) {
      b.add(i * gapSeconds * SECOND, durationNanos * (1 + i % 3), "k" + (i % 3), -1);
    }
    return b.build(REPORT);
  }

  @Test
  void replay_frequentKeys_arePredicted() {
    CheckResult r = check(steady(600, 1, 10 * MS));

    assertThat(r.replay().predictedShare()).isEqualTo(1.0);
  }

  @Test
  void replay_keysIdleForHoursOnTheTraceClock_arePredictedLikeFrequentOnes() {
    // The defaults forget by observations, not by the clock: a key seen every 3 hours keeps its
    // history, as one seen every second does (with seed paper Table 1's 30-minute staleness each
    // observation would find it stale and it would never be predicted).
    CheckResult idle = check(steady(600, 3 * 3600, 10 * MS));
    CheckResult frequent = check(steady(600, 1, 10 * MS));

    assertThat(idle.coverage().routableShare()).isEqualTo(1.0);
    assertThat(idle.replay().predictedShare())
        .isEqualTo(frequent.replay().predictedShare())
        .isEqualTo(1.0);
    assertThat(idle.replay().outcomeShares()).doesNotContainKey("stale");
  }

  @Test
  void replay_keysThatRecurAFewTimes_arePredictedOnlyWithTheFewObservationSettings() {
    // 400 job kinds of constant duration (1 ms, 100 ms or 10 s), each run 5 times in a row.
    TraceBuilder b = new TraceBuilder("few", MS);
    long[] durations = {MS, 100 * MS, 10 * SECOND};
    for (int i = 0; i < 2000; i++) {
      int kind = i / 5;
      b.add(i * 60 * SECOND, durations[kind % 3], "kind" + kind, -1);
    }
    CheckResult r = check(b.build(REPORT));

    assertThat(r.replay().predictedShare()).isZero();
    assertThat(r.replay().setup()).startsWith("HistogramPredictor with default settings");
    assertThat(r.fewObservations().setup())
        .startsWith(
            "HistogramPredictor with the few-observation settings (minObservations 1,"
                + " maxSpreadRatio 1000, tailBudget 1.10; opt-in)");
    // The first job of each kind is cold; the other four are predicted, at the right level.
    assertThat(r.fewObservations().predictedShare()).isCloseTo(0.8, within(0.01));
    assertThat(r.fewObservations().levelAccuracyOfPredicted()).isEqualTo(1.0);
    // With every job at the default level the estimate is unknown (one level); with the levels
    // the few-observation settings give, the short kinds' jobs skip the 10 s ones.
    assertThat(r.replay().estimatedGain()).isNaN();
    assertThat(r.fewObservations().estimatedGain()).isGreaterThan(0.3);
    assertThat(CheckReport.text(r))
        .contains("predictor replay, few-observation settings (opt-in; not used by the verdict)");
  }

  @Test
  void replay_unmeasuredShortJobs_countAtTheLastLevelWhereTheyAreRouted() {
    // Two constant keys (1 ms and 10 s) and, between them, short jobs each on a key of its own:
    // the assignment leaves those at the default level, ahead of the 10 s jobs; routing sends
    // them last, behind them, which saves far less.
    TraceBuilder b = new TraceBuilder("unmeasured", MS);
    for (int i = 0; i < 3000; i++) {
      switch (i % 3) {
        case 0 -> b.add(i * SECOND, MS, "fast", -1);
        case 1 -> b.add(i * SECOND, 10 * SECOND, "slow", -1);
        default -> b.add(i * SECOND, 10 * MS, "once" + i, -1);
      }
    }
    CheckResult.Replay r = check(b.build(REPORT)).replay();

    assertThat(r.outcomeShares().get("cold")).isCloseTo(1.0 / 3, within(0.01));
    assertThat(r.assignmentGain()).isGreaterThan(0.5);
    assertThat(r.estimatedGain()).isLessThan(r.assignmentGain() - 0.1);
    assertThat(r.gainNote()).contains("routes them at while it acts");
  }

  @Test
  void replay_jobsStillRunning_teachNothingUntilTheyComplete() {
    CheckResult r = check(steady(600, 1, 10_000 * SECOND));

    assertThat(r.replay().predictedShare()).isZero();
    assertThat(r.replay().outcomeShares()).containsOnlyKeys("predicted", "unready");
  }

  @Test
  void run_sameInput_givesByteIdenticalTextAndJson() throws TraceException {
    String spec = "synthetic:seed=21,jobs=5000,keys=40,distribution=bimodal";
    CheckResult a = check(TraceFormat.read(spec));
    CheckResult b = check(TraceFormat.read(spec));

    assertThat(CheckReport.text(a)).isEqualTo(CheckReport.text(b));
    assertThat(CheckReport.json(a)).isEqualTo(CheckReport.json(b));
  }

  @Test
  void run_whatIfHook_isReportedAsNotRun() {
    CheckResult r = check(constantKeys(100));

    assertThat(r.whatIf().ran()).isFalse();
    assertThat(CheckReport.text(r)).contains("what-if simulation: not run");
  }

  @Test
  void run_badArguments_failWithTheRule() {
    assertThatThrownBy(() -> new PredictabilityCheck.Options(0, 0))
        .hasMessage("minObservations must be in [1, 1000000]: 0");
    assertThatThrownBy(() -> new PredictabilityCheck.Options(20, -1))
        .hasMessage("floorNanos must be at least 0: -1");
    Trace one = new TraceBuilder("one", 1).add(0, 1, "k", -1).build(REPORT);
    assertThatThrownBy(() -> check(one)).hasMessage("the check needs at least 2 jobs: 1");
  }

  @Test
  void nearestRank_picksTheValueAtRankCeilQn() {
    double[] v = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};

    assertThat(PredictabilityCheck.nearestRank(v, 0, 10, 0.5)).isEqualTo(5);
    assertThat(PredictabilityCheck.nearestRank(v, 0, 10, 0.99)).isEqualTo(10);
    assertThat(PredictabilityCheck.nearestRank(v, 0, 10, 0.9)).isEqualTo(9);
    assertThat(PredictabilityCheck.nearestRank(v, 0, 3, 1.0 / 3)).isEqualTo(1);
  }

  @Test
  void run_accurateMediansWhoseLevelsCostWait_adviseNotUsefulWithTheSafeguardsReason()
      throws Exception {
    // Decoy keys: their median says short, their slow 25% carry most of the work (the DAS2-fs2
    // case of seed paper section 5.2); the medians are accurate for most jobs.
    CheckResult r =
        check(
            TraceFormat.read(
                "synthetic:seed=18,jobs=40000,keys=40,distribution=decoy,minmedian=1,"
                    + "maxmedian=1.5,slowshare=0.25,slowratio=12,honestratio=2,sigma=0.05"));

    assertThat(r.replay().estimatedGain()).isLessThan(0.02);
    assertThat(r.replay().assignmentGain()).isLessThan(0.02);
    assertThat(r.verdict()).isEqualTo(Advice.NOT_USEFUL);
    assertThat(r.reason()).contains("the safeguard would hold FIFO order");
  }

  /**
   * A share of jobs on five keys whose durations are log-uniform between 1 ms and 1000 s, which the
   * spread gate keeps from being predicted, the rest on three constant keys of the given durations.
   */
  private static Trace wideAndSteady(int jobs, double wideShare, long seed, long... durations) {
    SplittableRandom r = new SplittableRandom(seed);
    TraceBuilder b = new TraceBuilder("wide-and-steady", MS);
    for (int i = 0; i < jobs; i++) {
      if (r.nextDouble() < wideShare) {
        long d = Math.round(MS * Math.pow(10, 6 * r.nextDouble()));
        b.add(i * SECOND, d, "wide" + r.nextInt(5), -1);
      } else {
        int k = r.nextInt(3);
        b.add(i * SECOND, durations[k], "steady" + k, -1);
      }
    }
    return b.build(REPORT);
  }

  @Test
  void run_inaccurateKeysButAccurateTrustedOnes_estimatorAdvisesShadowOnly() {
    CheckResult r = check(wideAndSteady(20_000, 0.6, 5, MS, 100 * MS, 10 * SECOND));

    assertThat(r.perKey().medianAbsLog2Error()).isGreaterThanOrEqualTo(1);
    assertThat(r.replay().predictedShare()).isBetween(0.3, 0.5);
    assertThat(r.replay().estimatedGain()).isGreaterThanOrEqualTo(0.10);
    assertThat(r.verdict()).isEqualTo(Advice.SHADOW_ONLY);
    assertThat(r.reason())
        .contains("the per-key median |log2 error|")
        .contains("the keys the predictor trusts are accurate enough")
        .contains("rule: >= 10%");
  }

  @Test
  void run_inaccurateKeysWithASmallEstimate_stayNotUseful() {
    // The trusted keys are accurate but all alike: their levels separate little work from the rest.
    CheckResult r = check(wideAndSteady(20_000, 0.6, 6, SECOND, SECOND, SECOND));

    assertThat(r.replay().predictedShare()).isGreaterThanOrEqualTo(0.2);
    assertThat(r.replay().estimatedGain()).isLessThan(0.10);
    assertThat(r.verdict()).isEqualTo(Advice.NOT_USEFUL);
    assertThat(r.reason()).doesNotContain("trusts");
  }

  @Test
  void run_recurringPredictableKeys_estimateAGainAndKeepTheAdvice() throws Exception {
    CheckResult r = check(TraceFormat.read("synthetic:seed=11,jobs=20000,keys=20,sigma=0.2"));

    assertThat(r.replay().estimatedGain()).isGreaterThan(0.2);
    assertThat(r.replay().gainNote()).startsWith("Cobham's formulas at per-worker load 0.80");
    assertThat(r.verdict()).isEqualTo(Advice.TURN_IT_ON);
  }
}
