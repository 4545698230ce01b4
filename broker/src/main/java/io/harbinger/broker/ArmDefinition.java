package io.harbinger.broker;

import io.harbinger.predictor.PredictorConfig;
import io.harbinger.scheduler.AgingMode;
import io.harbinger.scheduler.Selection;
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
 */
public record ArmDefinition(
    String name, RunsOn runsOn, Policy policy, Selection selection, AgingMode aging, int levels) {

  /** Checks the fields. */
  public ArmDefinition {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(runsOn, "runsOn");
    Objects.requireNonNull(policy, "policy");
    Objects.requireNonNull(selection, "selection");
    Objects.requireNonNull(aging, "aging");
    PredictorConfig.checkLevels(levels);
    if (!runsOn.supports(policy)) {
      throw new IllegalArgumentException(
          "arm " + name + ": policy " + policy.label() + " does not run on " + runsOn);
    }
  }
}
