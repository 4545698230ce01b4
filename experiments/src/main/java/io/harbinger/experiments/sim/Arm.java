package io.harbinger.experiments.sim;

import io.harbinger.scheduler.AgingMode;
import io.harbinger.scheduler.Selection;
import java.util.Objects;

/**
 * One simulated arm: how jobs get their level, how levels are served, and how waiting jobs age.
 *
 * <p>Names follow reference section 5.3: a base name ({@code fifo}, {@code static_history}, {@code
 * static_random}, {@code oracle}, {@code predictive_cold}, {@code predictive_warm}) with optional
 * suffixes {@code +weights} (worker-time weights 8:3:1; pausing aging unless told otherwise, as the
 * broker does), {@code +pausing} and {@code +no_aging}. Without suffixes the arm uses strict
 * priority and plain aging (5 s threshold, 0.5 s passes). Example: {@code
 * predictive_warm+weights+pausing}.
 *
 * @param routing how jobs get their level
 * @param selection strict priority or weighted shares
 * @param aging none, plain or pausing
 */
public record Arm(Routing routing, Selection selection, AgingMode aging) {

  /** The arm names a user may give, for messages. */
  static final String NAMES =
      "fifo, static_history, static_random, oracle, predictive_cold, predictive_warm, each with"
          + " optional +weights, +pausing, +no_aging";

  /** Checks the fields. */
  public Arm {
    Objects.requireNonNull(routing, "routing");
    Objects.requireNonNull(selection, "selection");
    Objects.requireNonNull(aging, "aging");
    if (selection == Selection.WEIGHTED && aging == AgingMode.PLAIN) {
      throw new IllegalArgumentException(
          "weighted arms age with pausing or not at all (+pausing or +no_aging): plain");
    }
  }

  /** How an arm chooses a job's level at arrival. */
  public enum Routing {
    /** Every job at level 0. */
    FIFO("fifo"),
    /** Each key's history median mapped at the history tertiles; unseen keys get level 1. */
    STATIC_HISTORY("static_history"),
    /** A seeded random level per key. */
    STATIC_RANDOM("static_random"),
    /** The job's true duration mapped at the history tertiles. */
    ORACLE("oracle"),
    /** The predictor, starting empty. */
    PREDICTIVE_COLD("predictive_cold"),
    /** The predictor, having observed the history first. */
    PREDICTIVE_WARM("predictive_warm");

    private final String label;

    Routing(String label) {
      this.label = label;
    }

    /** Returns the name used on the command line. */
    public String label() {
      return label;
    }

    /** Returns whether the routing asks a predictor. */
    public boolean predictive() {
      return this == PREDICTIVE_COLD || this == PREDICTIVE_WARM;
    }
  }

  /**
   * Parses an arm name.
   *
   * @param name a base name with optional suffixes, e.g. {@code oracle+weights}
   * @return the arm
   * @throws IllegalArgumentException when the base or a suffix is unknown, or a suffix repeats
   */
  public static Arm parse(String name) {
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
        case "pausing", "no_aging" -> {
          if (aging != null) {
            throw new IllegalArgumentException(
                "arm may have one of +pausing and +no_aging, once: " + name);
          }
          aging = parts[i].equals("pausing") ? AgingMode.PAUSING : AgingMode.NONE;
        }
        default ->
            throw new IllegalArgumentException(
                "arm suffix must be +weights, +pausing or +no_aging: " + name);
      }
    }
    if (aging == null) {
      aging = weights ? AgingMode.PAUSING : AgingMode.PLAIN;
    }
    return new Arm(routing, weights ? Selection.WEIGHTED : Selection.STRICT, aging);
  }

  /**
   * Returns the canonical name: the base, then {@code +weights}, then {@code +pausing} or {@code
   * +no_aging} when they differ from the default.
   *
   * @return the name, which {@link #parse} reads back to this arm
   */
  public String label() {
    StringBuilder s = new StringBuilder(routing.label);
    boolean weighted = selection == Selection.WEIGHTED;
    if (weighted) {
      s.append("+weights");
    }
    switch (aging) {
      case NONE -> s.append("+no_aging");
      case PAUSING -> s.append("+pausing");
      case PLAIN -> {}
    }
    return s.toString();
  }
}
