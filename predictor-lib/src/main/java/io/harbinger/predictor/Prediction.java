package io.harbinger.predictor;

/**
 * The verdict for one message: the level to publish it at, and why.
 *
 * @param level the level to route to now, in [0, levels): {@code predictedLevel} in {@link
 *     Mode#PREDICTIVE}, the default level otherwise
 * @param predictedLevel the level the predictor chose, whatever the mode: the estimate's level when
 *     {@code outcome} is {@link Outcome#PREDICTED}; for an untrusted key, the default level, or a
 *     lower-priority level when its evidence places it there (see {@link HistogramPredictor}); in
 *     {@link Mode#SHADOW} this is what would have happened
 * @param outcome {@link Outcome#PREDICTED} or the reason for the fallback
 * @param estimateNanos the duration the level came from (a trusted key's estimate, an untrusted
 *     key's mean or lowest duration), or NaN when none was used
 * @param mode the mode the verdict was made in
 */
public record Prediction(
    int level, int predictedLevel, Outcome outcome, double estimateNanos, Mode mode) {

  /** Checks the fields. */
  public Prediction {
    if (level < 0 || predictedLevel < 0) {
      throw new IllegalArgumentException(
          "levels must not be negative: " + level + ", " + predictedLevel);
    }
    if (outcome == null || mode == null) {
      throw new NullPointerException("outcome and mode are required");
    }
  }

  /**
   * Returns a fallback verdict at a given level.
   *
   * @param defaultLevel the default level
   * @param outcome the reason
   * @param mode the mode
   * @return a verdict with no estimate
   */
  public static Prediction fallback(int defaultLevel, Outcome outcome, Mode mode) {
    if (defaultLevel >= 0 && defaultLevel < PredictorConfig.MAX_LEVELS) {
      return FALLBACKS[defaultLevel][outcome.ordinal()][mode.ordinal()];
    }
    return new Prediction(defaultLevel, defaultLevel, outcome, Double.NaN, mode);
  }

  /** Every fallback verdict, made once: a routing lookup that falls back allocates nothing. */
  private static final Prediction[][][] FALLBACKS =
      new Prediction[PredictorConfig.MAX_LEVELS][Outcome.values().length][Mode.values().length];

  static {
    for (int level = 0; level < PredictorConfig.MAX_LEVELS; level++) {
      for (Outcome outcome : Outcome.values()) {
        for (Mode mode : Mode.values()) {
          FALLBACKS[level][outcome.ordinal()][mode.ordinal()] =
              new Prediction(level, level, outcome, Double.NaN, mode);
        }
      }
    }
  }

  /**
   * Returns whether the predictor trusted the key's estimate.
   *
   * @return true when {@code outcome} is {@link Outcome#PREDICTED}
   */
  public boolean isPredicted() {
    return outcome == Outcome.PREDICTED;
  }
}
