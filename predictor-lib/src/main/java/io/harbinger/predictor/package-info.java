/**
 * The Harbinger predictor: learns from handler durations how long each kind of message takes and
 * maps short expected work to a higher-priority level.
 *
 * <p>Public API: {@link io.harbinger.predictor.Predictor} and its implementation {@link
 * io.harbinger.predictor.HistogramPredictor}, configured by {@link
 * io.harbinger.predictor.PredictorConfig}'s ten settings; the {@link io.harbinger.predictor.Router}
 * seen by publishers; {@link io.harbinger.predictor.Keys} for key construction; the values {@link
 * io.harbinger.predictor.Prediction}, {@link io.harbinger.predictor.Boundaries}, {@link
 * io.harbinger.predictor.KeyStats} and {@link io.harbinger.predictor.PredictorStats}; {@link
 * io.harbinger.predictor.Ticker} for injected time. {@link io.harbinger.predictor.PredictorTuning}
 * holds the lab's research hooks into the predictor's other parameters; it is public for the lab
 * (experiments/) and is not part of the product's configuration, which no other product module
 * uses. Everything else in the package is package-private.
 *
 * <p>The package has no runtime dependencies: it reports through return values, exceptions and
 * counters.
 */
package io.harbinger.predictor;
