package io.harbinger.experiments.workload;

/**
 * Where kernel checksums go, so that the JIT must compute them.
 *
 * <p>Safe to call from any thread: each call is a volatile read and write. Concurrent calls may
 * overwrite each other's contribution, which does not matter: the value is never used, only its
 * computation must happen.
 */
final class Sink {

  private static volatile long last;

  private Sink() {}

  static void consume(long checksum) {
    last = last ^ checksum;
  }

  static long last() {
    return last;
  }
}
