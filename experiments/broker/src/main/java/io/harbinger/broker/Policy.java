package io.harbinger.broker;

import io.harbinger.predictor.Predictor;
import io.harbinger.scheduler.IngressPolicy;
import java.util.Map;
import java.util.StringJoiner;

/**
 * Where a comparison arm takes a message's level from at ingress (seed paper section 4; the arms of
 * the original implementation's broker, production-flow benchmark and trace simulator): the one
 * vocabulary of the arms in {@link Arms}, whatever they run on.
 *
 * <p>The broker builds the ingress of the policies for which {@link #runsOnBroker} is true ({@link
 * #newIngress}); the simulator builds the others from a trace's history, and a RabbitMQ arm's
 * producer sets the priority from its policy.
 */
public enum Policy {
  /** Every message at level 0: one FIFO. */
  FIFO("fifo"),
  /** The operator's informed static map of job types to levels (seed paper section 4). */
  STATIC_TUNED("static-tuned"),
  /** Each key's history median mapped at the history tertiles; unseen keys at the middle level. */
  STATIC_HISTORY("static-history"),
  /**
   * Each key's median over the jobs being evaluated, known in hindsight, mapped at the history
   * tertiles: the best any learner that gives all of a key's jobs one level by its median can do,
   * for reference only.
   */
  STATIC_HINDSIGHT("static-hindsight"),
  /** A seeded random level per key. */
  STATIC_RANDOM("static-random"),
  /** The predictor's level for each key, its estimate as the cost; the predictor starts empty. */
  PREDICTIVE("predictive"),
  /** As {@link #PREDICTIVE}, the predictor having first observed a trace's history. */
  PREDICTIVE_WARM("predictive-warm"),
  /** The producer follows a sidecar's route table, learned from the consumers' reports. */
  SIDECAR("sidecar"),
  /** The true cost tier, read from the message (for reference only). */
  ORACLE("oracle");

  /**
   * The hand-tuned map of the production flow (the original implementation's {@code kTunedTiers}):
   * cheap work first, images and exports last. It goes stale when the workload shifts.
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

  private final String label;

  Policy(String label) {
    this.label = label;
  }

  /** Returns the command-line name. */
  public String label() {
    return label;
  }

  /** Returns whether the arm needs a predictor in the process that routes. */
  public boolean needsPredictor() {
    return this == PREDICTIVE || this == PREDICTIVE_WARM;
  }

  /** Returns whether Harbinger's broker can run this policy ({@link #newIngress} builds it). */
  public boolean runsOnBroker() {
    return switch (this) {
      case FIFO, STATIC_TUNED, PREDICTIVE, ORACLE -> true;
      case STATIC_HISTORY, STATIC_HINDSIGHT, STATIC_RANDOM, PREDICTIVE_WARM, SIDECAR -> false;
    };
  }

  /**
   * Returns the job-type map of a static policy of the production flow.
   *
   * @return {@link #TUNED_MAP}
   * @throws IllegalStateException for any other policy
   */
  public Map<String, Integer> staticMap() {
    if (this != STATIC_TUNED) {
      throw new IllegalStateException("policy " + label + " has no fixed job-type map");
    }
    return TUNED_MAP;
  }

  /**
   * Creates the ingress policy of this arm.
   *
   * @param levels the number of levels of the scheduler, in [2, 10]
   * @param predictor the predictor for {@link #PREDICTIVE}; ignored (may be null) for the others
   * @return the policy
   * @throws IllegalArgumentException if a predictor is needed and missing, or its levels differ, or
   *     the policy does not run on the broker
   */
  public IngressPolicy newIngress(int levels, Predictor predictor) {
    return switch (this) {
      case STATIC_HISTORY, STATIC_HINDSIGHT, STATIC_RANDOM, PREDICTIVE_WARM, SIDECAR ->
          throw new IllegalArgumentException("policy " + label + " does not run on the broker");
      case FIFO -> IngressPolicy.fixed(label, 0);
      case STATIC_TUNED -> IngressPolicy.staticMap(label, levels, TUNED_MAP);
      case PREDICTIVE -> IngressPolicy.predictive(label, requirePredictor(levels, predictor));
      case ORACLE -> IngressPolicy.oracle(label, levels);
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
   * @param label the {@link #label} of a policy
   * @return the policy
   * @throws IllegalArgumentException for any other name, listing the known ones
   */
  public static Policy fromLabel(String label) {
    StringJoiner known = new StringJoiner(", ");
    for (Policy p : values()) {
      if (p.label.equals(label)) {
        return p;
      }
      known.add(p.label);
    }
    throw new IllegalArgumentException("policy must be one of " + known + ": " + label);
  }
}
