package io.harbinger.experiments.workload;

import io.harbinger.predictor.Ticker;
import java.util.Locale;
import java.util.Objects;

/**
 * How handlers spend a job's planned time: {@code cpu} does the real kernels plus the simulated I/O
 * sleeps, {@code sleep} sleeps the planned duration.
 *
 * <p>Implementation notes: in both modes the first attempt of a failing webhook waits its timeout
 * (1500 ms before time scaling) and fails, and the retry succeeds, as in the original
 * implementation's production-flow benchmark. The CPU mode contends for cores like the reference's
 * handlers; the sleep mode removes CPU contention, as the paper's trace replay does (seed paper
 * section 4).
 */
public enum HandlerMode {
  /** Real CPU kernels plus I/O sleeps. */
  CPU,
  /** Sleep the planned duration. */
  SLEEP;

  /**
   * Creates a handler of this mode.
   *
   * @param sleeper what sleeps for simulated I/O
   * @param ticker what times each attempt
   * @return the handler
   */
  public Handler create(Sleeper sleeper, Ticker ticker) {
    Objects.requireNonNull(sleeper, "sleeper");
    Objects.requireNonNull(ticker, "ticker");
    return new ModeHandler(this, sleeper, ticker);
  }

  /**
   * Returns the command-line name.
   *
   * @return {@code cpu} or {@code sleep}
   */
  public String wireName() {
    return name().toLowerCase(Locale.ROOT);
  }

  /**
   * Parses a command-line name.
   *
   * @param name {@code cpu} or {@code sleep}
   * @return the mode
   */
  public static HandlerMode fromWireName(String name) {
    for (HandlerMode m : values()) {
      if (m.wireName().equals(name)) {
        return m;
      }
    }
    throw new IllegalArgumentException("handlers must be cpu or sleep: " + name);
  }

  static long millisToNanos(double millis) {
    return Math.round(millis * 1e6);
  }

  /**
   * Runs this mode's work for a successful attempt: the kernel and the I/O sleep, or one sleep of
   * the planned duration.
   */
  private void work(Job job, Sleeper sleeper) throws InterruptedException {
    switch (this) {
      case CPU -> {
        Sink.consume(job.type().kernel().run(job.units(), job.seq()));
        sleeper.sleep(millisToNanos(job.sleepMillis()));
      }
      case SLEEP -> sleeper.sleep(millisToNanos(job.cpuMillis() + job.sleepMillis()));
    }
  }

  /** The one handler body: a failing first attempt waits its timeout, else the mode's work. */
  private static final class ModeHandler implements Handler {
    private final HandlerMode mode;
    private final Sleeper sleeper;
    private final Ticker ticker;

    ModeHandler(HandlerMode mode, Sleeper sleeper, Ticker ticker) {
      this.mode = mode;
      this.sleeper = sleeper;
      this.ticker = ticker;
    }

    @Override
    public AttemptResult handle(Job job, int attempt) throws InterruptedException {
      checkAttempt(attempt);
      long start = ticker.nanos();
      if (attempt == 1 && job.failsFirstAttempt()) {
        sleeper.sleep(millisToNanos(job.failedAttemptMillis()));
        return new AttemptResult(false, Math.max(0, ticker.nanos() - start));
      }
      mode.work(job, sleeper);
      return new AttemptResult(true, Math.max(0, ticker.nanos() - start));
    }

    @Override
    public String toString() {
      return mode.wireName();
    }
  }

  private static void checkAttempt(int attempt) {
    if (attempt < 1) {
      throw new IllegalArgumentException("attempt must be at least 1: " + attempt);
    }
  }
}
