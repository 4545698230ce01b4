package io.harbinger.experiments.workload;

import java.util.Locale;

/**
 * What changes in the production flow's last phase ({@link Phase#SHIFTED}): the reference's cost
 * shift, or that shift with an inversion in which a short job type turns long and a longer one
 * turns short.
 *
 * <p>Example: under {@link #INVERSION}, from 70% of the arrival window on, a {@code
 * generate_invoice} job's upload waits a median of 40 ms instead of 4 ms (the invoice goes from one
 * of the shortest types to a middling one), and a {@code send_order_email} job's SMTP wait a median
 * of 3.5 ms instead of 35 ms. Both types arrive at 6/s with the same multipliers, so the offered
 * work stays within about 1% of the reference's; what a predictor learned before the shift is now
 * wrong for both keys, and its levels must recover.
 *
 * <p>Implementation notes: the variant scales the two sleeps' medians and draws the same random
 * numbers in the same order, so every arrival and every other job of a seed is the same in both. It
 * departs from the original implementation's benchmark, whose shift keeps every type's rank.
 */
public enum Regime {
  /** The reference: more hi-res images and more slow webhooks in the shifted phase. */
  SHIFT,
  /** The reference's shift, and invoices turn long while order emails turn short. */
  INVERSION;

  /**
   * Returns the command-line name.
   *
   * @return {@code shift} or {@code inversion}
   */
  public String wireName() {
    return name().toLowerCase(Locale.ROOT);
  }

  /**
   * Parses a command-line name.
   *
   * @param name {@code shift} or {@code inversion}
   * @return the regime
   */
  public static Regime fromWireName(String name) {
    for (Regime r : values()) {
      if (r.wireName().equals(name)) {
        return r;
      }
    }
    throw new IllegalArgumentException("regime must be shift or inversion: " + name);
  }
}
