package io.harbinger.predictor;

import java.util.List;
import java.util.Optional;

/**
 * Learns per-key handler durations and predicts the level of each new message (seed paper sections
 * 3.4 and 3.5).
 *
 * <p>A predictor is also a {@link Router}: {@link #route} is {@link #predict}. Implementations are
 * thread-safe.
 */
public interface Predictor extends Router {

  /**
   * Predicts the level of a message. A prediction of a key that is not stale counts as activity for
   * it.
   *
   * @param key the message's key
   * @return the verdict; never null
   */
  Prediction predict(String key);

  /**
   * Predicts the level of a message with a size hint; with size bins on, a cold bin borrows its
   * parent's estimate.
   *
   * @param key the message's key
   * @param sizeHint a non-negative size, or a negative value for none
   * @return the verdict; never null
   */
  Prediction predict(String key, long sizeHint);

  /**
   * Returns the verdict that {@link #predict} would give now, without counting it or touching any
   * state.
   *
   * @param key the key
   * @return the verdict; never null
   */
  Prediction peek(String key);

  /**
   * Returns what a cold key with no producer's estimate to borrow would borrow for a size hint
   * ({@link PredictorTuning#borrowFromSize()}), without counting it or touching any state: what a
   * route table gives keys it holds no estimate for.
   *
   * @param sizeHint a non-negative size
   * @return {@link Outcome#BORROWED} with the size bin's level and estimate, or a fallback at the
   *     default level when the bin lends nothing; this default implementation always falls back
   */
  default Prediction peekSize(long sizeHint) {
    return Prediction.fallback(defaultLevel(), Outcome.COLD, mode());
  }

  /**
   * Learns one successful handler duration.
   *
   * @param key the key of the settled message
   * @param durationNanos the handler's duration; NaN, infinite, negative or absurd values are
   *     rejected and counted
   * @return what was done with it
   */
  ObserveResult observe(String key, double durationNanos);

  /**
   * Learns one successful handler duration of a message with a size hint.
   *
   * @param key the key of the settled message
   * @param sizeHint a non-negative size, or a negative value for none
   * @param durationNanos the handler's duration
   * @return what was done with it
   */
  ObserveResult observe(String key, long sizeHint, double durationNanos);

  /**
   * Records a delivery that overran and yielded no duration (seed paper section 3.5).
   *
   * @param key the key of the message
   * @param sizeHint a non-negative size, or a negative value for none
   * @return what was done with it
   */
  ObserveResult observeCensored(String key, long sizeHint);

  /**
   * Scores one settled delivery against the prediction made when it was published, for the drift
   * signals.
   *
   * @param predictedLevel the level predicted at publish, in [0, levels)
   * @param estimateNanos the estimate used at publish, or NaN when there was none
   * @param actualNanos the measured duration
   */
  void score(int predictedLevel, double estimateNanos, double actualNanos);

  @Override
  default Prediction route(String key) {
    return predict(key);
  }

  @Override
  default Prediction route(String key, long sizeHint) {
    return predict(key, sizeHint);
  }

  /**
   * Returns the current mode.
   *
   * @return the mode
   */
  Mode mode();

  /**
   * Returns whether a global safeguard holds routing in FIFO order now: predictions in predictive
   * mode then carry the default level, as in shadow mode. A remote table that routes by {@link
   * Prediction#predictedLevel()} must apply the same.
   *
   * @return false unless the implementation has such a safeguard and it holds
   */
  default boolean holdsFifoOrder() {
    return false;
  }

  /**
   * Returns whether a tail guard routes keys placed below the default level at the default level
   * now: predictions in predictive mode then carry the default level in place of such a level. A
   * remote table that routes by {@link Prediction#predictedLevel()} must apply the same.
   *
   * @return false unless the implementation has such a guard and it lifts
   */
  default boolean liftsBelowDefault() {
    return false;
  }

  /**
   * Returns whether keys without a cost of their own ({@link Outcome#isUnmeasured}) that the
   * predictor places at the default level are routed at the last level now: predictions in
   * predictive mode then carry the last level for them. A remote table that routes by {@link
   * Prediction#predictedLevel()} must apply the same, to keys it does not hold as well.
   *
   * @return false unless the implementation routes them so and does now
   */
  default boolean routesUntrustedLast() {
    return false;
  }

  /**
   * Switches the mode; takes effect for the next prediction.
   *
   * @param mode the new mode
   */
  void setMode(Mode mode);

  /**
   * Returns the published boundaries.
   *
   * @return the boundaries, or empty before the first are published
   */
  Optional<Boundaries> boundaries();

  /**
   * Returns what is known about one key.
   *
   * @param key the key
   * @return its statistics, or empty when it is not tracked
   */
  Optional<KeyStats> keyStats(String key);

  /**
   * Returns the statistics of every tracked key, most recently active last within each shard.
   *
   * @return a snapshot list
   */
  List<KeyStats> keyStats();

  /**
   * Returns the counters.
   *
   * @return a consistent-enough snapshot of the counters
   */
  PredictorStats stats();

  /**
   * Returns the configuration.
   *
   * @return the configuration
   */
  PredictorConfig config();
}
