package io.harbinger.predictor;

/**
 * A source of monotonic time in nanoseconds, injected so that tests and the simulator control time.
 *
 * <p>Only differences between readings are meaningful, as with {@link System#nanoTime()}.
 */
@FunctionalInterface
public interface Ticker {

  /** The ticker of the running JVM, backed by {@link System#nanoTime()}. */
  Ticker SYSTEM = System::nanoTime;

  /**
   * Returns the current reading.
   *
   * @return nanoseconds from an arbitrary fixed origin
   */
  long nanos();
}
