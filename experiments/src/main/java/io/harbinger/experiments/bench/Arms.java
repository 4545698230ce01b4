package io.harbinger.experiments.bench;

import io.harbinger.broker.sched.AgingMode;
import io.harbinger.broker.sched.Policy;
import io.harbinger.broker.sched.Selection;
import io.harbinger.experiments.workload.StaticMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The registry of comparison arms by name (issue 6, item 2).
 *
 * <p>Every arm runs the same arrivals, handlers, four workers with prefetch 1, and seed; only the
 * broker and the way it orders messages differ.
 */
final class Arms {

  private static final Map<String, Supplier<Arm>> ARMS = new LinkedHashMap<>();

  static {
    rabbit("rabbitmq-fifo", RabbitArm.Kind.FIFO, 3, null);
    rabbit("rabbitmq-static-tuned", RabbitArm.Kind.STATIC, 3, StaticMap.HAND_TUNED);
    rabbit("rabbitmq-static-misconfigured", RabbitArm.Kind.STATIC, 3, StaticMap.MISCONFIGURED);
    rabbit("rabbitmq-predictive", RabbitArm.Kind.PREDICTIVE, 3, null);
    rabbit("rabbitmq-predictive-5", RabbitArm.Kind.PREDICTIVE, 5, null);
    rabbit("rabbitmq-shadow", RabbitArm.Kind.SHADOW, 3, null);
    rabbit("rabbitmq-sidecar", RabbitArm.Kind.SIDECAR, 3, null);
    rabbit("rabbitmq-oracle", RabbitArm.Kind.ORACLE, 3, null);
    rabbit("rabbitmq-oracle-5", RabbitArm.Kind.ORACLE, 5, null);
    rabbit("rabbitmq-naive", RabbitArm.Kind.NAIVE, 3, null);
    rabbit("rabbitmq-predictive-paper", RabbitArm.Kind.PAPER, 3, null);
    ARMS.put("redis-fifo", RedisFifoArm::new);
    broker("broker-fifo", Policy.FIFO, Selection.STRICT, AgingMode.PLAIN);
    broker("broker-predictive", Policy.PREDICTIVE, Selection.STRICT, AgingMode.PLAIN);
    broker("broker-weighted", Policy.PREDICTIVE, Selection.WEIGHTED, AgingMode.PAUSING);
    broker("broker-no-aging", Policy.PREDICTIVE, Selection.STRICT, AgingMode.NONE);
    broker("broker-fair", Policy.FAIR, Selection.STRICT, AgingMode.PLAIN);
    broker("broker-oracle", Policy.ORACLE, Selection.STRICT, AgingMode.PLAIN);
  }

  private Arms() {}

  private static void rabbit(String name, RabbitArm.Kind kind, int levels, StaticMap map) {
    ARMS.put(name, () -> new RabbitArm(name, kind, levels, map));
  }

  private static void broker(String name, Policy policy, Selection selection, AgingMode aging) {
    ARMS.put(name, () -> new BrokerArm(name, policy, selection, aging));
  }

  /**
   * Returns every arm name, in a stable order (RabbitMQ, Redis, broker).
   *
   * @return the names
   */
  static List<String> names() {
    return List.copyOf(ARMS.keySet());
  }

  /**
   * Creates the arm of a name.
   *
   * @param name an arm name from {@link #names()}
   * @return a new arm
   * @throws IllegalArgumentException for any other name, listing the valid ones
   */
  static Arm byName(String name) {
    Supplier<Arm> arm = ARMS.get(name);
    if (arm == null) {
      throw new IllegalArgumentException(
          "arm must be one of " + String.join(", ", ARMS.keySet()) + ": " + name);
    }
    return arm.get();
  }
}
