package io.harbinger.scheduler;

import java.time.Duration;

/** Which {@link Aging} a level scheduler runs. */
public enum AgingMode {
  /** No aging ({@link Aging#NONE}). */
  NONE("none"),
  /** Plain aging ({@link Aging#plain}). */
  PLAIN("plain"),
  /** Pausing aging ({@link Aging#pausing}). */
  PAUSING("pausing"),
  /** Aging whose threshold follows the backlog ({@link Aging#following}). */
  FOLLOWING("following");

  private final String label;

  AgingMode(String label) {
    this.label = label;
  }

  /** Returns the command-line name. */
  public String label() {
    return label;
  }

  /**
   * Returns the aging of this mode.
   *
   * @param threshold the wait that triggers a promotion; positive (ignored for {@link #NONE})
   * @return the aging
   */
  public Aging newAging(Duration threshold) {
    return switch (this) {
      case NONE -> Aging.NONE;
      case PLAIN -> Aging.plain(threshold);
      case PAUSING -> Aging.pausing(threshold);
      case FOLLOWING -> Aging.following(threshold);
    };
  }

  /**
   * Returns the mode with a command-line name.
   *
   * @param label "none", "plain", "pausing" or "following"
   * @return the mode
   * @throws IllegalArgumentException for any other name
   */
  public static AgingMode fromLabel(String label) {
    for (AgingMode m : values()) {
      if (m.label.equals(label)) {
        return m;
      }
    }
    throw new IllegalArgumentException("aging must be none, plain, pausing or following: " + label);
  }
}
