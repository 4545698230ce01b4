package io.harbinger.rabbit.internal;

import io.harbinger.rabbit.AdapterStats;

/**
 * How the adapter's implementation, and the framework integrations built on it, add to the counters
 * of an {@link AdapterStats}, whose public face only reads them.
 *
 * <p>Implementation notes. {@link AdapterStats} installs its writer when its class is initialised,
 * so it is in place before any instance exists to be counted on; the field is volatile, so every
 * thread sees it.
 *
 * <p>Thread-safe.
 */
public final class Counters {

  /** What {@link AdapterStats} lets the implementation change; not an API. */
  public interface Writer {
    /**
     * Adds one to a counter.
     *
     * @param stats the counters
     * @param counter which one
     */
    void increment(AdapterStats stats, Counter counter);

    /**
     * Changes the gauge of deliveries that lanes consumers hold.
     *
     * @param stats the counters
     * @param delta deliveries received (positive) or handed off or dropped (negative)
     */
    void laneHeldChanged(AdapterStats stats, int delta);

    /**
     * Counts one hand-off of a held lane delivery to the application.
     *
     * @param stats the counters
     * @param heldNanos how long the delivery was held
     */
    void laneHandedOff(AdapterStats stats, long heldNanos);
  }

  private static volatile Writer writer;

  private Counters() {}

  /**
   * Installs the writer; {@link AdapterStats} calls this once.
   *
   * @param value changes the counters of a stats
   * @throws IllegalStateException if one is installed already
   */
  public static synchronized void install(Writer value) {
    if (writer != null) {
      throw new IllegalStateException("the AdapterStats writer is installed once");
    }
    writer = value;
  }

  /**
   * Adds one to a counter.
   *
   * @param stats the counters
   * @param counter which one
   */
  public static void increment(AdapterStats stats, Counter counter) {
    writer.increment(stats, counter);
  }

  /**
   * Changes the gauge of deliveries that lanes consumers hold.
   *
   * @param stats the counters
   * @param delta deliveries received (positive) or handed off or dropped (negative)
   */
  public static void laneHeldChanged(AdapterStats stats, int delta) {
    writer.laneHeldChanged(stats, delta);
  }

  /**
   * Counts one hand-off of a held lane delivery to the application.
   *
   * @param stats the counters
   * @param heldNanos how long the delivery was held
   */
  public static void laneHandedOff(AdapterStats stats, long heldNanos) {
    writer.laneHandedOff(stats, heldNanos);
  }
}
