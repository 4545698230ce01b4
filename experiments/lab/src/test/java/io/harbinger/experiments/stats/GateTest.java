package io.harbinger.experiments.stats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.harbinger.experiments.stats.Verdict.Status;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;
import org.junit.jupiter.api.Test;

class GateTest {

  private static final Bootstrap BOOT = PercentileBootstrap.defaults();
  private static final Map<String, Double> FIFO =
      Map.of("11", 100.0, "22", 110.0, "33", 90.0, "44", 105.0, "55", 95.0);

  /** Observations where arm "a" is FIFO times the given per-seed factors. */
  private static Observations scaled(double... factors) {
    Map<String, Double> arm = new HashMap<>();
    String[] seeds = {"11", "22", "33", "44", "55"};
    for (int i = 0; i < factors.length; i++) {
      arm.put(seeds[i], FIFO.get(seeds[i]) * factors[i]);
    }
    return (name, metric) ->
        switch (name) {
          case "fifo" -> FIFO;
          case "a" -> arm;
          default -> Map.of();
        };
  }

  private static Verdict judge(Criterion c, Observations o) {
    return Gate.evaluate(c, o, BOOT);
  }

  @Test
  void improvement_bigEnoughAndSure_passes() {
    Verdict v =
        judge(
            new Criterion.Improvement("P1", "m", "a", "fifo", -0.15),
            scaled(0.72, 0.70, 0.75, 0.68, 0.74));

    assertThat(v.status()).isEqualTo(Status.PASS);
    assertThat(v.interval().point()).isCloseTo(-0.282, org.assertj.core.data.Offset.offset(1e-9));
    assertThat(v.reason()).startsWith("-28.2% [").contains("meets <= -15.0% with CI upper < 0");
  }

  @Test
  void improvement_sureButTooSmall_fails() {
    Verdict v =
        judge(
            new Criterion.Improvement("P1", "m", "a", "fifo", -0.15),
            scaled(0.90, 0.91, 0.89, 0.90, 0.92));

    assertThat(v.status()).isEqualTo(Status.FAIL);
    assertThat(v.interval().high()).isLessThan(0);
    assertThat(v.reason()).contains("misses <= -15.0%");
  }

  @Test
  void improvement_bigButIntervalCrossesZero_fails() {
    Verdict v =
        judge(
            new Criterion.Improvement("P1", "m", "a", "fifo", -0.15),
            scaled(0.2, 0.2, 0.2, 1.4, 0.9));

    assertThat(v.interval().point()).isLessThanOrEqualTo(-0.15);
    assertThat(v.interval().high()).isGreaterThanOrEqualTo(0);
    assertThat(v.status()).isEqualTo(Status.FAIL);
  }

  @Test
  void reduction_anySureDecrease_passes_noisyFails() {
    Criterion c = new Criterion.Reduction("S2", "m", "a", "fifo");

    assertThat(judge(c, scaled(0.98, 0.97, 0.99, 0.98, 0.97)).status()).isEqualTo(Status.PASS);
    assertThat(judge(c, scaled(0.9, 1.1, 0.95, 1.05, 1.0)).status()).isEqualTo(Status.FAIL);
  }

  @Test
  void nonInferiority_upperWithinMargin_passes_beyondFails() {
    Criterion c = new Criterion.NonInferiority("S1", "m", "a", "fifo", 0.10);

    assertThat(judge(c, scaled(1.05, 1.04, 1.06, 1.05, 1.03)).status()).isEqualTo(Status.PASS);
    Verdict worse = judge(c, scaled(1.12, 1.11, 1.13, 1.10, 1.12));
    assertThat(worse.status()).isEqualTo(Status.FAIL);
    assertThat(worse.reason()).contains("CI upper > +10.0% margin");
  }

  @Test
  void maxRatio_upperAtMostLimit_passes_overFails() {
    Criterion c = new Criterion.MaxRatio("G1", "m", "a", "fifo", 1.25, OptionalDouble.empty());

    Verdict ok = judge(c, scaled(1.02, 1.04, 1.06, 1.03, 1.05));
    Verdict over = judge(c, scaled(1.2, 1.3, 1.25, 1.28, 1.22));

    assertThat(ok.status()).isEqualTo(Status.PASS);
    assertThat(ok.interval().point()).isCloseTo(1.04, org.assertj.core.data.Offset.offset(1e-9));
    assertThat(over.status()).isEqualTo(Status.FAIL);
    assertThat(over.reason()).contains("CI upper > 1.25x limit");
  }

  @Test
  void maxRatio_armValueOverAbsoluteCap_fails() {
    Criterion c = new Criterion.MaxRatio("G2", "m", "a", "fifo", 2.0, OptionalDouble.of(100.0));

    Verdict v = judge(c, scaled(1.0, 1.0, 1.0, 1.0, 1.0));

    assertThat(v.interval().high()).isEqualTo(1.0);
    assertThat(v.status()).isEqualTo(Status.FAIL);
    assertThat(v.reason()).contains("arm value over cap 100 in [22 = 110, 44 = 105]");
  }

