package io.harbinger.predictor;

import java.util.Map;

/**
 * Counters of everything the predictor decided and learned, taken at one moment; no key appears in
 * them.
 *
 * @param mode the current mode
 * @param predictions predictions made, by outcome
 * @param parentFallbacks size-binned predictions answered from the parent key
 * @param accepted observations learned
 * @param censored censored deliveries recorded
 * @param rejectedKeys observations refused for an invalid key
 * @param rejectedDurations observations refused for a NaN, infinite, negative or absurd duration
 * @param untracked observations of keys that found no room (overflow); the pooled histogram still
 *     learned them
 * @param saturated durations above the histogram's top edge, stored at the top edge
 * @param evictions keys evicted to admit new ones
 * @param rebases keys whose history was replaced by a run of observations that showed a change of
 *     regime ({@link PredictorTuning#shiftRun})
 * @param safeguardHeld predictions the global safeguard sent to the default level instead of their
 *     own, in predictive mode
 * @param tailLifted predictions the tail guard routed at the default level instead of a level below
 *     it, in predictive mode
 * @param tailSunk predictions the sink guard routed at the last level instead of the default level
 *     an untrusted key takes, in predictive mode
 * @param keys keys tracked now
 * @param pooledObservations observations in the pooled histogram
 * @param boundaryPublications times new boundaries were published
 * @param degenerateRefreshes boundary recomputations dropped because the quantiles were not
 *     strictly increasing
 * @param drift the drift signals
 * @param safeguard the global safeguard's decision and inputs
 */
public record PredictorStats(
    Mode mode,
    Map<Outcome, Long> predictions,
    long parentFallbacks,
    long accepted,
    long censored,
    long rejectedKeys,
    long rejectedDurations,
    long untracked,
    long saturated,
    long evictions,
    long rebases,
    long safeguardHeld,
    long tailLifted,
    long tailSunk,
    int keys,
    long pooledObservations,
    long boundaryPublications,
    long degenerateRefreshes,
    DriftSignals drift,
    SafeguardStatus safeguard) {

  /** Copies the map so the record stays immutable. */
  public PredictorStats {
    predictions = Map.copyOf(predictions);
  }
}
