package io.harbinger.check.sim;

import io.harbinger.scheduler.AgingMode;
import io.harbinger.scheduler.Selection;
import java.util.Arrays;
import java.util.Objects;
import java.util.stream.Collectors;

/**
 * One way the simulator serves a trace: where each job's level comes from ({@link Routing}) and how
 * the levels are served (strict or weighted selection, and aging).
 *
 * <p>Example: {@code SimulatedArm.parse("predictive_warm+weights")} is the predictor warmed on the
 * history, worker-time weights 8:3:1 and pausing aging, named canonically {@code
 * predictive_warm+weights+pausing}; {@code parse("oracle+no_aging")} is strict priority by each
 * job's true tier, without aging. A name is a routing ({@link Routing#label()}) with optional
 * suffixes {@code +weights} and one of {@code +pausing}, {@code +following}, {@code +no_aging};
 * without suffixes the levels are served strictly with plain aging, as in the original
 * implementation's simulator.
 *
 * @param name the canonical name: the routing, then {@code +weights}, then the aging when it is not
 *     plain
 * @param routing where each job's level comes from
 * @param selection strict priority or weighted shares
 * @param aging none, plain, pausing or following
 */
public record SimulatedArm(String name, Routing routing, Selection selection, AgingMode aging) {

  /** Checks the fields. */
  public SimulatedArm {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(routing, "routing");
    Objects.requireNonNull(selection, "selection");
    Objects.requireNonNull(aging, "aging");
  }

  /** Where a simulated job's level comes from. */
  public enum Routing {
    /** Every job at level 0: one FIFO. */
    FIFO("fifo"),
    /**
     * Each key's history median mapped at the history tertiles; unseen keys at the middle level.
     */
    STATIC_HISTORY("static_history"),
    /**
     * Each key's median over the jobs being evaluated, known in hindsight, mapped at the history
     * tertiles: the best that a learner giving all of a key's jobs one level by its median can do,
     * for reference only.
     */
    STATIC_HINDSIGHT("static_hindsight"),
    /** A seeded random level per key. */
    STATIC_RANDOM("static_random"),
    /** Each job's true tier, known in advance. */
    ORACLE("oracle"),
    /** The predictor, starting empty at the first evaluated job. */
    PREDICTIVE_COLD("predictive_cold"),
    /** The predictor, first fed every job of the history, as in the original simulator. */
    PREDICTIVE_WARM("predictive_warm");

    private final String label;

    Routing(String label) {
      this.label = label;
    }

    /**
     * Returns the name of the routing in arm names.
     *
     * @return for example {@code predictive_warm}
     */
    public String label() {
      return label;
    }

    /**
     * Returns whether the routing runs the predictor.
     *
     * @return true for the predictive routings
     */
    public boolean usesPredictor() {
      return this == PREDICTIVE_COLD || this == PREDICTIVE_WARM;
    }
  }

  /** The names {@link #parse} accepts, as its error messages list them. */
  static final String NAMES =
      Arrays.stream(Routing.values()).map(Routing::label).collect(Collectors.joining(", "))
          + ", each with optional +weights, +pausing, +following, +no_aging";

  /**
   * Returns the arm of a name: a routing with optional suffixes.
   *
   * @param name the name, for example {@code predictive_warm+weights}
   * @return the arm, named canonically: {@code predictive_warm+weights} is {@code
   *     predictive_warm+weights+pausing}
   * @throws IllegalArgumentException when the routing or a suffix is unknown, or a suffix repeats
   */
  public static SimulatedArm parse(String name) {
    Objects.requireNonNull(name, "name");
    String[] parts = name.trim().split("\\+", -1);
    Routing routing = null;
    for (Routing r : Routing.values()) {
      if (r.label.equals(parts[0])) {
        routing = r;
      }
    }
    if (routing == null) {
      throw new IllegalArgumentException("arm must be one of " + NAMES + ": " + name);
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
      aging = weights ? AgingMode.PAUSING : AgingMode.PLAIN;
    }
    StringBuilder canonical = new StringBuilder(routing.label);
    if (weights) {
      canonical.append("+weights");
    }
    switch (aging) {
      case NONE -> canonical.append("+no_aging");
      case PAUSING -> canonical.append("+pausing");
      case FOLLOWING -> canonical.append("+following");
      case PLAIN -> {}
    }
    return new SimulatedArm(
        canonical.toString(), routing, weights ? Selection.WEIGHTED : Selection.STRICT, aging);
  }
}
