package io.harbinger.broker;

import io.harbinger.scheduler.AgingMode;
import io.harbinger.scheduler.Selection;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * The registry of comparison arms: every arm of the simulator, of {@code ./harbinger bench} and of
 * the broker's command line ({@code --arm}), defined once, one line each.
 *
 * <p>Adding an arm is one line in the static block below, e.g. {@code rabbit("rabbitmq-shadow",
 * Policy.SHADOW)} for a RabbitMQ arm whose producer takes the level from a predictor in shadow mode
 * (the RabbitMQ arm then has to know that policy). Simulator arms also take the suffixes of
 * reference section 5.3 ({@link #simulated}): {@code +weights} (weights 8:3:1, pausing aging unless
 * told otherwise, as the broker does), {@code +pausing} and {@code +no_aging}; without a suffix a
 * simulated arm uses strict priority and plain aging.
 *
 * <p>Immutable and thread-safe.
 */
public final class Arms {

  /** The simulator's base names and suffixes, for messages. */
  static final String SIMULATED_NAMES =
      "fifo, static_history, static_hindsight, static_random, oracle, predictive_cold, predictive_warm, each with"
          + " optional +weights, +pausing, +following, +no_aging";

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
    simulated("fifo", Policy.FIFO);
    simulated("static_history", Policy.STATIC_HISTORY);
    simulated("static_hindsight", Policy.STATIC_HINDSIGHT);
    simulated("static_random", Policy.STATIC_RANDOM);
    simulated("oracle", Policy.ORACLE);
    simulated("predictive_cold", Policy.PREDICTIVE);
    simulated("predictive_warm", Policy.PREDICTIVE_WARM);
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

  private static void simulated(String name, Policy policy) {
    define(name, RunsOn.SIMULATOR, policy, Selection.STRICT, AgingMode.PLAIN, 3);
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

  /**
   * Returns a simulator arm: a base name with optional suffixes, e.g. {@code oracle+weights}.
   *
   * @param name the name
   * @return the arm, named canonically: the base, then {@code +weights}, then {@code +pausing} or
   *     {@code +no_aging} when they differ from the default, so {@code predictive_warm+weights} is
   *     {@code predictive_warm+weights+pausing}
   * @throws IllegalArgumentException when the base or a suffix is unknown, a suffix repeats, or a
   *     weighted arm asks for plain aging
   */
  public static ArmDefinition simulated(String name) {
    Objects.requireNonNull(name, "name");
    String[] parts = name.trim().split("\\+", -1);
    ArmDefinition base = ARMS.get(parts[0]);
    if (base == null || base.runsOn() != RunsOn.SIMULATOR) {
      throw new IllegalArgumentException("arm must be one of " + SIMULATED_NAMES + ": " + name);
    }
    boolean weights = false;
    AgingMode aging = null;
    for (int i = 1; i < parts.length; i++) {
      switch (parts[i]) {
        case "weights" -> {
          if (weights) {
            throw new IllegalArgumentException("arm suffix +weights given twice: " + name);
          }
          weights = true;
        }
        case "pausing", "following", "no_aging" -> {
          if (aging != null) {
            throw new IllegalArgumentException(
                "arm may have one of +pausing, +following and +no_aging, once: " + name);
          }
          aging =
              switch (parts[i]) {
                case "pausing" -> AgingMode.PAUSING;
                case "following" -> AgingMode.FOLLOWING;
                default -> AgingMode.NONE;
              };
        }
        default ->
            throw new IllegalArgumentException(
                "arm suffix must be +weights, +pausing, +following or +no_aging: " + name);
      }
    }
    if (aging == null) {
      aging = weights ? AgingMode.PAUSING : base.aging();
    }
    Selection selection = weights ? Selection.WEIGHTED : base.selection();
    StringBuilder canonical = new StringBuilder(base.name());
    if (weights) {
      canonical.append("+weights");
    }
    switch (aging) {
      case NONE -> canonical.append("+no_aging");
      case PAUSING -> canonical.append("+pausing");
      case FOLLOWING -> canonical.append("+following");
      case PLAIN -> {}
    }
    return new ArmDefinition(
        canonical.toString(), RunsOn.SIMULATOR, base.policy(), selection, aging, base.levels());
  }
}
