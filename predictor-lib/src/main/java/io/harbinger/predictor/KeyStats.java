package io.harbinger.predictor;

import java.time.Duration;

/**
 * What the predictor knows about one key, for operators.
 *
 * @param key the key
 * @param observations successful observations since the key was admitted or last reset (never
 *     decayed)
 * @param medianNanos the decayed median, or NaN when the key holds no weight
 * @param tailNanos the decayed spread quantile (the 99th percentile by default), or NaN
 * @param meanNanos the decayed mean, or NaN
 * @param censoredShare the decayed share of censored deliveries, in [0, 1]
 * @param level the level a message of this key would take now in predictive mode
 * @param verdict {@link Outcome#PREDICTED} or the reason the key would fall back now
 * @param lastOutcome the outcome of the key's last prediction, or null if it was never predicted
 * @param idle time since the key's last activity (an observation, or a prediction while it was
 *     fresh)
 */
public record KeyStats(
    String key,
    long observations,
    double medianNanos,
    double tailNanos,
    double meanNanos,
    double censoredShare,
    int level,
    Outcome verdict,
    Outcome lastOutcome,
    Duration idle) {}
