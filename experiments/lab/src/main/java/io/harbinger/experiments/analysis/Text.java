package io.harbinger.experiments.analysis;

import io.harbinger.experiments.stats.Gate;
import java.util.Locale;

/** Number formats shared by the reporters. Stateless and thread-safe. */
final class Text {

  private Text() {}

  /**
   * Formats milliseconds: {@code 12.3 ms}, {@code 456 ms} or {@code 12.3 s}; {@code n/a} for NaN.
   */
  static String ms(double millis) {
    if (Double.isNaN(millis)) {
      return "n/a";
    }
    if (Math.abs(millis) >= 10_000) {
      return String.format(Locale.ROOT, "%.1f s", millis / 1000);
    }
    if (Math.abs(millis) >= 100) {
      return String.format(Locale.ROOT, "%.0f ms", millis);
    }
    return String.format(Locale.ROOT, "%.1f ms", millis);
  }

  static String number(double value) {
    return Double.isNaN(value) ? "n/a" : String.format(Locale.ROOT, "%.1f", value);
  }

  static String trim(double value) {
    return Gate.format(value);
  }
}