  @Test
  void minRatio_lowerAtLeastLimit_passes_belowFails() {
    Criterion c = new Criterion.MinRatio("G4", "m", "a", "fifo", 0.98);

    assertThat(judge(c, scaled(1.0, 0.99, 1.01, 1.0, 1.0)).status()).isEqualTo(Status.PASS);
    assertThat(judge(c, scaled(0.97, 0.99, 0.96, 1.0, 0.98)).status()).isEqualTo(Status.FAIL);
  }

  @Test
  void withinRelative_intervalInsideBand_passes_outsideFails() {
    Criterion c = new Criterion.WithinRelative("S3", "m", "a", "fifo", 0.05);

    assertThat(judge(c, scaled(0.99, 1.01, 1.0, 0.995, 1.005)).status()).isEqualTo(Status.PASS);
    assertThat(judge(c, scaled(0.93, 0.94, 0.95, 0.96, 0.94)).status()).isEqualTo(Status.FAIL);
    assertThat(judge(c, scaled(1.04, 1.07, 1.06, 1.05, 1.04)).status()).isEqualTo(Status.FAIL);
  }

  @Test
  void pairedCriterion_onePairOrZeroBaseline_unevaluableAndGateFails() {
    Criterion c = new Criterion.Improvement("P1", "m", "a", "fifo", -0.15);
    Observations onePair =
        (arm, metric) -> arm.equals("a") ? Map.of("11", 10.0) : Map.of("11", 100.0);
    Observations zeroBase =
        (arm, metric) ->
            arm.equals("a") ? Map.of("11", 10.0, "22", 10.0) : Map.of("11", 0.0, "22", 100.0);

    Verdict v1 = judge(c, onePair);
    Verdict v2 = judge(c, zeroBase);
    GateResult gate = new Gate(List.of(c), BOOT).evaluate(onePair);

    assertThat(v1.status()).isEqualTo(Status.UNEVALUABLE);
    assertThat(v1.reason()).isEqualTo("unevaluable: at least 2 paired units are required: 1");
    assertThat(v1.interval()).isNull();
    assertThat(v2.status()).isEqualTo(Status.UNEVALUABLE);
    assertThat(gate.passed()).isFalse();
  }

  @Test
  void noLostWork_allZero_passes_anyLostFails_noRunsUnevaluable() {
    Criterion c = new Criterion.NoLostWork("G3", "a", List.of("lost", "dead_lettered"));
    Observations clean = (arm, metric) -> Map.of("11", 0.0, "22", 0.0);
    Observations lossy =
        (arm, metric) -> metric.equals("lost") ? Map.of("11", 0.0, "22", 3.0) : Map.of("11", 0.0);
    Observations none = (arm, metric) -> Map.of();

    assertThat(judge(c, clean).status()).isEqualTo(Status.PASS);
    Verdict lost = judge(c, lossy);
    assertThat(lost.status()).isEqualTo(Status.FAIL);
    assertThat(lost.reason()).isEqualTo("work lost: lost = 3 in 22");
    assertThat(judge(c, none).status()).isEqualTo(Status.UNEVALUABLE);
  }

  @Test
  void gate_allPass_passes_oneFailure_fails() {
    Observations good = scaled(0.72, 0.70, 0.75, 0.68, 0.74);
    Gate gate =
        new Gate(
            List.of(
                new Criterion.Improvement("P1", "m", "a", "fifo", -0.15),
                new Criterion.MaxRatio("G1", "m", "a", "fifo", 1.25, OptionalDouble.empty())),
            BOOT);
    Gate strict =
        new Gate(
            List.of(
                new Criterion.Improvement("P1", "m", "a", "fifo", -0.15),
                new Criterion.MinRatio("G4", "m", "a", "fifo", 0.98)),
            BOOT);

    assertThat(gate.evaluate(good).passed()).isTrue();
    GateResult r = strict.evaluate(good);
    assertThat(r.passed()).isFalse();
    assertThat(r.verdicts()).extracting(Verdict::status).containsExactly(Status.PASS, Status.FAIL);
  }

  @Test
  void construction_badCriteria_failWithRule() {
    assertThatThrownBy(() -> new Criterion.Improvement("P1", "m", "a", "fifo", 0.1))
        .hasMessage("an improvement target must be in (-1, 0): 0.1");
    assertThatThrownBy(() -> new Criterion.NonInferiority("S1", "m", "a", "fifo", -0.1))
        .hasMessage("a non-inferiority margin must be > 0: -0.1");
    assertThatThrownBy(() -> new Criterion.Reduction("S2", " ", "a", "fifo"))
        .hasMessageStartingWith("id, metric, arm and baseline must not be blank");
    assertThatThrownBy(() -> new Gate(List.of(), BOOT))
        .hasMessage("a gate needs at least one criterion: 0 given");
    Criterion p1 = new Criterion.Reduction("P1", "m", "a", "fifo");
    assertThatThrownBy(() -> new Gate(List.of(p1, p1), BOOT))
        .hasMessage("criterion ids must be unique: [P1, P1]");
  }

