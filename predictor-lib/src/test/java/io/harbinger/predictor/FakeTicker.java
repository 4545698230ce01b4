package io.harbinger.predictor;

import java.time.Duration;

/**
 * A ticker that moves only when told to: the one test clock of the project, shared with the other
 * modules' tests through predictor-lib's test jar.
 *
 * <p>Example: {@code FakeTicker t = new FakeTicker(); t.advance(Duration.ofSeconds(5));} then reads
 * 5 s. Not thread-safe: a test drives it from one thread.
 */
public final class FakeTicker implements Ticker {

  private long nanos;

  /** Creates a ticker reading zero. */
  public FakeTicker() {
    this(0);
  }

  /**
   * Creates a ticker with a first reading.
   *
   * @param startNanos the first reading
   */
  public FakeTicker(long startNanos) {
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
