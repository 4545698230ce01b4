package io.harbinger.benchmarks.rabbit;

import java.util.Arrays;

/**
 * Publish throughput to the real broker, raw against wrapped, in alternating rounds of one run, so
 * that both arms see the same broker and machine load; the cross-check of {@link
 * BrokerPublishBenchmark}, whose arms run one after the other.
 *
 * <p>Run with {@code java -cp benchmarks/target/benchmarks.jar
 * io.harbinger.benchmarks.rabbit.BrokerPublishRatio [rounds] [publishesPerRound]
 * [queue|unroutable]}; it prints each arm's median throughput over the rounds and the ratio wrapped
 * / raw, with the range of per-round ratios.
 */
public final class BrokerPublishRatio {

  private BrokerPublishRatio() {}

  /**
   * Runs the measurement.
   *
   * @param args rounds (default 12) and publishes per round (default 5,000)
   * @throws Exception if the broker is unreachable
   */
  public static void main(String[] args) throws Exception {
    int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 12;
    int perRound = args.length > 1 ? Integer.parseInt(args[1]) : 5_000;
    BrokerPublishBenchmark b = new BrokerPublishBenchmark();
    b.target = args.length > 2 ? args[2] : "queue";
    b.setUp();
    try {
      for (int i = 0; i < 3; i++) {
        for (int arm = 0; arm < 3; arm++) {
          round(b, arm, perRound);
        }
      }
      double[] raw = new double[rounds];
      double[] wrapped = new double[rounds];
      double[] stamped = new double[rounds];
      double[] ratios = new double[rounds];
      double[] stampedRatios = new double[rounds];
      for (int r = 0; r < rounds; r++) {
        double[][] into = {raw, wrapped, stamped};
        for (int k = 0; k < 3; k++) {
          int arm = (r + k) % 3;
          into[arm][r] = round(b, arm, perRound);
        }
        ratios[r] = wrapped[r] / raw[r];
        stampedRatios[r] = wrapped[r] / stamped[r];
      }
      Arrays.sort(raw);
      Arrays.sort(wrapped);
      Arrays.sort(stamped);
      Arrays.sort(ratios);
      Arrays.sort(stampedRatios);
      System.out.printf(
          "%s: publishes/s (median of %d rounds of %d): raw %.0f, wrapped %.0f;"
              + " ratio wrapped/raw: median %.3f, range %.3f..%.3f%n",
          b.target,
          rounds,
          perRound,
          raw[rounds / 2],
          wrapped[rounds / 2],
          ratios[rounds / 2],
          ratios[0],
          ratios[rounds - 1]);
      System.out.printf(
          "%s: raw with the wrapper's properties %.0f/s; ratio wrapped/that: median %.3f,"
              + " range %.3f..%.3f%n",
          b.target,
          stamped[rounds / 2],
          stampedRatios[rounds / 2],
          stampedRatios[0],
          stampedRatios[rounds - 1]);
    } finally {
      b.tearDown();
    }
  }

  /** Publishes n messages through arm 0 (raw), 1 (wrapped) or 2 (raw, wrapper's properties). */
  private static double round(BrokerPublishBenchmark b, int arm, int n) throws Exception {
    long start = System.nanoTime();
    for (int i = 0; i < n; i++) {
      switch (arm) {
        case 0 -> b.raw();
        case 1 -> b.wrapped();
        default -> b.rawStamped();
      }
    }
    return n / ((System.nanoTime() - start) / 1e9);
  }
}
