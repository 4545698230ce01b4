package io.harbinger.benchmarks.rabbit;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;

/**
 * The CPU time one publish costs, raw and wrapped, on a no-op channel, measured with the thread's
 * CPU clock rather than the wall clock, so that other processes on a busy machine do not inflate
 * it; the cross-check of {@link PublishOverheadBenchmark}.
 *
 * <p>Run with {@code java -cp experiments/benchmarks/target/benchmarks.jar
 * io.harbinger.benchmarks.rabbit.PublishCpuCost [rounds] [publishesPerRound]}; it prints the median
 * over rounds of CPU nanoseconds per publish for each arm, and their difference. Rounds alternate
 * between the arms so that both see the same machine.
 */
public final class PublishCpuCost {

  private PublishCpuCost() {}

  /**
   * Runs the measurement.
   *
   * @param args rounds (default 15) and publishes per round (default 200,000)
   * @throws Exception if a publish fails
   */
  public static void main(String[] args) throws Exception {
    int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 15;
    int perRound = args.length > 1 ? Integer.parseInt(args[1]) : 200_000;
    PublishOverheadBenchmark b = new PublishOverheadBenchmark();
    b.setUp();
    ThreadMXBean mx = ManagementFactory.getThreadMXBean();
    for (int i = 0; i < 5; i++) {
      run(b, false, perRound, mx);
      run(b, true, perRound, mx);
    }
    double[] raw = new double[rounds];
    double[] wrapped = new double[rounds];
    for (int r = 0; r < rounds; r++) {
      raw[r] = run(b, false, perRound, mx);
      wrapped[r] = run(b, true, perRound, mx);
    }
    java.util.Arrays.sort(raw);
    java.util.Arrays.sort(wrapped);
    double rawMedian = raw[rounds / 2];
    double wrappedMedian = wrapped[rounds / 2];
    System.out.printf(
        "CPU ns per publish (median of %d rounds of %d): raw %.1f, wrapped %.1f, added %.1f"
            + " (wrapped range %.1f..%.1f)%n",
        rounds,
        perRound,
        rawMedian,
        wrappedMedian,
        wrappedMedian - rawMedian,
        wrapped[0],
        wrapped[rounds - 1]);
  }

  private static double run(PublishOverheadBenchmark b, boolean wrapped, int n, ThreadMXBean mx)
      throws Exception {
    long start = mx.getCurrentThreadCpuTime();
    if (wrapped) {
      for (int i = 0; i < n; i++) {
        b.wrapped();
      }
    } else {
      for (int i = 0; i < n; i++) {
        b.raw();
      }
    }
    return (mx.getCurrentThreadCpuTime() - start) / (double) n;
  }
}