  @Test
  void observationsOf_table_readsPerUnitValuesByArmAndMetric() {
    Observations table =
        Observations.of(
            Map.of(
                "fifo", Map.of("w0", Map.of("mean", 10.0), "w1", Map.of("mean", 20.0)),
                "a", Map.of("w0", Map.of("mean", 5.0), "w1", Map.of("mean", 10.0, "p99", 1.0))));

    assertThat(table.values("a", "mean")).containsOnly(Map.entry("w0", 5.0), Map.entry("w1", 10.0));
    assertThat(table.values("a", "p99")).containsOnly(Map.entry("w1", 1.0));
    assertThat(table.values("b", "mean")).isEmpty();
    Verdict v =
        Gate.evaluate(
            new Criterion.Improvement("P1", "mean", "a", "fifo", -0.15),
            table,
            MovingBlockBootstrap.defaults());
    assertThat(v.interval().point()).isEqualTo(-0.5);
    assertThat(v.status()).isEqualTo(Status.PASS);
  }

  /** Observations of FIFO, an arm and an oracle, each as per-seed factors of FIFO. */
  private static Observations threeArms(double[] arm, double[] oracle) {
    Map<String, Double> a = new HashMap<>();
    Map<String, Double> o = new HashMap<>();
    String[] seeds = {"11", "22", "33"};
    for (int i = 0; i < seeds.length; i++) {
      a.put(seeds[i], FIFO.get(seeds[i]) * arm[i]);
      o.put(seeds[i], FIFO.get(seeds[i]) * oracle[i]);
    }
    return (name, metric) ->
        switch (name) {
          case "fifo" -> FIFO;
          case "a" -> a;
          case "oracle" -> o;
          default -> Map.of();
        };
  }

  @Test
  void gapToReference_withinTwoPointsOnEverySeed_passes() {
    Criterion c = new Criterion.GapToReference("T7", "m", "a", "oracle", "fifo", 0.02);
    Verdict v =
        judge(c, threeArms(new double[] {0.42, 0.425, 0.41}, new double[] {0.41, 0.41, 0.40}));
    assertThat(v.status()).isEqualTo(Status.PASS);
    assertThat(v.interval().point()).isCloseTo(0.0117, org.assertj.core.data.Offset.offset(1e-3));
    assertThat(v.reason())
        .startsWith("+1.2 points [")
        .contains("(change -58.2% against -59.3%)", "CI upper <= 2.0 points limit");
    assertThat(c.rule()).isEqualTo("m change vs fifo minus oracle's: CI upper <= 2.0 points");
  }

  @Test
  void gapToReference_oneSeedFarBehind_fails() {
    Criterion c = new Criterion.GapToReference("T7", "m", "a", "oracle", "fifo", 0.02);
    Verdict v =
        judge(c, threeArms(new double[] {0.42, 0.55, 0.41}, new double[] {0.41, 0.41, 0.40}));
    assertThat(v.status()).isEqualTo(Status.FAIL);
    assertThat(v.reason()).contains("CI upper > 2.0 points limit");
    // Better than the reference is no gap at all.
    Verdict ahead =
        judge(c, threeArms(new double[] {0.35, 0.36, 0.34}, new double[] {0.41, 0.41, 0.40}));
    assertThat(ahead.status()).isEqualTo(Status.PASS);
  }

  @Test
  void gapToReference_referenceMissing_isUnevaluable() {
    Criterion c = new Criterion.GapToReference("T7", "m", "a", "nobody", "fifo", 0.02);
    Verdict v = judge(c, scaled(0.4, 0.4, 0.4));
    Criterion known = new Criterion.GapToReference("T7", "m", "a", "oracle", "fifo", 0.02);
    assertThat(v.status()).isEqualTo(Status.UNEVALUABLE);
    assertThat(v.reason())
        .isEqualTo("unevaluable: at least 2 units with a, nobody and fifo are required: 0");
    Observations oneSeed =
        (name, metric) ->
            switch (name) {
              case "fifo" -> Map.of("11", 100.0);
              case "a" -> Map.of("11", 42.0);
              case "oracle" -> Map.of("11", 40.0);
              default -> Map.of();
            };
    Verdict single = judge(known, oneSeed);
    assertThat(single.status()).isEqualTo(Status.UNEVALUABLE);
    // The one seed's gap is still shown.
    assertThat(single.pairs().values()).hasSize(1);
    assertThat(single.pairs().values().get(0))
        .isCloseTo(0.02, org.assertj.core.data.Offset.offset(1e-9));
    assertThatThrownBy(() -> new Criterion.GapToReference("T7", "m", "a", "o", "fifo", 0))
        .hasMessage("a gap limit must be > 0: 0.0");
  }
}
