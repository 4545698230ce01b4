package io.harbinger.experiments.workload;

/**
 * Where kernel checksums go, so that the JIT must compute them.
 *
 * <p>Thread-safe: a volatile write per call.
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
