package io.harbinger.check.sim;

import io.harbinger.check.trace.Trace;
import java.util.List;
import java.util.Objects;

/**
 * The simulated what-if of the check: replays the held-out part through the discrete-event
 * simulator with FIFO, predictive routing, and worker-time weights with pausing aging, at the
 * history's own load and at 0.8. The implementation is {@code
 * io.harbinger.check.sim.SimulatedWhatIf}; {@link #NOT_AVAILABLE} skips the simulation.
 */
@FunctionalInterface
public interface WhatIf {

  /** A what-if that simulates nothing and says so (for checks that skip the simulation). */
  WhatIf NOT_AVAILABLE =
      (trace, historyJobs) -> new Result(false, "not run: skipped (--no-what-if)", List.of());

  /**
   * Simulates the held-out part of a trace.
   *
   * @param trace the trace, sorted by arrival
   * @param historyJobs the number of leading jobs that warm the predictor
   * @return the simulated cells, or a result saying why none ran
   */
  Result simulate(Trace trace, int historyJobs);

  /**
   * The outcome of a what-if.
   *
   * @param ran whether anything was simulated
   * @param note what was done, or why nothing was
   * @param cells one per arm and load
   */
  record Result(boolean ran, String note, List<Cell> cells) {
    /** Checks and copies. */
    public Result {
      Objects.requireNonNull(note, "note");
      cells = List.copyOf(cells);
    }
  }

  /**
   * One simulated arm at one load.
   *
   * @param arm the arm, for example {@code "weights+pausing"}
   * @param load the offered load in (0, 1]
   * @param meanLatencyChange the change in mean latency against FIFO, -0.15 for 15% lower
   */
  record Cell(String arm, double load, double meanLatencyChange) {}
}
