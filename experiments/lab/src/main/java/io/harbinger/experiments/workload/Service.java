package io.harbinger.experiments.workload;

import java.util.Locale;

/** The five services of the production flow; each publishes on its own producer connection. */
public enum Service {
  /** Order emails, invoices and stock reservations. */
  CHECKOUT,
  /** Image resizing and search reindexing. */
  CATALOG,
  /** Push notifications and text messages. */
  NOTIFICATIONS,
  /** Partner webhooks. */
  PARTNERS,
  /** Report exports. */
  ANALYTICS;

  /**
   * Returns the name used in records and reports.
   *
   * @return the lower-case name, such as {@code checkout}
   */
  public String wireName() {
    return name().toLowerCase(Locale.ROOT);
  }

  /**
   * Parses a wire name.
   *
   * @param wireName a name such as {@code checkout}
   * @return the service
   */
  public static Service fromWireName(String wireName) {
    for (Service s : values()) {
      if (s.wireName().equals(wireName)) {
        return s;
      }
    }
    throw new IllegalArgumentException("unknown service: " + wireName);
  }
}
