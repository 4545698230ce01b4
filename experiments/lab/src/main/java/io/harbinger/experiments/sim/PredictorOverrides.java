package io.harbinger.experiments.sim;

import io.harbinger.predictor.PredictorConfig;
import java.time.Duration;

/**
 * Applies {@code NAME=VALUE} overrides to a predictor configuration, the one syntax shared by
 * {@code harbinger levels --arms predictive:NAME=VALUE} and {@code harbinger simulate --predictors
 * PROFILE:NAME=VALUE}. Durations are in seconds and booleans are {@code true} or {@code false}; the
 * ranges are those of {@link PredictorConfig}, checked when the configuration is built.
 */
public final class PredictorOverrides {

  /** The names an override may set, in the order the help text lists them. */
  public static final String NAMES =
      "levels, maxSpreadRatio, minObservations, tierHysteresis, boundaryHysteresis, pooledDecay,"
          + " keyDecay, idleHalfLife and staleAfter in seconds, relativeIdle,"
          + " boundaryMinObservations, boundaryRefreshEvery, estimateQuantile, demoteUntrusted,"
          + " keyGuard, safeguard, borrowFromProducer, borrowFromSize, shiftRun, promoteColdAfter, tailLimit,"
          + " tailBudget, tailSink, untrustedLast, sizeBins, safeguardLoad, safeguardMargin,"
          + " mispredictionEnter, mispredictionExit";

  private PredictorOverrides() {}

  /**
   * Applies one override.
   *
   * @param b the builder to change
   * @param assignment {@code NAME=VALUE}
   * @throws IllegalArgumentException naming the assignment when it is not NAME=VALUE, the name is
   *     unknown or the value does not parse
   */
  public static void apply(PredictorConfig.Builder b, String assignment) {
    int eq = assignment.indexOf('=');
    if (eq < 1) {
      throw new IllegalArgumentException("an override must be NAME=VALUE: " + assignment);
    }
    String name = assignment.substring(0, eq);
    String value = assignment.substring(eq + 1);
    try {
      switch (name) {
        case "levels" -> b.levels(Integer.parseInt(value));
        case "maxSpreadRatio" -> b.maxSpreadRatio(Double.parseDouble(value));
        case "minObservations" -> b.minObservations(Integer.parseInt(value));
        case "tierHysteresis" -> b.tierHysteresis(Double.parseDouble(value));
        case "boundaryHysteresis" -> b.boundaryHysteresis(Double.parseDouble(value));
        case "pooledDecay" -> b.pooledDecay(Double.parseDouble(value));
        case "keyDecay" -> b.keyDecay(Double.parseDouble(value));
        case "idleHalfLife" -> b.idleHalfLife(seconds(name, value));
        case "staleAfter" -> b.staleAfter(seconds(name, value));
        case "relativeIdle" -> b.relativeIdle(Double.parseDouble(value));
        case "boundaryMinObservations" -> b.boundaryMinObservations(Integer.parseInt(value));
        case "boundaryRefreshEvery" -> b.boundaryRefreshEvery(Integer.parseInt(value));
        case "estimateQuantile" -> b.estimateQuantile(Double.parseDouble(value));
        case "demoteUntrusted" -> b.demoteUntrusted(bool(name, value));
        case "keyGuard" -> b.keyGuard(bool(name, value));
        case "safeguard" -> b.safeguard(bool(name, value));
        case "borrowFromProducer" -> b.borrowFromProducer(bool(name, value));
        case "borrowFromSize" -> b.borrowFromSize(bool(name, value));
        case "shiftRun" -> b.shiftRun(Integer.parseInt(value));
        case "promoteColdAfter" -> b.promoteColdAfter(Integer.parseInt(value));
        case "tailLimit" -> b.tailLimit(Double.parseDouble(value));
        case "tailBudget" -> b.tailBudget(Double.parseDouble(value));
        case "tailSink" -> b.tailSink(Double.parseDouble(value));
        case "untrustedLast" -> b.untrustedLast(bool(name, value));
        case "sizeBins" -> b.sizeBins(bool(name, value));
        case "safeguardLoad" -> b.safeguardLoad(Double.parseDouble(value));
        case "safeguardMargin" -> b.safeguardMargin(Double.parseDouble(value));
        case "mispredictionEnter" -> b.mispredictionEnter(Double.parseDouble(value));
        case "mispredictionExit" -> b.mispredictionExit(Double.parseDouble(value));
        default -> throw new IllegalArgumentException("unknown override: " + name);
      }
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(name + " must be a number: " + value);
    }
  }

  /** Parses a duration given in seconds, e.g. {@code 600} or {@code 0.5}. */
  private static Duration seconds(String name, String value) {
    double seconds;
    try {
      seconds = Double.parseDouble(value);
    } catch (NumberFormatException e) {
      seconds = Double.NaN;
    }
    if (!(seconds >= 0 && seconds <= 1e9)) {
      throw new IllegalArgumentException(name + " must be seconds in [0, 1e9]: " + value);
    }
    return Duration.ofNanos(Math.round(seconds * 1e9));
  }

  private static boolean bool(String name, String value) {
    return switch (value) {
      case "true" -> true;
      case "false" -> false;
      default -> throw new IllegalArgumentException(name + " must be true or false: " + value);
    };
  }
}
