package io.harbinger.check.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.harbinger.check.trace.ReadReport;
import io.harbinger.check.trace.Trace;
import io.harbinger.check.trace.TraceBuilder;
import io.harbinger.check.trace.TraceFormat;
import io.harbinger.scheduler.AgingMode;
import io.harbinger.scheduler.Selection;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class SimulatorTest {

  private static final long MS = 1_000_000L;
  private static final ReadReport REPORT =
      new ReadReport("test", 0, 0, List.of(), List.of(), List.of());

  /**
   * Poisson arrivals at rate lambda per ms; a job is short (1 ms) with probability p, else long (r
   * ms). The first job is the history.
   */
  private static Trace twoClass(int jobs, double p, double r, double rho, long seed) {
    double meanService = p + (1 - p) * r;
    double lambdaPerMs = rho / meanService;
    SplittableRandom rng = new SplittableRandom(seed);
    TraceBuilder b = new TraceBuilder("two-class", 1);
    double t = 0;
    for (int i = 0; i < jobs; i++) {
      t += -Math.log(1 - rng.nextDouble()) / lambdaPerMs;
      boolean shortJob = rng.nextDouble() < p;
      b.add(Math.round(t * MS), shortJob ? MS : Math.round(r * MS), shortJob ? "s" : "l", -1);
    }
    return b.build(REPORT);
  }

  private static double[] meanWaitByClassMillis(SimRun run, int[] classes) {
    double[] sum = new double[2];
    long[] count = new long[2];
    for (int i = 0; i < run.jobs(); i++) {
      sum[classes[i]] += run.waitNanos(i);
      count[classes[i]]++;
    }
    return new double[] {
      sum[0] / count[0] / MS, sum[1] / count[1] / MS, (sum[0] + sum[1]) / (count[0] + count[1]) / MS
    };
  }

  private static int[] classes(SimInput input) {
    int[] c = new int[input.evaluationJobs()];
    for (int i = 0; i < c.length; i++) {
      c[i] = input.durationNanos(i) == MS ? 0 : 1;
    }
    return c;
  }

  @Test
  void run_mg1Fifo_matchesPollaczekKhinchineWithin3Percent() throws Exception {
    double p = 0.9;
    double r = 10;
    double rho = 0.5;
    Trace trace = twoClass(1_500_001, p, r, rho, 11);
    SimInput input = SimInput.atOwnLoad(trace, 1, 1);
    int[] classes = classes(input);
    double lambda = input.evaluationJobs() / (input.arrivalNanos(input.evaluationJobs() - 1) / 1e6);
    double meanS = p + (1 - p) * r;
    double meanS2 = p + (1 - p) * r * r;
    double realisedRho = lambda * meanS;
    double pk = lambda * meanS2 / (2 * (1 - realisedRho));

    SimRun fifo =
        Simulator.runFixed(
            input, new int[input.evaluationJobs()], SimulatedArm.parse("fifo+no_aging"));

    assertThat(meanWaitByClassMillis(fifo, classes)[2]).isCloseTo(pk, within(0.03 * pk));
  }

  @Test
  void run_twoClassPriority_matchesCobhamAndTable18Within3Percent() throws Exception {
    double p = 0.9;
    double r = 10;
    double rho = 0.5;
    Trace trace = twoClass(1_500_001, p, r, rho, 12);
    SimInput input = SimInput.atOwnLoad(trace, 1, 1);
    int[] classes = classes(input);
    double lambda = input.evaluationJobs() / (input.arrivalNanos(input.evaluationJobs() - 1) / 1e6);
    double rhoS = lambda * p;
    double rhoAll = lambda * (p + (1 - p) * r);
    double w0 = lambda * (p + (1 - p) * r * r) / 2;
    double shortWait = w0 / (1 - rhoS);
    double longWait = w0 / ((1 - rhoS) * (1 - rhoAll));

    SimRun priority = Simulator.runFixed(input, classes, SimulatedArm.parse("oracle+no_aging"));
    SimRun fifo =
        Simulator.runFixed(
            input, new int[input.evaluationJobs()], SimulatedArm.parse("fifo+no_aging"));
    double[] pr = meanWaitByClassMillis(priority, classes);
    double[] ff = meanWaitByClassMillis(fifo, classes);

    assertThat(pr[0]).isCloseTo(shortWait, within(0.03 * shortWait));
    assertThat(pr[1]).isCloseTo(longWait, within(0.03 * longWait));
    // Table 18, p = 0.9, r = 10, rho = 0.5: short 0.66, long 1.31, all jobs 0.72 of FIFO.
    assertThat(pr[0] / ff[2]).isCloseTo(0.66, within(0.03 * 0.66));
    assertThat(pr[1] / ff[2]).isCloseTo(1.31, within(0.03 * 1.31));
    assertThat(pr[2] / ff[2]).isCloseTo(0.72, within(0.03 * 0.72));
    // The same ratio from the estimator the safeguard uses.
    double shortWork = rhoS / rhoAll;
    double estimate =
        io.harbinger.predictor.PriorityGain.meanWaitRatio(
            new double[] {p, 1 - p}, new double[] {shortWork, 1 - shortWork}, rhoAll);
    assertThat(pr[2] / ff[2]).isCloseTo(estimate, within(0.03 * estimate));
  }

  @Test
  void run_twoClassPriorityAtLoad08_matchesTable18Within3Percent() throws Exception {
    Trace trace = twoClass(3_000_001, 0.9, 10, 0.8, 13);
    SimInput input = SimInput.atOwnLoad(trace, 1, 1);
    int[] classes = classes(input);

    double[] pr =
        meanWaitByClassMillis(
            Simulator.runFixed(input, classes, SimulatedArm.parse("oracle+no_aging")), classes);
    double[] ff =
        meanWaitByClassMillis(
            Simulator.runFixed(
                input, new int[input.evaluationJobs()], SimulatedArm.parse("fifo+no_aging")),
            classes);

    // Table 18, p = 0.9, r = 10, rho = 0.8: short 0.32, long 1.61, all jobs 0.45 of FIFO.
    assertThat(pr[0] / ff[2]).isCloseTo(0.32, within(0.03 * 0.32));
    assertThat(pr[1] / ff[2]).isCloseTo(1.61, within(0.03 * 1.61));
    assertThat(pr[2] / ff[2]).isCloseTo(0.45, within(0.03 * 0.45));
  }

  @Test
  void run_anyArm_losesNoJobAndKeepsEveryWorkerBusyWhileJobsWait() throws Exception {
    Trace trace =
        TraceFormat.read(
            "synthetic:seed=3,jobs=40000,keys=30,distribution=bimodal,load=0.95,workers=8");
    SimInput input = SimInput.atLoad(trace, trace.size() / 2, 8, 0.95);
    for (String name :
        List.of("fifo", "oracle", "predictive_warm+weights", "static_random+no_aging")) {
      SimRun run = Simulator.run(input, SimulatedArm.parse(name), 2026);

      assertThat(run.jobs()).isEqualTo(input.evaluationJobs());
      for (int i = 0; i < run.jobs(); i++) {
        assertThat(run.startNanos(i)).isGreaterThanOrEqualTo(input.arrivalNanos(i));
        assertThat(run.endNanos(i) - run.startNanos(i)).isEqualTo(input.durationNanos(i));
      }
      assertThat(idleWhileWaiting(run, 8)).as(name).isZero();
    }
  }

  /** Counts jobs that waited while a worker was idle (a work-conservation violation). */
  private static int idleWhileWaiting(SimRun run, int workers) {
    int n = run.jobs();
    long[] times = new long[2 * n];
    int[] deltas = new int[2 * n];
    Integer[] order = new Integer[2 * n];
    for (int i = 0; i < n; i++) {
      times[2 * i] = run.startNanos(i);
      deltas[2 * i] = 1;
      times[2 * i + 1] = run.endNanos(i);
      deltas[2 * i + 1] = -1;
    }
    for (int i = 0; i < 2 * n; i++) {
      order[i] = i;
    }
    Arrays.sort(order, (a, b) -> Long.compare(times[a], times[b]));
    long[] distinct = new long[2 * n];
    int[] notFull = new int[2 * n + 1];
    int[] busyAfter = new int[2 * n];
    int d = -1;
    int busy = 0;
    for (int k = 0; k < 2 * n; k++) {
      int e = order[k];
      if (d < 0 || distinct[d] != times[e]) {
        d++;
        distinct[d] = times[e];
      }
      busy += deltas[e];
      busyAfter[d] = busy;
    }
    for (int k = 0; k <= d; k++) {
      assertThat(busyAfter[k]).isBetween(0, workers);
      notFull[k + 1] = notFull[k] + (busyAfter[k] < workers ? 1 : 0);
    }
    long[] points = Arrays.copyOf(distinct, d + 1);
    int violations = 0;
    for (int i = 0; i < n; i++) {
      long a = run.input().arrivalNanos(i);
      long s = run.startNanos(i);
      if (s == a) {
        continue;
      }
      int from = Arrays.binarySearch(points, a);
      from = from >= 0 ? from : -from - 2;
      int to = Arrays.binarySearch(points, s);
      to = to >= 0 ? to : -to - 1;
      if (from < 0 || notFull[to] - notFull[from] > 0) {
        violations++;
      }
    }
    return violations;
  }

  @Test
  void run_sameInputAndSeed_givesIdenticalSchedules() throws Exception {
    Trace trace = TraceFormat.read("synthetic:seed=5,jobs=20000,keys=40,distribution=pareto");
    SimInput input = SimInput.atLoad(trace, trace.size() / 2, 16, 0.9);
    for (String name : List.of("predictive_warm+weights", "static_random", "predictive_cold")) {
      SimRun a = Simulator.run(input, SimulatedArm.parse(name), 7);
      SimRun b = Simulator.run(input, SimulatedArm.parse(name), 7);
      long[] as = new long[a.jobs()];
      long[] bs = new long[b.jobs()];
      for (int i = 0; i < as.length; i++) {
        as[i] = a.startNanos(i);
        bs[i] = b.startNanos(i);
      }
      assertThat(as).as(name).isEqualTo(bs);
      assertThat(a.outcomes()).isEqualTo(b.outcomes());
    }
  }

  @Test
  void run_oracleWithoutAgingUnderLoad_cutsMeanLatencyAgainstFifo() throws Exception {
    Trace trace = TraceFormat.read("synthetic:seed=9,jobs=60000,keys=20,workers=16,load=0.9");
    SimInput input = SimInput.atLoad(trace, trace.size() / 2, 16, 0.9);

    double fifo = meanLatency(Simulator.run(input, SimulatedArm.parse("fifo"), 1));
    double oracle = meanLatency(Simulator.run(input, SimulatedArm.parse("oracle+no_aging"), 1));
    double warm =
        meanLatency(Simulator.run(input, SimulatedArm.parse("predictive_warm+no_aging"), 1));

    assertThat(oracle).isLessThan(0.85 * fifo);
    assertThat(warm).isLessThan(fifo);
  }

  @Test
  void run_predictiveWarm_predictsMoreThanCold() throws Exception {
    Trace trace = TraceFormat.read("synthetic:seed=4,jobs=20000,keys=20");
    SimInput input = SimInput.atLoad(trace, trace.size() / 2, 64, 0.5);

    SimRun warm = Simulator.run(input, SimulatedArm.parse("predictive_warm"), 1);
    SimRun cold = Simulator.run(input, SimulatedArm.parse("predictive_cold"), 1);

    assertThat(warm.predictedShare()).isGreaterThan(cold.predictedShare());
    assertThat(cold.outcomes()).containsKey("cold");
    assertThat(Simulator.run(input, SimulatedArm.parse("fifo"), 1).predictedShare()).isNaN();
  }

  @Test
  void run_recordsEachJobsRoutedLevelAndWhetherItHadAnEstimate() throws Exception {
    Trace trace = TraceFormat.read("synthetic:seed=4,jobs=20000,keys=20");
    SimInput input = SimInput.atLoad(trace, trace.size() / 2, 64, 0.5);

    SimRun oracle = Simulator.run(input, SimulatedArm.parse("oracle+no_aging"), 1);
    SimRun fifo = Simulator.run(input, SimulatedArm.parse("fifo"), 1);
    SimRun warm = Simulator.run(input, SimulatedArm.parse("predictive_warm"), 1);

    int estimated = 0;
    for (int j = 0; j < input.evaluationJobs(); j++) {
      assertThat(oracle.routedLevel(j)).isEqualTo(input.tierOf(input.durationNanos(j)));
      assertThat(fifo.routedLevel(j)).isZero();
      assertThat(oracle.hadEstimate(j) || fifo.hadEstimate(j)).isFalse();
      estimated += warm.hadEstimate(j) ? 1 : 0;
    }
    long withEstimate = warm.outcomes().getOrDefault("predicted", 0L);
    assertThat(estimated).isGreaterThanOrEqualTo((int) withEstimate).isPositive();
  }

  @Test
  void run_staticHindsight_placesEachKeyByItsMedianOverTheEvaluatedJobs() throws Exception {
    // Keys s, m and l take 1, 10 and 100 ms in the history; in the evaluated half s and l swap.
    TraceBuilder b = new TraceBuilder("swap", 1);
    String[] keys = {"s", "m", "l"};
    long[] history = {MS, 10 * MS, 100 * MS};
    long[] evaluated = {100 * MS, 10 * MS, MS};
    for (int i = 0; i < 600; i++) {
      long duration = (i < 300 ? history : evaluated)[i % 3];
      b.add(i * 50L * MS, duration, keys[i % 3], -1);
    }
    SimInput input = SimInput.atLoad(b.build(REPORT), 300, 4, 0.5);

    SimRun hindsight = Simulator.run(input, SimulatedArm.parse("static_hindsight+no_aging"), 1);
    SimRun fromHistory = Simulator.run(input, SimulatedArm.parse("static_history+no_aging"), 1);

    assertThat(input.tierOf(100 * MS)).isGreaterThan(input.tierOf(MS));
    for (int j = 0; j < input.evaluationJobs(); j++) {
      int key = j % 3;
      assertThat(hindsight.routedLevel(j)).as("job %d", j).isEqualTo(input.tierOf(evaluated[key]));
      assertThat(fromHistory.routedLevel(j)).as("job %d", j).isEqualTo(input.tierOf(history[key]));
      assertThat(hindsight.hadEstimate(j)).isFalse();
    }
  }

  private static double meanLatency(SimRun run) {
    double sum = 0;
    for (int i = 0; i < run.jobs(); i++) {
      sum += run.latencyNanos(i);
    }
    return sum / run.jobs();
  }

  @Test
  void atLoad_compressesArrivalsToTheTargetLoad() throws Exception {
    Trace trace = TraceFormat.read("synthetic:seed=2,jobs=10000,keys=10,load=0.5");
    SimInput input = SimInput.atLoad(trace, 5000, 64, 0.8);
    double work = 0;
    for (int i = 0; i < input.evaluationJobs(); i++) {
      work += input.durationNanos(i);
    }
    double span = input.arrivalNanos(input.evaluationJobs() - 1) - input.arrivalNanos(0);

    assertThat(work / (64 * span)).isCloseTo(0.8, within(1e-6));
    assertThat(input.arrivalNanos(0)).isZero();
  }

  @Test
  void atLoad_badParameters_areRejectedWithTheRule() throws Exception {
    Trace trace = TraceFormat.read("synthetic:seed=2,jobs=100,keys=10");

    assertThatThrownBy(() -> SimInput.atLoad(trace, 50, 64, 0))
        .hasMessage("load must be in (0, 1.5]: 0.0");
    assertThatThrownBy(() -> SimInput.atLoad(trace, 99, 64, 0.5))
        .hasMessage("history jobs must be in [1, 98]: 99");
    assertThatThrownBy(() -> SimInput.atLoad(trace, 50, 0, 0.5))
        .hasMessage("workers must be in [1, 100000]: 0");
  }

  @Test
  void parse_armNames_roundTripAndRejectGarbage() throws Exception {
    for (String name :
        List.of(
            "fifo",
            "static_history+no_aging",
            "static_hindsight+weights+pausing",
            "predictive_warm+weights+pausing",
            "oracle+pausing",
            "predictive_cold+weights+no_aging")) {
      assertThat(SimulatedArm.parse(name).name()).isEqualTo(name);
    }
    assertThat(SimulatedArm.parse("predictive_warm+weights").name())
        .isEqualTo("predictive_warm+weights+pausing");
    assertThatThrownBy(() -> SimulatedArm.parse("lifo")).hasMessageContaining("arm must be one of");
    assertThatThrownBy(() -> SimulatedArm.parse("fifo+turbo"))
        .hasMessage("arm suffix must be +weights, +pausing, +following or +no_aging: fifo+turbo");
    assertThatThrownBy(() -> SimulatedArm.parse("fifo+pausing+no_aging"))
        .hasMessageContaining("one of +pausing, +following and +no_aging");
  }

  @Test
  void parse_suffixes_setSelectionAndAgingAndNameTheArmCanonically() {
    SimulatedArm a = SimulatedArm.parse("predictive_warm+weights");
    assertThat(a.name()).isEqualTo("predictive_warm+weights+pausing");
    assertThat(a.routing()).isEqualTo(SimulatedArm.Routing.PREDICTIVE_WARM);
    assertThat(a.selection()).isEqualTo(Selection.WEIGHTED);
    assertThat(a.aging()).isEqualTo(AgingMode.PAUSING);
    assertThat(SimulatedArm.parse("oracle+no_aging").aging()).isEqualTo(AgingMode.NONE);
    assertThat(SimulatedArm.parse("fifo").selection()).isEqualTo(Selection.STRICT);
    assertThat(SimulatedArm.parse("fifo").aging()).isEqualTo(AgingMode.PLAIN);
    assertThatThrownBy(() -> SimulatedArm.parse("broker-fifo"))
        .hasMessageStartingWith("arm must be one of fifo, static_history");
  }
}
