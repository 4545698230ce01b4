package io.harbinger.experiments.workload;

import java.time.Duration;

/** Waits for simulated I/O; injected so tests can record sleeps instead of waiting. */
@FunctionalInterface
public interface Sleeper {

  /** Sleeps on the calling thread with {@link Thread#sleep(Duration)}. */
  Sleeper SYSTEM =
      nanos -> {
        if (nanos > 0) {
          Thread.sleep(Duration.ofNanos(nanos));
        }
      };

  /**
   * Waits.
   *
   * @param nanos how long, at least 0 (0 returns at once)
   * @throws InterruptedException when the thread is interrupted while waiting
   */
  void sleep(long nanos) throws InterruptedException;
}
