package io.harbinger.experiments.sim;

import io.harbinger.check.sim.SimInput;
import io.harbinger.check.sim.SimRun;
import io.harbinger.check.sim.SimulatedArm;
import io.harbinger.check.sim.Simulator;
import io.harbinger.experiments.analysis.Gates;
import io.harbinger.experiments.stats.Bootstrap;
import io.harbinger.experiments.stats.Criterion;
import io.harbinger.experiments.stats.Gate;
import io.harbinger.experiments.stats.Interval;
import io.harbinger.experiments.stats.MovingBlockBootstrap;
import io.harbinger.experiments.stats.Observations;
import io.harbinger.experiments.stats.PercentileBootstrap;
import io.harbinger.experiments.stats.Verdict;
import io.harbinger.predictor.Predictor;
import io.harbinger.predictor.Ticker;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * Runs the arms of one trace at one load and reduces them to a {@link SimulationReport}: window
 * statistics, the window-averaged change against FIFO and the gates A and B ({@link Gates}).
 *
 * <p>Implementation notes: see {@link SimulationReport}. Runs are simulated one after another and
 * reduced to statistics at once, so memory holds one run at a time. Stateless and thread-safe.
 */
public final class Simulations {

  private Simulations() {}

  /**
   * Returns the simulator's factory of a choice's predictors.
   *
   * @param choice the predictor
   * @return a factory of cold predictors on the simulator's ticker
   * @throws IllegalArgumentException when the choice's levels are not the simulator's 3
   */
  static Function<Ticker, Predictor> predictors(PredictorChoice choice) {
    if (choice.config().levels() != Simulator.LEVELS) {
      throw new IllegalArgumentException(
          "the simulator's predictor must have "
              + Simulator.LEVELS
              + " levels: "
              + choice.config().levels());
    }
    return choice::predictor;
  }

  /**
   * Simulates every arm and judges the gates.
   *
   * @param input the prepared trace
   * @param arms the arms; FIFO is added first when missing
   * @param seed the seed of random arms
   * @param command the command line that produced the report, shown at its top
   * @return the report
   */
  public static SimulationReport run(
      SimInput input, List<SimulatedArm> arms, long seed, String command) {
    return run(input, arms, seed, command, List.of(PredictorChoice.of(PredictorProfile.DEFAULTS)));
  }

  /**
   * Simulates every arm, each predictive arm once per predictor profile, and judges the gates.
   *
   * @param input the prepared trace
   * @param arms the arms; FIFO is added first when missing
   * @param seed the seed of random arms
   * @param command the command line that produced the report, shown at its top
   * @param profiles the predictors, at least one: predictive arms under the first keep their names
   *     (and the gates judge them), under each further one they are named {@code ARM@LABEL}
   * @return the report
   */
  public static SimulationReport run(
      SimInput input,
      List<SimulatedArm> arms,
      long seed,
      String command,
      List<PredictorChoice> profiles) {
    if (profiles.isEmpty()) {
      throw new IllegalArgumentException("profiles must not be empty");
    }
    List<SimulatedArm> all = new ArrayList<>();
    all.add(SimulatedArm.parse(SimulationReport.BASELINE));
    for (SimulatedArm a : arms) {
      if (!all.contains(a)) {
        all.add(a);
      }
    }
    Map<String, Map<String, Map<String, Double>>> count = new LinkedHashMap<>();
    Map<String, Map<String, Map<String, Double>>> time = new LinkedHashMap<>();
    List<SimulationReport.ArmResult> partial = new ArrayList<>();
    List<Map.Entry<SimulatedArm, PredictorChoice>> variants = new ArrayList<>();
    for (SimulatedArm arm : all) {
      variants.add(Map.entry(arm, profiles.get(0)));
      if (arm.routing().usesPredictor()) {
        for (PredictorChoice extra : profiles.subList(1, profiles.size())) {
          variants.add(Map.entry(arm, extra));
        }
      }
    }
    for (Map.Entry<SimulatedArm, PredictorChoice> variant : variants) {
      SimulatedArm arm = variant.getKey();
      PredictorChoice profile = variant.getValue();
      String name = profile == profiles.get(0) ? arm.name() : arm.name() + "@" + profile.label();
      SimRun run = Simulator.run(input, arm, seed, predictors(profile));
      Map<String, Map<String, Double>> c = WindowStats.byCount(run, 7);
      Map<String, Map<String, Double>> t = WindowStats.byTime(run, 28);
      count.put(name, c);
      time.put(name, t);
      partial.add(
          new SimulationReport.ArmResult(
              name,
              WindowStats.whole(run),
              c,
              t,
              null,
              null,
              run.predictedShare(),
              run.outcomes(),
              run.promotions()));
    }
    Observations byCount = Observations.of(count);
    Observations byTime = Observations.of(time);
    Bootstrap iid = PercentileBootstrap.defaults();
    Bootstrap block = MovingBlockBootstrap.defaults();
    List<SimulationReport.ArmResult> results = new ArrayList<>();
    for (SimulationReport.ArmResult r : partial) {
      Interval ic = null;
      Interval it = null;
      if (!r.arm().equals(SimulationReport.BASELINE)) {
        ic = meanChange(r.arm(), byCount, iid);
        it = meanChange(r.arm(), byTime, block);
      }
      results.add(
          new SimulationReport.ArmResult(
              r.arm(),
              r.whole(),
              r.countWindows(),
              r.timeWindows(),
              ic,
              it,
              r.predictedShare(),
              r.outcomes(),
              r.promotions()));
    }
    List<SimulationReport.GateOutcome> gates = new ArrayList<>();
    addGate(gates, "A", Gates.GATE_A_ARM, 1.25, count, byCount, byTime, iid, block);
    addGate(gates, "B", Gates.GATE_B_ARM, 2.0, count, byCount, byTime, iid, block);
    return new SimulationReport(command, input, seed, results, gates);
  }

  private static Interval meanChange(String arm, Observations obs, Bootstrap bootstrap) {
    Verdict v =
        Gate.evaluate(
            new Criterion.Reduction("mean", "mean_ms", arm, SimulationReport.BASELINE),
            obs,
            bootstrap);
    return v.interval();
  }

  private static void addGate(
      List<SimulationReport.GateOutcome> gates,
      String name,
      String arm,
      double p99Limit,
      Map<String, ?> present,
      Observations byCount,
      Observations byTime,
      Bootstrap iid,
      Bootstrap block) {
    if (!present.containsKey(arm)) {
      return;
    }
    List<Criterion> criteria = Gates.simulation(arm, SimulationReport.BASELINE, p99Limit);
    gates.add(
        new SimulationReport.GateOutcome(
            name,
            arm,
            "7 equal-count windows, i.i.d. bootstrap",
            new Gate(criteria, iid).evaluate(byCount)));
    gates.add(
        new SimulationReport.GateOutcome(
            name,
            arm,
            "28 equal-time windows, block bootstrap (4)",
            new Gate(criteria, block).evaluate(byTime)));
  }
}
