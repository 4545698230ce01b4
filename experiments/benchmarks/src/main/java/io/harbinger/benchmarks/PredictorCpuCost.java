package io.harbinger.benchmarks;

import io.harbinger.predictor.Prediction;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Arrays;

/**
 * The CPU time of one prediction and one observation at a given number of keys, measured with the
 * thread's CPU clock so that other processes on a busy machine do not inflate it; the cross-check
 * of {@link PredictorBenchmark}, whose setup it reuses.
 *
 * <p>Run: {@code java -cp experiments/benchmarks/target/benchmarks.jar
 * io.harbinger.benchmarks.PredictorCpuCost [keys] [rounds] [opsPerRound]}. It prints the median and
 * range over rounds of CPU nanoseconds per operation. Cache pollution from other processes still
 * counts, so on a shared machine this is an upper bound too, but a much tighter one.
 */
public final class PredictorCpuCost {

  private PredictorCpuCost() {}

  /**
   * Runs the measurement.
   *
   * @param args keys (default 10,000), rounds (default 15), operations per round (default
   *     1,000,000)
   */
  public static void main(String[] args) {
    int keys = args.length > 0 ? Integer.parseInt(args[0]) : 10_000;
    int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 15;
    int perRound = args.length > 2 ? Integer.parseInt(args[2]) : 1_000_000;
    PredictorBenchmark b = new PredictorBenchmark();
    b.keys = keys;
    b.setUp();
    PredictorBenchmark.Cursor cursor = new PredictorBenchmark.Cursor();
    ThreadMXBean mx = ManagementFactory.getThreadMXBean();
    for (int i = 0; i < 5; i++) {
      predict(b, cursor, perRound, mx);
      observe(b, cursor, perRound, mx);
    }
    double[] predict = new double[rounds];
    double[] observe = new double[rounds];
    for (int r = 0; r < rounds; r++) {
      predict[r] = predict(b, cursor, perRound, mx);
      observe[r] = observe(b, cursor, perRound, mx);
    }
    System.out.printf(
        "keys %d, %d rounds of %d: CPU ns per predict median %.1f (%.1f..%.1f), per observe median %.1f"
            + " (%.1f..%.1f)%n",
        keys,
        rounds,
        perRound,
        median(predict),
        min(predict),
        max(predict),
        median(observe),
        min(observe),
        max(observe));
  }

  private static double predict(
      PredictorBenchmark b, PredictorBenchmark.Cursor c, int n, ThreadMXBean mx) {
    long start = mx.getCurrentThreadCpuTime();
    int sink = 0;
    for (int i = 0; i < n; i++) {
      Prediction p = b.predict(c);
      sink += p.level();
    }
    double perOp = (mx.getCurrentThreadCpuTime() - start) / (double) n;
    if (sink < 0) {
      throw new AssertionError();
    }
    return perOp;
  }

  private static double observe(
      PredictorBenchmark b, PredictorBenchmark.Cursor c, int n, ThreadMXBean mx) {
    long start = mx.getCurrentThreadCpuTime();
    int sink = 0;
    for (int i = 0; i < n; i++) {
      sink += b.observe(c).ordinal();
    }
    double perOp = (mx.getCurrentThreadCpuTime() - start) / (double) n;
    if (sink < 0) {
      throw new AssertionError();
    }
    return perOp;
  }

  private static double median(double[] v) {
    double[] s = v.clone();
    Arrays.sort(s);
    return s[s.length / 2];
  }

  private static double min(double[] v) {
    return Arrays.stream(v).min().orElse(Double.NaN);
  }

  private static double max(double[] v) {
    return Arrays.stream(v).max().orElse(Double.NaN);
  }
}
