package io.harbinger.predictor;

/**
 * Why a prediction came out as it did: {@link #PREDICTED}, or the reason the key's estimate was not
 * trusted (it then takes the default level, or a lower-priority one when its evidence places it
 * there).
 *
 * <p>The fallback reasons are listed in the order the trust gates apply them (seed paper section
 * 3.5).
 */
public enum Outcome {
  /** The key passed every gate and was routed by its estimate. */
  PREDICTED,
  /** The predictor is in {@link Mode#OFF}: nothing was evaluated. */
  OFF,
  /** The key was null, empty or longer than {@value Keys#MAX_KEY_BYTES} UTF-8 bytes. */
  INVALID_KEY,
  /** No level boundaries are published yet: too few pooled observations. */
  UNREADY,
  /** The key is unknown, untracked, or has fewer successful observations than the minimum. */
  COLD,
  /** The key has been idle longer than the staleness limit. */
  STALE,
  /** Too large a decayed share of the key's deliveries overran (censored observations). */
  CENSORED,
  /** The key's tail is too far above its median (the bimodal key of seed paper section 3.5). */
  SPREAD,
  /**
   * The key's recent predictions were no better than a global median would have been: the per-key
   * safeguard distrusts it until its error falls back (see {@link HistogramPredictor}).
   */
  MISPREDICTED,
  /**
   * The key was cold and took its producer's aggregate estimate, or else its size bin's (see {@link
   * PredictorTuning#borrowFromSize()}): routed by a borrowed estimate, never counted as the key's
   * own prediction.
   */
  BORROWED,
  /**
   * The router had no current answer: a remote router's table is missing or older than its
   * staleness limit, or the router failed. Never produced by the predictor itself.
   */
  UNAVAILABLE;

  /**
   * Returns whether a gate failed, so that the message did not go by its key's estimate.
   *
   * @return false for {@link #PREDICTED} and {@link #OFF}, true otherwise
   */
  public boolean isFallback() {
    return this != PREDICTED && this != OFF;
  }

  /**
   * Returns whether this is the verdict on a key without a trusted estimate of its own: a key never
   * seen or too little seen, stale, overrunning, spread or mispredicted. Such a key is what the
   * global safeguard's sink guard ({@link PredictorTuning#tailSink()}) routes at the last level.
   *
   * @return true for {@link #COLD}, {@link #STALE}, {@link #CENSORED}, {@link #SPREAD} and {@link
   *     #MISPREDICTED}
   */
  public boolean isUntrusted() {
    return switch (this) {
      case COLD, STALE, CENSORED, SPREAD, MISPREDICTED -> true;
      default -> false;
    };
  }

  /**
   * Returns whether this is the verdict on a key whose own observations give no cost to place it
   * by: never or too little seen, idle past the staleness limit, or overrunning (its durations are
   * unknown). A spread or mispredicted key is untrusted but not unmeasured: its mean is a cost. An
   * unmeasured key is what {@link PredictorConfig#untrustedLast()} routes at the last level.
   *
   * @return true for {@link #COLD}, {@link #STALE} and {@link #CENSORED}
   */
  public boolean isUnmeasured() {
    return switch (this) {
      case COLD, STALE, CENSORED -> true;
      default -> false;
    };
  }
}
