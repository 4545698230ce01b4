package io.harbinger.scheduler;

import java.util.List;

/** How a pull chooses among non-empty levels. */
public enum Selection {
  /** The lowest-numbered non-empty level ({@link StrictLevelSelector}). */
  STRICT("strict"),
  /** Worker-time shares by virtual clocks ({@link WeightedLevelSelector}). */
  WEIGHTED("weighted");

  private final String label;

  Selection(String label) {
    this.label = label;
  }

  /**
   * Returns a fresh selector of this kind (weighted selectors hold state: one per scheduler).
   *
   * @param weights one weight per level in [1, 1000]; ignored for {@link #STRICT}
   * @return the selector
   */
  public LevelSelector newSelector(List<Integer> weights) {
    return switch (this) {
      case STRICT -> StrictLevelSelector.INSTANCE;
      case WEIGHTED -> new WeightedLevelSelector(weights);
    };
  }

  /** Returns the command-line name. */
  public String label() {
    return label;
  }

  /**
   * Returns the selection with a command-line name.
   *
   * @param label "strict" or "weighted"
   * @return the selection
   * @throws IllegalArgumentException for any other name
   */
  public static Selection fromLabel(String label) {
    for (Selection s : values()) {
      if (s.label.equals(label)) {
        return s;
      }
    }
    throw new IllegalArgumentException("selection must be strict or weighted: " + label);
  }
}
