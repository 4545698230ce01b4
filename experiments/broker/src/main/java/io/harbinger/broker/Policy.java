package io.harbinger.broker;

import io.harbinger.predictor.Predictor;
import io.harbinger.predictor.Ticker;
import io.harbinger.scheduler.FairScheduler;
import io.harbinger.scheduler.IngressPolicy;
import io.harbinger.scheduler.Scheduler;
import io.harbinger.scheduler.SchedulerConfig;
import java.util.Map;
import java.util.StringJoiner;

/**
 * Where a comparison arm takes a message's level from at ingress, and for {@link #FAIR} which queue
 * structure serves it (reference sections 2.8, 4.4 and 5.3): the one vocabulary of the arms in
 * {@link Arms}, whatever they run on.
 *
 * <p>The broker builds the ingress of the policies for which {@link #runsOnBroker} is true ({@link
 * #newIngress}); the simulator builds the others from a trace's history, and a RabbitMQ arm's
 * producer sets the priority from its policy.
 */
public enum Policy {
  /** Every message at level 0: one FIFO. */
  FIFO("fifo"),
  /** The operator's informed static map of job types to levels (reference section 4.4). */
  STATIC_TUNED("static-tuned"),
  /** The static map by business importance, which puts long work first (reference section 4.4). */
  STATIC_MISCONFIGURED("static-misconfigured"),
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
  /**
   * As {@link #PREDICTIVE}, with every untrusted key at the default level (seed paper section 3.5):
   * the predictor without {@code demoteUntrusted} and without the shift run (decay alone follows a
   * change, section 3.4), for comparison on RabbitMQ.
   */
  PREDICTIVE_PAPER("predictive-paper"),
  /**
   * As {@link #PREDICTIVE}, with the per-key and global safeguards, producer borrowing and the
   * shift run off: the predictor before them, for comparison on RabbitMQ.
   */
  PREDICTIVE_TODAY("predictive-today"),
  /**
   * As {@link #PREDICTIVE}, with size bins on (seed paper section 3.8): the producer sends each
   * job's size hint in {@code x-size-hint}, and a key is learned per size bin.
   */
  PREDICTIVE_SIZED("predictive-sized"),
  /**
   * As {@link #PREDICTIVE}, with the shift run set to 8 ({@code shiftRun}): a proven key whose last
   * 8 observations all lie over an octave from its estimate, on one side, starts again from them.
   * The default is the same since the shift run became one; the arm keeps its name for the runs
   * that measured it against the predictor without it.
   */
  PREDICTIVE_SHIFT("predictive-shift"),
  /**
   * As {@link #PREDICTIVE}, with a tail budget of 1.25 ({@code tailBudget}): the boundary above the
   * last level is raised while Cobham's estimate of that level's mean wait stays within 1.25 times
   * FIFO's. It was the default from the budget's adoption until untrusted keys went to the last
   * level ({@code untrustedLast}), which it keeps off: it is the default before that, and keeps its
   * name for the runs that measured it against the predictor without the budget.
   */
  PREDICTIVE_BUDGET("predictive-budget"),
  /**
   * As {@link #PREDICTIVE}, with every boundary at the equal quantiles of the pooled observations
   * ({@code tailBudget} 0, seed paper equation 2): the default before the tail budget became one.
   */
  PREDICTIVE_EQUAL("predictive-equal"),
  /**
   * As {@link #PREDICTIVE}, with seed paper Table 1's idle half-life (10 min) and staleness (30
   * min): the default before a key's history stopped fading by the clock.
   */
  PREDICTIVE_LAST("predictive-last"),
  /**
   * As {@link #PREDICTIVE}, with the opt-in few-observation settings ({@code
   * PredictorConfig.Builder.fewObservations()}: a key predicted from its first observation, no
   * spread gate, a tail budget of 1.1), for measuring what they cost a workload whose keys recur
   * within seconds.
   */
  PREDICTIVE_FEW("predictive-few"),
  /** As {@link #PREDICTIVE}, the predictor having first observed a trace's history. */
  PREDICTIVE_WARM("predictive-warm"),
  /** The predictor predicts and learns, but every message takes the default level. */
  SHADOW("shadow"),
  /** The producer follows a sidecar's route table, learned from the consumers' reports. */
  SIDECAR("sidecar"),
  /** A queue per job type in equal shares of worker time, no prediction ({@link FairScheduler}). */
  FAIR("fair"),
  /** The true cost tier, read from the message (for reference only). */
  ORACLE("oracle"),
  /**
   * Each job type's median of its last 101 durations, no trust gates, placed at the quantiles of
   * the run's planned costs: the naive learner a RabbitMQ arm compares the predictor with.
   */
  NAIVE("naive");

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

  /** Returns whether the arm needs a predictor in the process that routes. */
  public boolean needsPredictor() {
    return this == PREDICTIVE || this == PREDICTIVE_WARM || this == SHADOW;
  }

  /** Returns whether Harbinger's broker can run this policy ({@link #newIngress} builds it). */
  public boolean runsOnBroker() {
    return switch (this) {
      case FIFO, STATIC_TUNED, STATIC_MISCONFIGURED, PREDICTIVE, SHADOW, FAIR, ORACLE -> true;
      case STATIC_HISTORY,
          STATIC_HINDSIGHT,
          STATIC_RANDOM,
          PREDICTIVE_WARM,
          PREDICTIVE_PAPER,
          PREDICTIVE_TODAY,
          PREDICTIVE_SIZED,
          PREDICTIVE_SHIFT,
          PREDICTIVE_BUDGET,
          PREDICTIVE_EQUAL,
          PREDICTIVE_LAST,
          PREDICTIVE_FEW,
          SIDECAR,
          NAIVE ->
          false;
    };
  }

  /**
   * Returns the job-type map of a static policy of the production flow.
   *
   * @return {@link #TUNED_MAP} or {@link #MISCONFIGURED_MAP}
   * @throws IllegalStateException for any other policy
   */
  public Map<String, Integer> staticMap() {
    return switch (this) {
      case STATIC_TUNED -> TUNED_MAP;
      case STATIC_MISCONFIGURED -> MISCONFIGURED_MAP;
      default -> throw new IllegalStateException("policy " + label + " has no fixed job-type map");
    };
  }

  /**
   * Creates the ingress policy of this arm.
   *
   * @param levels the number of levels of the scheduler, in [2, 10]
   * @param predictor the predictor for {@link #PREDICTIVE} and {@link #SHADOW}; ignored (may be
   *     null) for the others
   * @return the policy
   * @throws IllegalArgumentException if a predictor is needed and missing, or its levels differ, or
   *     the policy does not run on the broker
   */
  public IngressPolicy newIngress(int levels, Predictor predictor) {
    return switch (this) {
      case STATIC_HISTORY,
          STATIC_HINDSIGHT,
          STATIC_RANDOM,
          PREDICTIVE_WARM,
          PREDICTIVE_PAPER,
          PREDICTIVE_TODAY,
          PREDICTIVE_SIZED,
          PREDICTIVE_SHIFT,
          PREDICTIVE_BUDGET,
          PREDICTIVE_EQUAL,
          PREDICTIVE_LAST,
          PREDICTIVE_FEW,
          SIDECAR,
          NAIVE ->
          throw new IllegalArgumentException("policy " + label + " does not run on the broker");
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
