package io.harbinger.experiments.sim;

import io.harbinger.predictor.PredictorConfig;
import io.harbinger.predictor.PredictorTuning;
import java.time.Duration;

/**
 * Applies {@code NAME=VALUE} overrides to a predictor's settings and tuning, the one syntax shared
 * by {@code harbinger levels --arms predictive:NAME=VALUE} and {@code harbinger simulate
 * --predictors PROFILE:NAME=VALUE}. Every parameter can be set by its name: the ten of {@link
 * PredictorConfig} and every one of {@link PredictorTuning}. Durations are in seconds and booleans
 * are {@code true} or {@code false}; the ranges are those of {@link PredictorConfig} and {@link
 * PredictorTuning}, checked when they are built.
 */
public final class PredictorOverrides {

  /** The names an override may set, in the order the help text lists them. */
  public static final String NAMES =
      "the settings levels, keyDecay, staleAfter (seconds), minObservations, maxSpreadRatio,"
          + " maxKeys, sizeBins, safeguard, tailBudget, untrustedLast; the tuning pooledDecay,"
          + " idleHalfLife (seconds), maxCensoredShare, spreadQuantile, spreadFloor (seconds),"
          + " estimateQuantile, boundaryMinObservations, boundaryRefreshEvery, boundaryHysteresis,"
          + " tierHysteresis, shards, coldEvictionGrace (seconds), idleEviction (seconds),"
          + " demoteUntrusted, keyGuard, mispredictionEnter, mispredictionExit,"
          + " mispredictionMemory, safeguardMargin, safeguardHysteresis, safeguardLoad,"
          + " safeguardMinReports, safeguardDecay, borrowFromProducer, borrowFromSize,"
          + " relativeIdle, shiftRun, promoteColdAfter, tailLimit, tailSink";

  private PredictorOverrides() {}

  /**
   * Applies one override.
   *
   * @param config the settings to change
   * @param tuning the tuning to change
   * @param assignment {@code NAME=VALUE}
   * @throws IllegalArgumentException naming the assignment when it is not NAME=VALUE, the name is
   *     unknown or the value does not parse
   */
  public static void apply(
      PredictorConfig.Builder config, PredictorTuning.Builder tuning, String assignment) {
    int eq = assignment.indexOf('=');
    if (eq < 1) {
      throw new IllegalArgumentException("an override must be NAME=VALUE: " + assignment);
    }
    String name = assignment.substring(0, eq);
    String value = assignment.substring(eq + 1);
    try {
      switch (name) {
        case "levels" -> config.levels(Integer.parseInt(value));
        case "keyDecay" -> config.keyDecay(Double.parseDouble(value));
        case "staleAfter" -> config.staleAfter(seconds(name, value));
        case "minObservations" -> config.minObservations(Integer.parseInt(value));
        case "maxSpreadRatio" -> config.maxSpreadRatio(Double.parseDouble(value));
        case "maxKeys" -> config.maxKeys(Integer.parseInt(value));
        case "sizeBins" -> config.sizeBins(bool(name, value));
        case "safeguard" -> config.safeguard(bool(name, value));
        case "tailBudget" -> config.tailBudget(Double.parseDouble(value));
        case "untrustedLast" -> config.untrustedLast(bool(name, value));
        case "pooledDecay" -> tuning.pooledDecay(Double.parseDouble(value));
        case "idleHalfLife" -> tuning.idleHalfLife(seconds(name, value));
        case "maxCensoredShare" -> tuning.maxCensoredShare(Double.parseDouble(value));
        case "spreadQuantile" -> tuning.spreadQuantile(Double.parseDouble(value));
        case "spreadFloor" -> tuning.spreadFloor(seconds(name, value));
        case "estimateQuantile" -> tuning.estimateQuantile(Double.parseDouble(value));
        case "boundaryMinObservations" -> tuning.boundaryMinObservations(Integer.parseInt(value));
        case "boundaryRefreshEvery" -> tuning.boundaryRefreshEvery(Integer.parseInt(value));
        case "boundaryHysteresis" -> tuning.boundaryHysteresis(Double.parseDouble(value));
        case "tierHysteresis" -> tuning.tierHysteresis(Double.parseDouble(value));
        case "shards" -> tuning.shards(Integer.parseInt(value));
        case "coldEvictionGrace" -> tuning.coldEvictionGrace(seconds(name, value));
        case "idleEviction" -> tuning.idleEviction(seconds(name, value));
        case "demoteUntrusted" -> tuning.demoteUntrusted(bool(name, value));
        case "keyGuard" -> tuning.keyGuard(bool(name, value));
        case "mispredictionEnter" -> tuning.mispredictionEnter(Double.parseDouble(value));
        case "mispredictionExit" -> tuning.mispredictionExit(Double.parseDouble(value));
        case "mispredictionMemory" -> tuning.mispredictionMemory(Integer.parseInt(value));
        case "safeguardMargin" -> tuning.safeguardMargin(Double.parseDouble(value));
        case "safeguardHysteresis" -> tuning.safeguardHysteresis(Double.parseDouble(value));
        case "safeguardLoad" -> tuning.safeguardLoad(Double.parseDouble(value));
        case "safeguardMinReports" -> tuning.safeguardMinReports(Integer.parseInt(value));
        case "safeguardDecay" -> tuning.safeguardDecay(Double.parseDouble(value));
        case "borrowFromProducer" -> tuning.borrowFromProducer(bool(name, value));
        case "borrowFromSize" -> tuning.borrowFromSize(bool(name, value));
        case "relativeIdle" -> tuning.relativeIdle(Double.parseDouble(value));
        case "shiftRun" -> tuning.shiftRun(Integer.parseInt(value));
        case "promoteColdAfter" -> tuning.promoteColdAfter(Integer.parseInt(value));
        case "tailLimit" -> tuning.tailLimit(Double.parseDouble(value));
        case "tailSink" -> tuning.tailSink(Double.parseDouble(value));
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
