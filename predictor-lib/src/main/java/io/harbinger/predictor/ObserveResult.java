package io.harbinger.predictor;

/** What the predictor did with one observation. */
public enum ObserveResult {
  /**
   * The observation was learned by its key (and its size bin, if any) and by the pooled histogram.
   */
  ACCEPTED,
  /**
   * The key could not be tracked because its shard was full of keys still inside their idle grace;
   * the pooled histogram still learned the duration.
   */
  UNTRACKED,
  /** The key was null, empty or too long; nothing was learned. */
  REJECTED_KEY,
  /** The duration was NaN, infinite, negative or absurdly large; nothing was learned. */
  REJECTED_DURATION
}
