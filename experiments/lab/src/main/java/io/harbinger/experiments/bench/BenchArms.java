package io.harbinger.experiments.bench;

import io.harbinger.broker.ArmDefinition;
import io.harbinger.broker.Arms;
import io.harbinger.broker.RunsOn;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * The arms {@code ./harbinger bench} runs: those of the registry ({@link Arms}) that run on
 * RabbitMQ, Redis or Harbinger's broker, each built from its definition.
 *
 * <p>Every arm runs the same arrivals, handlers, four workers with prefetch 1, and seed; only the
 * broker and the way it orders messages differ.
 */
final class BenchArms {

  /** The runtimes the benchmark drives. */
  static final Set<RunsOn> RUNTIMES = EnumSet.of(RunsOn.RABBITMQ, RunsOn.REDIS, RunsOn.BROKER);

  private BenchArms() {}

  /**
   * Returns every arm name, in the registry's order (RabbitMQ, Redis, broker).
   *
   * @return the names
   */
  static List<String> names() {
    return Arms.on(RUNTIMES).stream().map(ArmDefinition::name).toList();
  }

  /**
   * Creates the arm of a name.
   *
   * @param name an arm name from {@link #names()}
   * @return a new arm
   * @throws IllegalArgumentException for any other name, listing the valid ones
   */
  static BenchArm byName(String name) {
    ArmDefinition arm = Arms.byName(name, RUNTIMES);
    return switch (arm.runsOn()) {
      case RABBITMQ -> RabbitArm.of(arm);
      case REDIS -> new RedisFifoArm(arm.name());
      case BROKER -> new BrokerArm(arm);
      case SIMULATOR -> throw new IllegalStateException("not a bench arm: " + name);
    };
  }
}
