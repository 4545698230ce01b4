package io.harbinger.testing;

import java.time.Duration;
import java.util.Locale;
import java.util.Objects;
import java.util.function.LongSupplier;

/**
 * A wait for a process that makes progress, bounded by progress rather than by a fixed time: it
 * keeps waiting while a counter it watches keeps changing, and fails when the counter has not
 * changed for a stall window, or when a hard limit has passed.
 *
 * <p>A fixed budget (say 20 s for 600 reports to be learned) fails on a loaded 2-core machine that
 * learns every report, only slowly; a stall window fails only when nothing moves. With the defaults
 * (stall window {@value #DEFAULT_STALL_SECONDS} s, limit {@value #DEFAULT_LIMIT_SECONDS} s), a run
 * that learns one report every 20 s passes, however long it takes up to the limit, and a run that
 * learns 412 reports and then nothing fails 30 s after the 412th with:
 *
 * <pre>
 * waited 47.1 s for at least 600 reports learned: reports learned stalled at 412 (no change in 30 s)
 * </pre>
 *
 * <pre>{@code
 * ProgressWait.on("reports learned", () -> router.ingestStats().learned()).untilAtLeast(600);
 * ProgressWait.on("messages handled", done::size)
 *     .until("both job types learned", () -> learned(shortKey) && learned(longKey));
 * }</pre>
 *
 * <p>The counter is any number the process moves as it works (reports learned, messages delivered,
 * keys known); any change, up or down, counts as progress. It need not be the condition waited for:
 * a wait for "both keys learned" may watch the reports learned. Use it for waits on a process that
 * makes progress, not for a single event bounded by a protocol timeout (a channel closing, a
 * connection blocked), where a plain bounded wait says more.
 *
 * <p>Instances are immutable and thread-safe; each wait blocks its calling thread, polling the
 * condition and the counter every 50 ms on it.
 */
public final class ProgressWait {

  /** The default stall window, in seconds. */
  public static final long DEFAULT_STALL_SECONDS = 30;

  /** The default hard limit, in seconds. */
  public static final long DEFAULT_LIMIT_SECONDS = 300;

  private static final Duration POLL = Duration.ofMillis(50);

  /**
   * A condition to wait for, which may throw.
   *
   * @param <E> what checking it may throw
   */
  @FunctionalInterface
  public interface Condition<E extends Exception> {
    /**
     * Returns whether the wait is over.
     *
     * @return true once the condition holds
     * @throws E when checking fails; the wait ends with it
     */
    boolean met() throws E;
  }

  /** The clock and the sleep of a wait; the system's outside tests of this class. */
  interface Time {
    long nanoTime();

    void sleep(Duration duration) throws InterruptedException;
  }

  private static final Time SYSTEM =
      new Time() {
        @Override
        public long nanoTime() {
          return System.nanoTime();
        }

        @Override
        public void sleep(Duration duration) throws InterruptedException {
          Thread.sleep(duration);
        }
      };

  private final String counterName;
  private final LongSupplier counter;
  private final Duration stall;
  private final Duration limit;
  private final Time time;

  private ProgressWait(
      String counterName, LongSupplier counter, Duration stall, Duration limit, Time time) {
    this.counterName = counterName;
    this.counter = counter;
    this.stall = stall;
    this.limit = limit;
    this.time = time;
  }

  /**
   * Starts describing a wait that watches a counter, with the default stall window and limit.
   *
   * @param counterName what the counter counts, for the failure message, such as {@code "reports
   *     learned"}
   * @param counter reads the counter; called from the waiting thread, every poll
   * @return the wait, not yet started
   */
  public static ProgressWait on(String counterName, LongSupplier counter) {
    Objects.requireNonNull(counterName, "counterName");
    Objects.requireNonNull(counter, "counter");
    return new ProgressWait(
        counterName,
        counter,
        Duration.ofSeconds(DEFAULT_STALL_SECONDS),
        Duration.ofSeconds(DEFAULT_LIMIT_SECONDS),
        SYSTEM);
  }

  /**
   * Returns this wait with another stall window.
   *
   * @param window how long the counter may stay unchanged before the wait fails; positive, at most
   *     the limit
   * @return the changed wait
   */
  public ProgressWait stall(Duration window) {
    return new ProgressWait(counterName, counter, checked(window, limit), limit, time);
  }

  /**
   * Returns this wait with another hard limit.
   *
   * @param hardLimit how long the wait may last however the counter moves; at least the stall
   *     window
   * @return the changed wait
   */
  public ProgressWait limit(Duration hardLimit) {
    Objects.requireNonNull(hardLimit, "limit");
    checked(stall, hardLimit);
    return new ProgressWait(counterName, counter, stall, hardLimit, time);
  }

  /** Returns this wait on another clock, for tests of this class. */
  ProgressWait time(Time other) {
    return new ProgressWait(counterName, counter, stall, limit, Objects.requireNonNull(other));
  }

  private static Duration checked(Duration stall, Duration limit) {
    Objects.requireNonNull(stall, "stall");
    if (stall.isNegative() || stall.isZero() || stall.compareTo(limit) > 0) {
      throw new IllegalArgumentException(
          "the stall window must be positive and at most the limit (" + limit + "): " + stall);
    }
    return stall;
  }

  /**
   * Waits until the counter reaches a value.
   *
   * @param target the value, or more, that ends the wait
   * @return the counter's value when the wait ended
   * @throws AssertionError when the counter stalls, or the limit passes, before it gets there
   * @throws InterruptedException when the waiting thread is interrupted
   */
  public long untilAtLeast(long target) throws InterruptedException {
    return until("at least " + target + " " + counterName, () -> counter.getAsLong() >= target);
  }

  /**
   * Waits until a condition holds, for as long as the counter keeps changing.
   *
   * @param goal what the condition means, for the failure message, such as {@code "both job types
   *     learned"}
   * @param condition checked before the counter, every poll, from the calling thread
   * @param <E> what the condition may throw
   * @return the counter's value when the wait ended
   * @throws AssertionError when the counter stalls, or the limit passes, before the condition holds
   * @throws E what the condition throws, at once
   * @throws InterruptedException when the waiting thread is interrupted
   */
  public <E extends Exception> long until(String goal, Condition<E> condition)
      throws E, InterruptedException {
    Objects.requireNonNull(goal, "goal");
    Objects.requireNonNull(condition, "condition");
    long start = time.nanoTime();
    long last = counter.getAsLong();
    long lastChange = start;
    while (true) {
      boolean met = condition.met();
      long value = counter.getAsLong();
      long now = time.nanoTime();
      if (met) {
        return value;
      }
      if (value != last) {
        last = value;
        lastChange = now;
      }
      if (now - lastChange >= stall.toNanos()) {
        throw new AssertionError(
            String.format(
                Locale.ROOT,
                "waited %.1f s for %s: %s stalled at %d (no change in %d s)",
                seconds(now - start),
                goal,
                counterName,
                value,
                stall.toSeconds()));
      }
      if (now - start >= limit.toNanos()) {
        throw new AssertionError(
            String.format(
                Locale.ROOT,
                "waited %.1f s for %s: %s still moved, to %d, but the limit of %d s passed",
                seconds(now - start),
                goal,
                counterName,
                value,
                limit.toSeconds()));
      }
      time.sleep(POLL);
    }
  }

  private static double seconds(long nanos) {
    return nanos / 1e9;
  }

  @Override
  public String toString() {
    return "ProgressWait on "
        + counterName
        + " (stall "
        + stall.toSeconds()
        + " s, limit "
        + limit.toSeconds()
        + " s)";
  }
}
