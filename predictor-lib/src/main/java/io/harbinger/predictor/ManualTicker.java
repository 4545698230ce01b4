package io.harbinger.predictor;

import java.time.Duration;

/**
 * A ticker that moves only when told to: the simulator's clock of simulated time, and the one test
 * clock of the project.
 *
 * <p>Example: {@code ManualTicker t = new ManualTicker(); t.advance(Duration.ofSeconds(5));} then
 * reads 5 s. Not thread-safe: one thread drives it (the simulator's, or a test's).
 */
public final class ManualTicker implements Ticker {

  private long nanos;

  /** Creates a ticker reading zero. */
  public ManualTicker() {
    this(0);
  }

  /**
   * Creates a ticker with a first reading.
   *
   * @param startNanos the first reading
   */
  public ManualTicker(long startNanos) {
    this.nanos = startNanos;
  }

  @Override
  public long nanos() {
    return nanos;
  }

  /**
   * Moves the ticker forward.
   *
   * @param d how far; may be zero
   */
  public void advance(Duration d) {
    nanos += d.toNanos();
  }

  /**
   * Moves the ticker forward by nanoseconds.
   *
   * @param d how far, in nanoseconds
   */
  public void advanceNanos(long d) {
    nanos += d;
  }

  /**
   * Sets the reading.
   *
   * @param value the new reading
   */
  public void set(long value) {
    nanos = value;
  }
}
