package io.harbinger.predictor;

/** What the predictor does with its estimates. */
public enum Mode {
  /** Every message goes to the default level and nothing is predicted; learning continues. */
  OFF,
  /**
   * The predictor predicts and learns exactly as in {@link #PREDICTIVE} but every message is routed
   * to the default level, so delivery order is unchanged while its verdicts can be inspected (seed
   * paper section 3.4).
   */
  SHADOW,
  /**
   * Messages whose key passes every trust gate are routed by their estimate; the rest take the
   * default level.
   */
  PREDICTIVE
}
