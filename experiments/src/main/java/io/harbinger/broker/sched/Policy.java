package io.harbinger.broker.sched;

import io.harbinger.predictor.Predictor;

/**
 * The comparison arms: how a message's level is chosen at ingress, and for {@link #FAIR} which
 * queue structure serves it (reference sections 2.8 and 4.4).
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
      case FIFO, FAIR -> new FixedIngress(label, 0);
      case STATIC_TUNED -> StaticIngress.tuned(levels);
      case STATIC_MISCONFIGURED -> StaticIngress.misconfigured(levels);
      case PREDICTIVE -> new PredictiveIngress(requirePredictor(levels, predictor), false);
      case SHADOW -> new PredictiveIngress(requirePredictor(levels, predictor), true);
      case ORACLE -> new OracleIngress(levels);
    };
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
