package io.harbinger.broker;

import io.harbinger.predictor.Predictor;
import io.harbinger.predictor.Ticker;
import io.harbinger.scheduler.FairScheduler;
import io.harbinger.scheduler.IngressPolicy;
import io.harbinger.scheduler.Scheduler;
import io.harbinger.scheduler.SchedulerConfig;
import java.util.Map;

/**
 * The broker's ingress arms: how a message's level is chosen at ingress, and for {@link #FAIR}
 * which queue structure serves it (reference sections 2.8 and 4.4).
 */
public enum Policy {
  /** Every message at level 0: one FIFO. */
  FIFO("fifo"),
  /** The operator's informed static map of job types to levels (reference section 4.4). */
  STATIC_TUNED("static-tuned"),
  /** The static map by business importance, which puts long work first (reference section 4.4). */
  STATIC_MISCONFIGURED("static-misconfigured"),
  /** The predictor's level for each key, its estimate as the cost. */
  PREDICTIVE("predictive"),
  /** The predictor predicts and learns, but every message takes the default level. */
  SHADOW("shadow"),
  /** A queue per job type in equal shares of worker time, no prediction ({@link FairScheduler}). */
  FAIR("fair"),
  /** The true cost tier, read from the message (for reference only). */
  ORACLE("oracle");

  /**
   * The hand-tuned map of the production flow (reference section 4.4, {@code kTunedTiers}): cheap
   * work first, images and exports last. It goes stale when the workload shifts.
   */
  public static final Map<String, Integer> TUNED_MAP =
      Map.of(
          "reserve_inventory", 0,
          "push_notification", 0,
          "reindex_product", 0,
          "send_order_email", 1,
          "generate_invoice", 1,
          "send_sms", 1,
          "deliver_webhook", 1,
          "resize_image", 2,
          "export_report", 2);

  /**
   * The misconfigured map of the production flow (reference section 4.4, {@code
   * kMisconfiguredTiers}): priority by business importance, which puts long work first.
   */
  public static final Map<String, Integer> MISCONFIGURED_MAP =
      Map.of(
          "send_order_email", 0,
          "generate_invoice", 0,
          "reserve_inventory", 0,
          "deliver_webhook", 0,
          "export_report", 0,
          "push_notification", 1,
          "send_sms", 1,
          "resize_image", 1,
          "reindex_product", 2);

  private final String label;

  Policy(String label) {
    this.label = label;
  }

  /** Returns the command-line name. */
  public String label() {
    return label;
  }

  /** Returns whether the arm needs a predictor. */
  public boolean needsPredictor() {
    return this == PREDICTIVE || this == SHADOW;
  }

  /**
   * Creates the ingress policy of this arm.
   *
   * @param levels the number of levels of the scheduler, in [2, 10]
   * @param predictor the predictor for {@link #PREDICTIVE} and {@link #SHADOW}; ignored (may be
   *     null) for the others
   * @return the policy
   * @throws IllegalArgumentException if a predictor is needed and missing, or its levels differ
   */
  public IngressPolicy newIngress(int levels, Predictor predictor) {
    return switch (this) {
      case FIFO, FAIR -> IngressPolicy.fixed(label, 0);
      case STATIC_TUNED -> IngressPolicy.staticMap(label, levels, TUNED_MAP);
      case STATIC_MISCONFIGURED -> IngressPolicy.staticMap(label, levels, MISCONFIGURED_MAP);
      case PREDICTIVE -> IngressPolicy.predictive(label, requirePredictor(levels, predictor));
      case SHADOW -> IngressPolicy.shadow(label, requirePredictor(levels, predictor));
      case ORACLE -> IngressPolicy.oracle(label, levels);
    };
  }

  /**
   * Creates the scheduler of this arm: a {@link FairScheduler} for {@link #FAIR} (levels, selection
   * and aging do not apply), otherwise a level scheduler as configured.
   *
   * @param config levels, selection and aging
   * @param ticker the clock
   * @return a new scheduler
   */
  public Scheduler newScheduler(SchedulerConfig config, Ticker ticker) {
    return this == FAIR ? new FairScheduler(ticker) : config.newScheduler(ticker);
  }

  private Predictor requirePredictor(int levels, Predictor predictor) {
    if (predictor == null) {
      throw new IllegalArgumentException("policy " + label + " needs a predictor");
    }
    if (predictor.levels() != levels) {
      throw new IllegalArgumentException(
          "predictor levels must equal scheduler levels " + levels + ": " + predictor.levels());
    }
    return predictor;
  }

  /**
   * Returns the policy with a command-line name.
   *
   * @param label one of fifo, static-tuned, static-misconfigured, predictive, shadow, fair, oracle
   * @return the policy
   * @throws IllegalArgumentException for any other name
   */
  public static Policy fromLabel(String label) {
    for (Policy p : values()) {
      if (p.label.equals(label)) {
        return p;
      }
    }
    throw new IllegalArgumentException(
        "policy must be one of fifo, static-tuned, static-misconfigured, predictive, shadow, fair,"
            + " oracle: "
            + label);
  }
}
