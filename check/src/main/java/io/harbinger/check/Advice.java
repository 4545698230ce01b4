package io.harbinger.check;

/** The check's advice, in the words the command prints. */
public enum Advice {
  /** Per-key predictions are accurate and cover most jobs: route by them. */
  TURN_IT_ON("turn it on"),
  /** Predictions help, but only on a minority of jobs: run in shadow mode and watch. */
  SHADOW_ONLY("run in shadow only"),
  /** Predictions are no better than a global guess, or cover too few jobs. */
  NOT_USEFUL("not useful here");

  private final String words;

  Advice(String words) {
    this.words = words;
  }

  /**
   * Returns the advice in plain words.
   *
   * @return for example {@code "turn it on"}
   */
  public String words() {
    return words;
  }
}
