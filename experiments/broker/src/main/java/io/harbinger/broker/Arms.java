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
 * <p>Adding an arm is one line in the static block below, e.g. {@code rabbit("rabbitmq-shadow",
 * Policy.SHADOW)} for a RabbitMQ arm whose producer takes the level from a predictor in shadow mode
 * (the RabbitMQ arm then has to know that policy).
 *
 * <p>Immutable and thread-safe.
 */
public final class Arms {

  private static final Map<String, ArmDefinition> ARMS = new LinkedHashMap<>();

  static {
    rabbit("rabbitmq-fifo", Policy.FIFO);
    quorumPriorities("rabbitmq-fifo-quorum", Policy.FIFO);
    rabbit("rabbitmq-static-tuned", Policy.STATIC_TUNED);
    rabbit("rabbitmq-static-misconfigured", Policy.STATIC_MISCONFIGURED);
    rabbit("rabbitmq-predictive", Policy.PREDICTIVE);
    rabbit("rabbitmq-predictive-5", Policy.PREDICTIVE, 5);
    rabbit("rabbitmq-shadow", Policy.SHADOW);
    rabbit("rabbitmq-sidecar", Policy.SIDECAR);
    rabbit("rabbitmq-oracle", Policy.ORACLE);
    rabbit("rabbitmq-oracle-5", Policy.ORACLE, 5);
    rabbit("rabbitmq-naive", Policy.NAIVE);
    rabbit("rabbitmq-predictive-paper", Policy.PREDICTIVE_PAPER);
    rabbit("rabbitmq-predictive-today", Policy.PREDICTIVE_TODAY);
    rabbit("rabbitmq-predictive-sized", Policy.PREDICTIVE_SIZED);
    rabbit("rabbitmq-predictive-shift", Policy.PREDICTIVE_SHIFT);
    rabbit("rabbitmq-predictive-budget", Policy.PREDICTIVE_BUDGET);
    rabbit("rabbitmq-predictive-last", Policy.PREDICTIVE_LAST);
    rabbit("rabbitmq-predictive-equal", Policy.PREDICTIVE_EQUAL);
    rabbit("rabbitmq-predictive-few", Policy.PREDICTIVE_FEW);
    quorumPriorities("rabbitmq-predictive-quorum", Policy.PREDICTIVE);
    lanes("rabbitmq-lanes", QueueLayout.CLASSIC_LANES, Policy.PREDICTIVE, Selection.WEIGHTED, 3);
    lanes(
        "rabbitmq-lanes-quorum",
        QueueLayout.QUORUM_LANES,
        Policy.PREDICTIVE,
        Selection.WEIGHTED,
        3);
    lanes(
        "rabbitmq-lanes-strict", QueueLayout.CLASSIC_LANES, Policy.PREDICTIVE, Selection.STRICT, 3);
    lanes("rabbitmq-lanes-5", QueueLayout.CLASSIC_LANES, Policy.PREDICTIVE, Selection.WEIGHTED, 5);
    lanes("rabbitmq-lanes-oracle", QueueLayout.CLASSIC_LANES, Policy.ORACLE, Selection.WEIGHTED, 3);
    define(
        new ArmDefinition(
            "rabbitmq-lanes-quorum-prefetch1",
            RunsOn.RABBITMQ,
            Policy.PREDICTIVE,
            Selection.WEIGHTED,
            AgingMode.PAUSING,
            3,
            QueueLayout.QUORUM_LANES,
            List.of(),
            1));
    pullLanes(
        "rabbitmq-lanes-quorum-pull",
        QueueLayout.QUORUM_LANES,
        Policy.PREDICTIVE,
        Selection.WEIGHTED,
        3);
    pullLanes(
        "rabbitmq-lanes-pull", QueueLayout.CLASSIC_LANES, Policy.PREDICTIVE, Selection.WEIGHTED, 3);
    pullLanes(
        "rabbitmq-lanes-strict-pull",
        QueueLayout.CLASSIC_LANES,
        Policy.PREDICTIVE,
        Selection.STRICT,
        3);
    pullLanes(
        "rabbitmq-lanes-5-pull",
        QueueLayout.CLASSIC_LANES,
        Policy.PREDICTIVE,
        Selection.WEIGHTED,
        5);
    pullLanes(
        "rabbitmq-lanes-oracle-pull",
        QueueLayout.CLASSIC_LANES,
        Policy.ORACLE,
        Selection.WEIGHTED,
        3);
    define("redis-fifo", RunsOn.REDIS, Policy.FIFO, Selection.STRICT, AgingMode.NONE, 3);
    broker("broker-fifo", Policy.FIFO, Selection.STRICT, AgingMode.PLAIN);
    broker("broker-predictive", Policy.PREDICTIVE, Selection.STRICT, AgingMode.PLAIN);
    broker("broker-weighted", Policy.PREDICTIVE, Selection.WEIGHTED, AgingMode.PAUSING);
    broker("broker-no-aging", Policy.PREDICTIVE, Selection.STRICT, AgingMode.NONE);
    broker("broker-fair", Policy.FAIR, Selection.STRICT, AgingMode.PLAIN);
    broker("broker-oracle", Policy.ORACLE, Selection.STRICT, AgingMode.PLAIN);
  }

  private Arms() {}

  private static void rabbit(String name, Policy policy) {
    rabbit(name, policy, 3);
  }

  private static void rabbit(String name, Policy policy, int levels) {
    define(name, RunsOn.RABBITMQ, policy, Selection.STRICT, AgingMode.NONE, levels);
  }

  /**
   * A RabbitMQ arm on one quorum queue: with priorities (two levels on RabbitMQ 4.0 to 4.2), or in
   * publish order for {@link Policy#FIFO}.
   */
  private static void quorumPriorities(String name, Policy policy) {
    ArmDefinition arm =
        new ArmDefinition(
            name,
            RunsOn.RABBITMQ,
            policy,
            Selection.STRICT,
            AgingMode.NONE,
            3,
            QueueLayout.QUORUM_PRIORITY_QUEUE,
            List.of());
    define(arm);
  }

  /** A lanes arm: weighted selection with pausing aging, or strict without aging. */
  private static void lanes(
      String name, QueueLayout layout, Policy policy, Selection selection, int levels) {
    AgingMode aging = selection == Selection.WEIGHTED ? AgingMode.PAUSING : AgingMode.NONE;
    ArmDefinition arm =
        new ArmDefinition(
            name, RunsOn.RABBITMQ, policy, selection, aging, levels, layout, List.of());
    define(arm);
  }

  /** A lanes arm whose consumers take a lane's message only when free. */
  private static void pullLanes(
      String name, QueueLayout layout, Policy policy, Selection selection, int levels) {
    AgingMode aging = selection == Selection.WEIGHTED ? AgingMode.PAUSING : AgingMode.NONE;
    define(
        new ArmDefinition(
            name, RunsOn.RABBITMQ, policy, selection, aging, levels, layout, List.of(), 0, true));
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
