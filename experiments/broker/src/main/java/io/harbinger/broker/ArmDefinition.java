package io.harbinger.broker;

import io.harbinger.predictor.PredictorConfig;
import io.harbinger.scheduler.AgingMode;
import io.harbinger.scheduler.Selection;
import java.util.List;
import java.util.Objects;

/**
 * One comparison arm: its name, where it runs, where it takes a message's level from, and how the
 * levels are served. Defined once in {@link Arms}.
 *
 * <p>RabbitMQ classic priority queues are strict and do not age, so RabbitMQ and Redis arms are
 * {@link Selection#STRICT} with {@link AgingMode#NONE}.
 *
 * @param name the name used on the command line and in results, e.g. {@code broker-weighted}
 * @param runsOn where the arm runs
 * @param policy where the level comes from; supported by {@code runsOn}
 * @param selection strict priority or weighted shares (8:3:1 for three levels)
 * @param aging none, plain, pausing or following
 * @param levels the number of levels, in [2, 10]
 * @param layout the queue layout of a RabbitMQ arm: a priority queue, or lanes (then the selection
 *     and aging are the lanes consumer's); {@link QueueLayout#PRIORITY_QUEUE} for every other arm
 * @param weights one weight per level for weighted selection, each in [1, 1000]; empty for the
 *     default weights of the number of levels
 * @param lanePrefetch each lane's prefetch for a lanes arm (the lanes consumer checks its range),
 *     or 0 for the lanes consumer's default (the application's prefetch plus one); 0 for every
 *     other arm
 * @param pullLanes for a lanes arm, whether its consumers take a lane's message only when free (the
 *     adapter's pulling lanes consumer) instead of holding each lane's next delivery; false for
 *     every other arm
 */
public record ArmDefinition(
    String name,
    RunsOn runsOn,
    Policy policy,
    Selection selection,
    AgingMode aging,
    int levels,
    QueueLayout layout,
    List<Integer> weights,
    int lanePrefetch,
    boolean pullLanes) {

  /** Checks the fields. */
  public ArmDefinition {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(runsOn, "runsOn");
    Objects.requireNonNull(policy, "policy");
    Objects.requireNonNull(selection, "selection");
    Objects.requireNonNull(aging, "aging");
    PredictorConfig.checkLevels(levels);
    Objects.requireNonNull(layout, "layout");
    weights = List.copyOf(Objects.requireNonNull(weights, "weights"));
    if (layout != QueueLayout.PRIORITY_QUEUE && runsOn != RunsOn.RABBITMQ) {
      throw new IllegalArgumentException(
          "arm " + name + ": only RabbitMQ arms have lanes or quorum queues");
    }
    if (!weights.isEmpty() && weights.size() != levels) {
      throw new IllegalArgumentException(
          "arm " + name + ": weights must have one entry per level (" + levels + "): " + weights);
    }
    if (lanePrefetch < 0) {
      throw new IllegalArgumentException(
          "arm " + name + ": lanePrefetch must not be negative: " + lanePrefetch);
    }
    if (lanePrefetch != 0 && !layout.isLanes()) {
      throw new IllegalArgumentException("arm " + name + ": only lanes arms have a lane prefetch");
    }
    if (pullLanes && !layout.isLanes()) {
      throw new IllegalArgumentException("arm " + name + ": only lanes arms pull from lanes");
    }
    if (!runsOn.supports(policy)) {
      throw new IllegalArgumentException(
          "arm " + name + ": policy " + policy.label() + " does not run on " + runsOn);
    }
  }

  /**
   * Creates an arm whose lanes, if any, are consumed by holding each lane's next delivery.
   *
   * @param name as above
   * @param runsOn as above
   * @param policy as above
   * @param selection as above
   * @param aging as above
   * @param levels as above
   * @param layout as above
   * @param weights as above
   * @param lanePrefetch as above
   */
  public ArmDefinition(
      String name,
      RunsOn runsOn,
      Policy policy,
      Selection selection,
      AgingMode aging,
      int levels,
      QueueLayout layout,
      List<Integer> weights,
      int lanePrefetch) {
    this(name, runsOn, policy, selection, aging, levels, layout, weights, lanePrefetch, false);
  }

  /**
   * Creates an arm with the lanes consumer's default lane prefetch.
   *
   * @param name as above
   * @param runsOn as above
   * @param policy as above
   * @param selection as above
   * @param aging as above
   * @param levels as above
   * @param layout as above
   * @param weights as above
   */
  public ArmDefinition(
      String name,
      RunsOn runsOn,
      Policy policy,
      Selection selection,
      AgingMode aging,
      int levels,
      QueueLayout layout,
      List<Integer> weights) {
    this(name, runsOn, policy, selection, aging, levels, layout, weights, 0);
  }

  /**
   * Creates an arm on a priority queue (or none), with the default weights.
   *
   * @param name as above
   * @param runsOn as above
   * @param policy as above
   * @param selection as above
   * @param aging as above
   * @param levels as above
   */
  public ArmDefinition(
      String name, RunsOn runsOn, Policy policy, Selection selection, AgingMode aging, int levels) {
    this(name, runsOn, policy, selection, aging, levels, QueueLayout.PRIORITY_QUEUE, List.of());
  }
}
