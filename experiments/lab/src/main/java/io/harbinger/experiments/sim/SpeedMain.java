package io.harbinger.experiments.sim;

import io.harbinger.check.sim.SimInput;
import io.harbinger.check.sim.SimulatedArm;
import io.harbinger.check.sim.Simulator;
import io.harbinger.check.trace.Trace;
import io.harbinger.check.trace.TraceException;
import io.harbinger.check.trace.TraceFormat;
import java.util.List;
import java.util.Locale;

/**
 * Measures the simulator's speed: simulated evaluation jobs per second of wall-clock time, for FIFO
 * and for the warm predictive arms, on a synthetic trace.
 *
 * <p>Usage: {@code SpeedMain [TRACE] [REPEATS]}, by default {@code
 * synthetic:seed=1,jobs=4000000,keys=1000} and 3 repeats, at load 0.95 on 64 workers. Each arm runs
 * once to warm the JIT, then {@code REPEATS} times; the best and median rates are printed. A timed
 * run is the whole of {@link Simulator#run}, so for {@code predictive_warm} it includes the
 * predictor's pass over the history, and the rate counts evaluation jobs only.
 */
public final class SpeedMain {

  private SpeedMain() {}

  /**
   * Runs the measurement.
   *
   * @param args optional trace specification and repeat count
   * @throws TraceException when the trace cannot be read
   */
  public static void main(String[] args) throws TraceException {
    String spec = args.length > 0 ? args[0] : "synthetic:seed=1,jobs=4000000,keys=1000";
    int repeats = args.length > 1 ? Integer.parseInt(args[1]) : 3;
    Trace trace = TraceFormat.read(spec);
    SimInput input = SimInput.atLoad(trace, trace.size() / 2, 64, 0.95);
    System.out.printf(
        Locale.ROOT,
        "%s: %,d evaluation jobs, 64 workers, load 0.95, %s%n",
        spec,
        input.evaluationJobs(),
        Runtime.version());
    for (String name :
        List.of(
            "fifo", "oracle", "predictive_cold", "predictive_warm", "predictive_warm+weights")) {
      SimulatedArm arm = SimulatedArm.parse(name);
      Simulator.run(input, arm, 1);
      double[] rates = new double[repeats];
      for (int r = 0; r < repeats; r++) {
        long t0 = System.nanoTime();
        Simulator.run(input, arm, 1);
        rates[r] = input.evaluationJobs() / ((System.nanoTime() - t0) / 1e9);
      }
      java.util.Arrays.sort(rates);
      System.out.printf(
          Locale.ROOT,
          "%-32s best %,12.0f jobs/s   median %,12.0f jobs/s%n",
          arm.name(),
          rates[repeats - 1],
          rates[repeats / 2]);
    }
  }
}
