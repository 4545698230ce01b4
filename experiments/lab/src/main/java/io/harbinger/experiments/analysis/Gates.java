package io.harbinger.experiments.analysis;

import io.harbinger.experiments.stats.Criterion;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalDouble;

/**
 * Every gate of the project, defined once: the production-flow gate of each compared arm (reference
 * section 6.2), the project's targets for the adapter's arms, and the simulation gates A and B of
 * the trace replays (reference sections 6.3 and 6.4). Each returns the criteria; {@code stats.Gate}
 * judges them. Stateless and thread-safe.
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

  /**
   * The arms the project's targets are judged for, when present: the default adapter and the opt-in
   * tail budget, the candidate for the default.
   */
  public static final List<String> TARGET_ARMS =
      List.of("rabbitmq-predictive", "rabbitmq-predictive-budget");

  /**
   * Returns the project's targets for each arm of {@link #TARGET_ARMS} present: mean at most -50%
   * and short-class P50 at most -85% against {@code rabbitmq-fifo}, P99 at most 1.25x, export max
   * wait at most 2x, nothing lost, a lower mean than {@code rabbitmq-static-tuned}, and a mean
   * change against FIFO at most 2 points short of {@code rabbitmq-oracle}'s (T7). The criteria of
   * the first arm are T1 to T7; those of another arm carry its last word ({@code T1-budget}).
   *
   * @param arms the arms of the run
   * @return the criteria, arm by arm; empty when no target arm or {@code rabbitmq-fifo} is absent
   */
  public static List<Criterion> targets(List<String> arms) {
    List<Criterion> out = new ArrayList<>();
    for (String arm : TARGET_ARMS) {
      if (arms.contains(arm)) {
        out.addAll(targets(arms, arm));
      }
    }
    return out;
  }

  private static List<Criterion> targets(List<String> arms, String arm) {
    String fifo = "rabbitmq-fifo";
    String suffix = arm.equals(TARGET_ARMS.getFirst()) ? "" : arm.substring(arm.lastIndexOf('-'));
    List<Criterion> out = new ArrayList<>();
    if (!arms.contains(fifo)) {
      return out;
    }
    out.add(new Criterion.Improvement("T1" + suffix, RunMetrics.MEAN_MS, arm, fifo, -0.50));
    out.add(new Criterion.Improvement("T2" + suffix, RunMetrics.SHORT_P50_MS, arm, fifo, -0.85));
    out.add(
        new Criterion.MaxRatio(
            "T3" + suffix, RunMetrics.P99_MS, arm, fifo, P99_LIMIT, OptionalDouble.empty()));
    out.add(
        new Criterion.MaxRatio(
            "T4" + suffix,
            RunMetrics.EXPORT_MAX_WAIT_MS,
            arm,
            fifo,
            EXPORT_WAIT_LIMIT,
            OptionalDouble.empty()));
    out.add(
        new Criterion.NoLostWork(
            "T5" + suffix,
            arm,
            List.of(RunMetrics.NOT_COMPLETED, RunMetrics.LOST, RunMetrics.SUBMIT_ERRORS)));
    if (arms.contains("rabbitmq-static-tuned")) {
      out.add(
          new Criterion.Reduction("T6" + suffix, RunMetrics.MEAN_MS, arm, "rabbitmq-static-tuned"));
    }
    if (arms.contains("rabbitmq-oracle")) {
      out.add(
          new Criterion.GapToReference(
              "T7" + suffix, RunMetrics.MEAN_MS, arm, "rabbitmq-oracle", fifo, ORACLE_GAP_POINTS));
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
