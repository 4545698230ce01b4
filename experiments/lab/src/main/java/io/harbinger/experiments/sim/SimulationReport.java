package io.harbinger.experiments.sim;

import io.harbinger.check.sim.SimInput;
import io.harbinger.experiments.stats.GateResult;
import io.harbinger.experiments.stats.Interval;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The immutable result of one trace at one load: the arms, their window statistics, and the
 * simulation gates. {@link Simulations#run} computes it; {@link SimulationFormat} writes it.
 *
 * <p>Example: {@code SimulationFormat.MARKDOWN.render(Simulations.run(input, arms, 2026, command))}
 * gives a Markdown table with one row per arm (whole-run mean, the window-averaged change against
 * FIFO with its intervals, P50, P99, short-class P50, longest long wait, share predicted) and the
 * gates.
 *
 * <p>Implementation notes (seed paper sections 4 and 5.2, with the original implementation's
 * simulation gates). Arms are paired with FIFO by window. Two windowings are reported: 7
 * equal-count windows with the i.i.d. percentile bootstrap (the original simulator's) and 28
 * equal-time windows with the moving-block bootstrap in blocks of 4 (the corrected one), both
 * 10,000 resamples, seed 2026. Gate A is {@code predictive_warm} with strict priority and default
 * aging: P1 mean at most -15% with its interval below zero, G1 P99 ratio at most 1.25 (v2), G2 long
 * max wait ratio at most 2.0. Gate B is {@code predictive_warm+weights+pausing} with the same rules
 * except G1 at most 2.0 (v3). A gate is judged only when its arm and {@code fifo} were simulated.
 * Runs are simulated one after another and reduced to statistics at once, so memory holds one run
 * at a time.
 */
public final class SimulationReport {

  /** The baseline every arm is compared with. */
  public static final String BASELINE = "fifo";

  private final String command;
  private final SimInput input;
  private final long seed;
  private final List<ArmResult> arms;
  private final List<GateOutcome> gates;

  /**
   * One arm's statistics.
   *
   * @param arm the arm's name
   * @param whole metrics over all evaluation jobs
   * @param countWindows metrics per equal-count window
   * @param timeWindows metrics per equal-time window
   * @param meanVsFifoCount the window-averaged change in mean latency against FIFO, equal-count
   *     windows, i.i.d. bootstrap; null for FIFO or when unevaluable
   * @param meanVsFifoTime the same over equal-time windows with the block bootstrap
   * @param predictedShare the share of jobs predicted, NaN without a predictor
   * @param outcomes the predictor's outcomes by name
   * @param promotions aging promotions
   */
  public record ArmResult(
      String arm,
      Map<String, Double> whole,
      Map<String, Map<String, Double>> countWindows,
      Map<String, Map<String, Double>> timeWindows,
      Interval meanVsFifoCount,
      Interval meanVsFifoTime,
      double predictedShare,
      Map<String, Long> outcomes,
      long promotions) {
    /** Checks and copies. */
    public ArmResult {
      Objects.requireNonNull(arm, "arm");
      whole = Map.copyOf(whole);
      outcomes = Map.copyOf(outcomes);
    }
  }

  /**
   * A gate judged on one windowing.
   *
   * @param gate "A" or "B"
   * @param arm the arm under test
   * @param windowing "7 equal-count windows, i.i.d. bootstrap" or the 28-window block variant
   * @param result the verdicts
   */
  public record GateOutcome(String gate, String arm, String windowing, GateResult result) {}

  SimulationReport(
      String command, SimInput input, long seed, List<ArmResult> arms, List<GateOutcome> gates) {
    this.command = command;
    this.input = input;
    this.seed = seed;
    this.arms = List.copyOf(arms);
    this.gates = List.copyOf(gates);
  }

  /** Returns the command line that produced the report. */
  public String command() {
    return command;
  }

  /** Returns the seed of the random arms. */
  public long seed() {
    return seed;
  }

  /** Returns the arms' statistics, FIFO first. */
  public List<ArmResult> arms() {
    return arms;
  }

  /** Returns the gates judged. */
  public List<GateOutcome> gates() {
    return gates;
  }

  /** Returns the input simulated. */
  public SimInput input() {
    return input;
  }
}
