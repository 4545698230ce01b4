package io.harbinger.experiments.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.harbinger.check.sim.SimInput;
import io.harbinger.check.sim.SimRun;
import io.harbinger.check.sim.SimulatedArm;
import io.harbinger.check.sim.Simulator;
import io.harbinger.check.trace.ReadReport;
import io.harbinger.check.trace.Trace;
import io.harbinger.check.trace.TraceBuilder;
import io.harbinger.experiments.stats.Verdict;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class SimulationReportTest {

  private static final long MS = 1_000_000L;
  private static final ReadReport REPORT =
      new ReadReport("test", 0, 0, List.of(), List.of(), List.of());

  /** 90% of jobs take 1 ms (key "fast"), 10% take 100 ms (key "slow"), Poisson at load rho. */
  private static Trace skewed(int jobs, double rho, long seed) {
    SplittableRandom rng = new SplittableRandom(seed);
    double lambdaPerMs = rho / (0.9 + 0.1 * 100);
    TraceBuilder b = new TraceBuilder("skewed", 1);
    double t = 0;
    for (int i = 0; i < jobs; i++) {
      t += -Math.log(1 - rng.nextDouble()) / lambdaPerMs;
      boolean fast = rng.nextDouble() < 0.9;
      b.add(Math.round(t * MS), fast ? MS : 100 * MS, fast ? "fast" : "slow", -1);
    }
    return b.build(REPORT);
  }

  private static List<SimulatedArm> arms(String... names) {
    return java.util.Arrays.stream(names).map(SimulatedArm::parse).toList();
  }

  @Test
  void run_shortFirstHelpsAtHighLoad_gatesAAndBPassTheirMeanCriterion() {
    Trace trace = skewed(120_000, 0.8, 3);
    SimInput input = SimInput.atLoad(trace, 60_000, 1, 0.8);

    SimulationReport report =
        Simulations.run(
            input, arms("predictive_warm", "predictive_warm+weights+pausing"), 1, "test");

    assertThat(report.gates()).hasSize(4);
    for (SimulationReport.GateOutcome g : report.gates()) {
      Verdict p1 = g.result().verdicts().get(0);
      assertThat(p1.passed()).as(g.gate() + " " + g.windowing() + ": " + p1.reason()).isTrue();
      assertThat(p1.interval().point()).isLessThan(-0.3);
    }
    SimulationReport.ArmResult warm = report.arms().get(1);
    assertThat(warm.predictedShare()).isGreaterThan(0.99);
    assertThat(warm.meanVsFifoCount().high()).isLessThan(0);
  }

  @Test
  void run_oneKeyOneDuration_predictiveOrdersLikeFifoAndFailsP1WithZeroChange() {
    SplittableRandom rng = new SplittableRandom(4);
    TraceBuilder b = new TraceBuilder("constant", 1);
    double t = 0;
    for (int i = 0; i < 20_000; i++) {
      t += -Math.log(1 - rng.nextDouble()) * 10 / 0.9;
      b.add(Math.round(t * MS), 10 * MS, "only", -1);
    }
    SimInput input = SimInput.atLoad(b.build(REPORT), 10_000, 1, 0.9);

    SimulationReport report =
        Simulations.run(
            input, arms("predictive_warm", "predictive_warm+weights+pausing"), 1, "test");

    for (SimulationReport.GateOutcome g : report.gates()) {
      assertThat(g.result().passed()).isFalse();
      Verdict p1 = g.result().verdicts().get(0);
      assertThat(p1.status()).isEqualTo(Verdict.Status.FAIL);
      assertThat(p1.interval().point()).isZero();
      assertThat(g.result().verdicts().get(1).passed()).isTrue();
    }
    assertThat(SimulationFormat.MARKDOWN.render(report))
        .contains("Gate A (predictive_warm), 7 equal-count windows");
  }

  @Test
  void windows_countAndTime_coverEveryJobOnce() {
    Trace trace = skewed(30_000, 0.7, 5);
    SimInput input = SimInput.atLoad(trace, 15_000, 2, 0.7);
    SimRun run = Simulator.run(input, SimulatedArm.parse("oracle"), 1);

    Map<String, Map<String, Double>> seven = WindowStats.byCount(run, 7);
    Map<String, Map<String, Double>> time = WindowStats.byTime(run, 28);

    assertThat(seven).hasSize(7);
    assertThat(seven.values().stream().mapToDouble(m -> m.get("count")).sum()).isEqualTo(15_000);
    assertThat(time.values().stream().mapToDouble(m -> m.get("count")).sum()).isEqualTo(15_000);
    assertThat(time).hasSize(28);
    double weighted =
        seven.values().stream().mapToDouble(m -> m.get("mean_ms") * m.get("count")).sum() / 15_000;
    assertThat(weighted).isCloseTo(WindowStats.whole(run).get("mean_ms"), within(1e-6));
  }

  @Test
  void whole_knownSchedule_givesNearestRankMetricsAndClasses() {
    TraceBuilder b = new TraceBuilder("known", 1);
    // History: durations 1, 2, 3 ms, so the tertiles are 2 ms (index 1) and 3 ms (index 2).
    b.add(0, MS, "a", -1).add(1, 2 * MS, "a", -1).add(2, 3 * MS, "a", -1);
    // Evaluation on one worker: 10 ms at t=0, then two 1 ms jobs at t=1 ms, both wait.
    b.add(10 * MS, 10 * MS, "a", -1).add(11 * MS, MS, "a", -1).add(11 * MS, MS, "a", -1);
    SimInput input = SimInput.atOwnLoad(b.build(REPORT), 3, 1);

    Map<String, Double> m = WindowStats.whole(Simulator.run(input, SimulatedArm.parse("fifo"), 1));

    // Latencies: 10, 10 (waits 9), 11 (waits 10) ms.
    assertThat(m.get("mean_ms")).isCloseTo(31.0 / 3, within(1e-9));
    assertThat(m.get("p50_ms")).isEqualTo(10.0);
    assertThat(m.get("p99_ms")).isEqualTo(11.0);
    assertThat(m.get("slowdown_p99")).isEqualTo(11.0);
    assertThat(m.get("long_max_wait_ms")).isEqualTo(0.0);
    assertThat(m.get("short_p50_ms")).isEqualTo(10.0);
    assertThat(m).doesNotContainKey("medium_mean_ms");
  }
}
