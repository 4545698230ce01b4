package io.harbinger.experiments.analysis;

import io.harbinger.experiments.stats.Criterion;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalDouble;

/**
 * Every gate of the project, defined once: the production-flow gate of each compared arm (the
 * original implementation's, whose criteria seed paper appendix A lists), the project's targets for
 * the adapter's arms, and the simulation gates A and B of the trace replays (seed paper section 4,
 * with the original implementation's limits). Each returns the criteria; {@code stats.Gate} judges
 * them. Stateless and thread-safe.
 */
public final class Gates {

  /** The export wait cap of G2 before time scaling. */
  public static final double EXPORT_WAIT_CAP_MILLIS = 60_000;

  /** The metrics G3 requires to be zero in every run. */
  static final List<String> G3_METRICS =
      List.of(RunMetrics.NOT_COMPLETED, RunMetrics.DEAD_LETTERED, RunMetrics.SUBMIT_ERRORS);

  /** The all-message P99 guardrail of the production flow (G1, T3), against FIFO's: 1.25x. */
  public static final double P99_LIMIT = 1.25;

  /** The longest export wait guardrail of the production flow (G2, T4), against FIFO's: 2x. */
  public static final double EXPORT_WAIT_LIMIT = 2.0;

  /** How far the adapter's mean change against FIFO may trail the oracle's (T7): 2 points. */
  public static final double ORACLE_GAP_POINTS = 0.02;

  /** The arm the simulation gate A judges. */
  public static final String GATE_A_ARM = "predictive_warm";

  /** The arm the simulation gate B judges. */
  public static final String GATE_B_ARM = "predictive_warm+weights+pausing";

  private Gates() {}

  /**
   * Returns the production-flow gate of an arm: P1 (mean at most -15%, CI upper below 0), P2
   * (short-class P50 at most -30%), G1 (P99 ratio CI upper at most 1.25), G2 (export max wait ratio
   * CI upper at most 2.0, and no export wait above 60 s divided by the time scale), G3 (nothing
   * lost).
   *
   * @param arm the arm
   * @param baseline its FIFO baseline
   * @param timeScale the runs' time scale (the 60 s export-wait cap is divided by it)
   * @return the criteria in order
   */
  public static List<Criterion> production(String arm, String baseline, double timeScale) {
    return List.of(
        new Criterion.Improvement("P1", RunMetrics.MEAN_MS, arm, baseline, -0.15),
        new Criterion.Improvement("P2", RunMetrics.SHORT_P50_MS, arm, baseline, -0.30),
        new Criterion.MaxRatio(
            "G1", RunMetrics.P99_MS, arm, baseline, P99_LIMIT, OptionalDouble.empty()),
        new Criterion.MaxRatio(
            "G2",
            RunMetrics.EXPORT_MAX_WAIT_MS,
            arm,
            baseline,
            EXPORT_WAIT_LIMIT,
            OptionalDouble.of(EXPORT_WAIT_CAP_MILLIS / timeScale)),
        new Criterion.NoLostWork("G3", arm, G3_METRICS));
  }

  /** The arm the project's targets are judged for, when present: the default adapter. */
  public static final String TARGET_ARM = "rabbitmq-predictive";

  /**
   * Returns the project's targets for {@link #TARGET_ARM} when present: T1 mean at most -50% and T2
   * short-class P50 at most -85% against {@code rabbitmq-fifo}, T3 P99 at most 1.25x, T4 export max
   * wait at most 2x, T5 nothing lost, T6 a lower mean than {@code rabbitmq-static-tuned}, and T7 a
   * mean change against FIFO at most 2 points short of {@code rabbitmq-oracle}'s.
   *
   * @param arms the arms of the run
   * @return the criteria; empty when the target arm or {@code rabbitmq-fifo} is absent
   */
  public static List<Criterion> targets(List<String> arms) {
    String arm = TARGET_ARM;
    String fifo = "rabbitmq-fifo";
    List<Criterion> out = new ArrayList<>();
    if (!arms.contains(arm) || !arms.contains(fifo)) {
      return out;
    }
    out.add(new Criterion.Improvement("T1", RunMetrics.MEAN_MS, arm, fifo, -0.50));
    out.add(new Criterion.Improvement("T2", RunMetrics.SHORT_P50_MS, arm, fifo, -0.85));
    out.add(
        new Criterion.MaxRatio(
            "T3", RunMetrics.P99_MS, arm, fifo, P99_LIMIT, OptionalDouble.empty()));
    out.add(
        new Criterion.MaxRatio(
            "T4",
            RunMetrics.EXPORT_MAX_WAIT_MS,
            arm,
            fifo,
            EXPORT_WAIT_LIMIT,
            OptionalDouble.empty()));
    out.add(
        new Criterion.NoLostWork(
            "T5",
            arm,
            List.of(RunMetrics.NOT_COMPLETED, RunMetrics.LOST, RunMetrics.SUBMIT_ERRORS)));
    if (arms.contains("rabbitmq-static-tuned")) {
      out.add(new Criterion.Reduction("T6", RunMetrics.MEAN_MS, arm, "rabbitmq-static-tuned"));
    }
    if (arms.contains("rabbitmq-oracle")) {
      out.add(
          new Criterion.GapToReference(
              "T7", RunMetrics.MEAN_MS, arm, "rabbitmq-oracle", fifo, ORACLE_GAP_POINTS));
    }
    return out;
  }

  /**
   * Returns a simulation gate over per-window metrics: P1 mean at most -15% with its interval below
   * zero, G1 P99 ratio at most the limit, G2 long max wait ratio at most 2.0.
   *
   * @param arm the simulated arm
   * @param baseline the simulated FIFO arm
   * @param p99Limit 1.25 for gate A, 2.0 for gate B
   * @return the criteria in order
   */
  public static List<Criterion> simulation(String arm, String baseline, double p99Limit) {
    return List.of(
        new Criterion.Improvement("P1", "mean_ms", arm, baseline, -0.15),
        new Criterion.MaxRatio("G1", "p99_ms", arm, baseline, p99Limit, OptionalDouble.empty()),
        new Criterion.MaxRatio(
            "G2", "long_max_wait_ms", arm, baseline, 2.0, OptionalDouble.empty()));
  }
}
