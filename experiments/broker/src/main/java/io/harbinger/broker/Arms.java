package io.harbinger.broker;

import io.harbinger.scheduler.AgingMode;
import io.harbinger.scheduler.Selection;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The registry of comparison arms: every arm of {@code ./harbinger bench} and of the broker's
 * command line ({@code --arm}), defined once, one line each. The simulator's arms are named by
 * {@code io.harbinger.check.sim.SimulatedArm}.
 *
 * <p>The registry holds the arms the evidence cites: RabbitMQ FIFO, hand-tuned static priorities,
 * the predictor on a classic priority queue (embedded, or through a sidecar), on a quorum queue and
 * on lanes, the oracle, Redis FIFO, and Harbinger's broker with strict and weighted selection.
 * Adding an arm is one line in the static block below, e.g. {@code rabbit("rabbitmq-NAME",
 * Policy.X)} for a RabbitMQ arm whose producer takes the level from policy X (the RabbitMQ arm then
 * has to know that policy).
 *
 * <p>Immutable and thread-safe.
 */
public final class Arms {

  private static final Map<String, ArmDefinition> ARMS = new LinkedHashMap<>();

  static {
    rabbit("rabbitmq-fifo", Policy.FIFO);
    rabbit("rabbitmq-static-tuned", Policy.STATIC_TUNED);
    rabbit("rabbitmq-predictive", Policy.PREDICTIVE);
    rabbit("rabbitmq-sidecar", Policy.SIDECAR);
    rabbit("rabbitmq-oracle", Policy.ORACLE);
    lanes("rabbitmq-lanes", QueueLayout.CLASSIC_LANES, Policy.PREDICTIVE);
    lanes("rabbitmq-lanes-quorum", QueueLayout.QUORUM_LANES, Policy.PREDICTIVE);
    pullLanes("rabbitmq-lanes-pull", QueueLayout.CLASSIC_LANES, Policy.PREDICTIVE);
    define("redis-fifo", RunsOn.REDIS, Policy.FIFO, Selection.STRICT, AgingMode.NONE, 3);
    broker("broker-fifo", Policy.FIFO, Selection.STRICT, AgingMode.PLAIN);
    broker("broker-predictive", Policy.PREDICTIVE, Selection.STRICT, AgingMode.PLAIN);
    broker("broker-weighted", Policy.PREDICTIVE, Selection.WEIGHTED, AgingMode.PAUSING);
  }

  private Arms() {}

  private static void rabbit(String name, Policy policy) {
    define(name, RunsOn.RABBITMQ, policy, Selection.STRICT, AgingMode.NONE, 3);
  }

  /** A lanes arm of three levels: weighted selection with pausing aging. */
  private static void lanes(String name, QueueLayout layout, Policy policy) {
    define(
        new ArmDefinition(
            name,
            RunsOn.RABBITMQ,
            policy,
            Selection.WEIGHTED,
            AgingMode.PAUSING,
            3,
            layout,
            List.of()));
  }

  /** A lanes arm as {@link #lanes} whose consumers take a lane's message only when free. */
  private static void pullLanes(String name, QueueLayout layout, Policy policy) {
    define(
        new ArmDefinition(
            name,
            RunsOn.RABBITMQ,
            policy,
            Selection.WEIGHTED,
            AgingMode.PAUSING,
            3,
            layout,
            List.of(),
            0,
            true));
  }

  private static void broker(String name, Policy policy, Selection selection, AgingMode aging) {
    define(name, RunsOn.BROKER, policy, selection, aging, 3);
  }

  private static void define(
      String name, RunsOn runsOn, Policy policy, Selection selection, AgingMode aging, int levels) {
    define(new ArmDefinition(name, runsOn, policy, selection, aging, levels));
  }

  private static void define(ArmDefinition arm) {
    if (ARMS.putIfAbsent(arm.name(), arm) != null) {
      throw new IllegalStateException("arm defined twice: " + arm.name());
    }
  }

  /**
   * Returns the arms that run on some of the runtimes, in definition order.
   *
   * @param runsOn the runtimes
   * @return the arms
   */
  public static List<ArmDefinition> on(Set<RunsOn> runsOn) {
    List<ArmDefinition> out = new ArrayList<>();
    for (ArmDefinition a : ARMS.values()) {
      if (runsOn.contains(a.runsOn())) {
        out.add(a);
      }
    }
    return List.copyOf(out);
  }

  /**
   * Returns the arm of a name that runs on one of the runtimes.
   *
   * @param name the arm's name
   * @param runsOn the runtimes the caller can run
   * @return the arm
   * @throws IllegalArgumentException for any other name, listing the names the caller can run
   */
  public static ArmDefinition byName(String name, Set<RunsOn> runsOn) {
    ArmDefinition arm = ARMS.get(name);
    if (arm == null || !runsOn.contains(arm.runsOn())) {
      List<String> names = on(runsOn).stream().map(ArmDefinition::name).toList();
      throw new IllegalArgumentException(
          "arm must be one of " + String.join(", ", names) + ": " + name);
    }
    return arm;
  }
}
