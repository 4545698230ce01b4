package io.harbinger.experiments.workload;

/**
 * The five phases of the production flow's arrival timeline, as fractions of the arrival window.
 *
 * <p>With the default 300 s window: steady 0-60 s, ramp 60-90 s, flash sale 90-150 s, recovery
 * 150-210 s, shifted regime 210-300 s (the original implementation's timeline; seed paper section 4
 * describes the phases).
 */
public enum Phase {
  /** About 60% utilisation. */
  STEADY("steady", 0.0),
  /** Rates rise towards the flash sale. */
  RAMP("ramp", 0.2),
  /** About 125% utilisation: a backlog forms. */
  FLASH_SALE("flash", 0.3),
  /** Rates fall back while the backlog drains. */
  RECOVERY("recovery", 0.5),
  /** Steady rates with a cost shift: more hi-res images, more slow webhooks. */
  SHIFTED("shifted", 0.7);

  private final String wireName;
  private final double startFraction;

  Phase(String wireName, double startFraction) {
    this.wireName = wireName;
    this.startFraction = startFraction;
  }

  /**
   * Returns the name used in records and reports.
   *
   * @return the name, such as {@code flash}
   */
  public String wireName() {
    return wireName;
  }

  /**
   * Returns where the phase starts.
   *
   * @return the start as a fraction of the arrival window, in [0, 1)
   */
  public double startFraction() {
    return startFraction;
  }

  /**
   * Returns where the phase ends.
   *
   * @return the end as a fraction of the arrival window, in (0, 1]
   */
  public double endFraction() {
    return ordinal() + 1 < values().length ? values()[ordinal() + 1].startFraction : 1.0;
  }

  /**
   * Returns the phase at a point of the arrival window.
   *
   * @param fraction elapsed time divided by the window, in [0, 1]
   * @return the phase whose range holds the fraction
   */
  public static Phase at(double fraction) {
    if (!(fraction >= 0 && fraction <= 1)) {
      throw new IllegalArgumentException("fraction must be in [0, 1]: " + fraction);
    }
    Phase[] all = values();
    for (int i = all.length - 1; i > 0; i--) {
      if (fraction >= all[i].startFraction) {
        return all[i];
      }
    }
    return STEADY;
  }

  /**
   * Parses a wire name.
   *
   * @param wireName a name such as {@code flash}
   * @return the phase
   */
  public static Phase fromWireName(String wireName) {
    for (Phase p : values()) {
      if (p.wireName.equals(wireName)) {
        return p;
      }
    }
    throw new IllegalArgumentException("unknown phase: " + wireName);
  }
}
