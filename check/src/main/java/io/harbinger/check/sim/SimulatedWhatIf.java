package io.harbinger.check.sim;

import io.harbinger.check.trace.Trace;
import io.harbinger.predictor.PredictorConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The check's what-if, simulated: FIFO, predictive routing, and predictive routing with worker-time
 * weights and pausing aging, replayed on the held-out part at the history's own load and at 0.8;
 * the weighted arm also runs with the opt-in {@link PredictorConfig.Builder#fewObservations()}
 * settings ({@link #FEW_OBSERVATIONS}).
 *
 * <p>Example: a trace whose held-out half offers load 0.31 to 64 workers gives six cells: {@code
 * predictive_warm}, {@code predictive_warm+weights+pausing} and {@code
 * predictive_warm+weights+pausing@few_observations}, each at 0.31 and at 0.80, each with its change
 * in whole-run mean latency against FIFO at the same load.
 *
 * <p>Implementation notes: "own load" keeps the recorded arrival times (compress = 1, see {@link
 * SimInput}) and reports the load they offer; 0.8 compresses them. The predictor is warmed on the
 * history (as in the original simulator's {@code predictive_warm}). A trace whose held-out part has
 * no span or no work cannot be simulated and gets a result that says so. Deterministic: the same
 * trace gives the same cells.
 */
public final class SimulatedWhatIf implements WhatIf {

  private static final List<String> ARMS =
      List.of("predictive_warm", "predictive_warm+weights+pausing");
  private static final String WEIGHTED = "predictive_warm+weights+pausing";

  /** The arm name of the weighted arm under {@link PredictorConfig.Builder#fewObservations()}. */
  public static final String FEW_OBSERVATIONS = WEIGHTED + "@few_observations";

  private static final PredictorConfig FEW =
      PredictorConfig.defaults().toBuilder().fewObservations().build();
  private static final double STANDARD_LOAD = 0.8;

  private final int workers;

  /**
   * Creates the what-if.
   *
   * @param workers the number of simulated workers, in [1, 100000] (64 as in the paper)
   */
  public SimulatedWhatIf(int workers) {
    if (workers < 1 || workers > 100_000) {
      throw new IllegalArgumentException("workers must be in [1, 100000]: " + workers);
    }
    this.workers = workers;
  }

  @Override
  public Result simulate(Trace trace, int historyJobs) {
    if (historyJobs < 1 || historyJobs > trace.size() - 2) {
      return new Result(
          false,
          "not run: the held-out part needs at least 2 jobs and the history 1: "
              + historyJobs
              + " of "
              + trace.size(),
          List.of());
    }
    SimInput own;
    SimInput standard;
    try {
      own = SimInput.atOwnLoad(trace, historyJobs, workers);
      standard = SimInput.atLoad(trace, historyJobs, workers, STANDARD_LOAD);
    } catch (IllegalArgumentException e) {
      return new Result(false, "not run: " + e.getMessage(), List.of());
    }
    List<Cell> cells = new ArrayList<>();
    for (SimInput input : List.of(own, standard)) {
      double fifo = meanLatencyNanos(Simulator.run(input, SimulatedArm.parse("fifo"), 0));
      for (String arm : ARMS) {
        double mean = meanLatencyNanos(Simulator.run(input, SimulatedArm.parse(arm), 0));
        cells.add(new Cell(arm, input.load(), mean / fifo - 1));
      }
      double few = meanLatencyNanos(Simulator.run(input, SimulatedArm.parse(WEIGHTED), 0, FEW));
      cells.add(new Cell(FEW_OBSERVATIONS, input.load(), few / fifo - 1));
    }
    String note =
        String.format(
            Locale.ROOT,
            "simulated %,d held-out jobs on %d workers at the history's own load (%.2f) and at"
                + " %.2f; predictor warmed on the history; 5 s aging",
            own.evaluationJobs(),
            workers,
            own.load(),
            STANDARD_LOAD);
    return new Result(true, note, cells);
  }

  private static double meanLatencyNanos(SimRun run) {
    double sum = 0;
    for (int i = 0; i < run.jobs(); i++) {
      sum += run.latencyNanos(i);
    }
    return sum / run.jobs();
  }
}
