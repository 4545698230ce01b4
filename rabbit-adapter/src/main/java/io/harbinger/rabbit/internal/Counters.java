package io.harbinger.rabbit.internal;

import io.harbinger.rabbit.AdapterStats;
import java.util.function.BiConsumer;

/**
 * How the adapter's implementation, and the framework integrations built on it, add to the counters
 * of an {@link AdapterStats}, whose public face only reads them.
 *
 * <p>Implementation notes. {@link AdapterStats} installs its incrementer when its class is
 * initialised, so it is in place before any instance exists to be counted on; the field is
 * volatile, so every thread sees it.
 *
 * <p>Thread-safe.
 */
public final class Counters {

  private static volatile BiConsumer<AdapterStats, Counter> incrementer;

  private Counters() {}

  /**
   * Installs the incrementer; {@link AdapterStats} calls this once.
   *
   * @param value adds one to a counter of a stats
   * @throws IllegalStateException if one is installed already
   */
  public static synchronized void install(BiConsumer<AdapterStats, Counter> value) {
    if (incrementer != null) {
      throw new IllegalStateException("the AdapterStats incrementer is installed once");
    }
    incrementer = value;
  }

  /**
   * Adds one to a counter.
   *
   * @param stats the counters
   * @param counter which one
   */
  public static void increment(AdapterStats stats, Counter counter) {
    incrementer.accept(stats, counter);
  }
}
