package io.harbinger.predictor;

/**
 * Chooses the level a message is published at: what a publisher sees of Harbinger.
 *
 * <p>Implementations are local lookups: {@link #route} never performs network I/O, never blocks on
 * a lock held across I/O, and never throws for bad keys (they get the default level with {@link
 * Outcome#INVALID_KEY}). A router backed by a remote service serves its last local table, or the
 * default level, when the service is away.
 */
public interface Router {

  /**
   * Returns the verdict for a message's key.
   *
   * @param key the key from {@link Keys#of}; invalid keys are answered with the default level
   * @return the verdict; never null
   */
  Prediction route(String key);

  /**
   * Returns the verdict for a message's key and size hint.
   *
   * @param key the key from {@link Keys#of}
   * @param sizeHint a non-negative size in bytes or units, or a negative value for none
   * @return the verdict; never null
   */
  default Prediction route(String key, long sizeHint) {
    return route(key);
  }

  /**
   * Returns the number of levels this router routes to.
   *
   * @return in [2, 10]
   */
  int levels();

  /**
   * Returns the default level, the middle one: where a message goes when its key is unknown or
   * untrusted (a predictor may place an untrusted key at a level served later when its evidence
   * says so).
   *
   * @return {@code levels() / 2}
   */
  default int defaultLevel() {
    return levels() / 2;
  }
}
