package io.harbinger.experiments.workload;

import java.util.Locale;

/**
 * What the 2% of {@code deliver_webhook} attempts that take 1500 ms do: fail and retry, as in the
 * reference, or succeed.
 *
 * <p>Example: under {@link #FAILING} a slow webhook's first attempt waits 1500 ms and is nacked,
 * and the retry takes a fresh lognormal(40 ms, 0.4) draw; the predictor never learns the 1500 ms,
 * since only successful attempts teach it. Under {@link #SUCCEEDING} the same job takes 1500 ms
 * once and succeeds, so the key learns a tail of 1500 ms next to a median near 45 ms: the heavy
 * tail of webhooks and calls to other services in real queues.
 *
 * <p>Implementation notes: the variant changes nothing but the slow webhooks' attempts. Both draw
 * the same random numbers in the same order, so every other job of a seed, and every arrival, is
 * the same in both.
 */
public enum Webhooks {
  /** The reference: the slow attempt fails after 1500 ms and the retry succeeds. */
  FAILING,
  /** The slow attempt succeeds after 1500 ms; nothing is retried. */
  SUCCEEDING;

  /**
   * Returns the command-line name.
   *
   * @return {@code failing} or {@code succeeding}
   */
  public String wireName() {
    return name().toLowerCase(Locale.ROOT);
  }

  /**
   * Parses a command-line name.
   *
   * @param name {@code failing} or {@code succeeding}
   * @return the variant
   */
  public static Webhooks fromWireName(String name) {
    for (Webhooks w : values()) {
      if (w.wireName().equals(name)) {
        return w;
      }
    }
    throw new IllegalArgumentException("webhooks must be failing or succeeding: " + name);
  }
}
