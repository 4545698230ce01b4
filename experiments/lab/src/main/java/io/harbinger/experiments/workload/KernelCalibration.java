package io.harbinger.experiments.workload;

import io.harbinger.predictor.Ticker;
import java.util.Arrays;
import java.util.Objects;

/**
 * The measured cost of each CPU kernel on this machine, which turns a job's units into its planned
 * CPU milliseconds.
 *
 * <p>Example: with {@code resizeMsPerMegapixel = 10}, a 9-megapixel image is planned at 90 ms of
 * CPU.
 *
 * <p>Implementation notes: the CPU work generation and calibration of the original implementation's
 * production-flow benchmark. Each kernel runs five times on its calibration size (64 KiB render,
 * 50-item invoice, 2 MP resize, 20,000 words, 2 export chunks) and the median (the 3rd of 5 sorted)
 * over the size is its cost per unit. Five untimed warm-up runs per kernel precede the timed runs
 * so that the timings are of compiled code, as the handlers' are for most of a run (the original,
 * in C++, had no JIT to warm). The calibration only sets planned durations (which the oracle and
 * the sleeping handler use); CPU handlers do the real work.
 *
 * @param renderMsPerKib ms per KiB rendered, positive
 * @param invoiceMsPerItem ms per invoice item, positive
 * @param resizeMsPerMegapixel ms per megapixel resized, positive
 * @param reindexMsPerWord ms per word indexed, positive
 * @param exportMsPerChunk ms per 250,000-row export chunk, positive
 */
public record KernelCalibration(
    double renderMsPerKib,
    double invoiceMsPerItem,
    double resizeMsPerMegapixel,
    double reindexMsPerWord,
    double exportMsPerChunk) {

  /**
   * The midpoints of the typical calibration the original implementation reports for its machine
   * (the reference machine): for tests and for reproducing planned durations without measuring.
   */
  public static final KernelCalibration REFERENCE =
      new KernelCalibration(0.0055, 0.0465, 9.5, 9.0e-5, 22.5);

  private static final int RUNS = 5;
  private static final int WARMUP_RUNS = 5;

  /** Checks every cost is positive and finite. */
  public KernelCalibration {
    double[] all = {
      renderMsPerKib, invoiceMsPerItem, resizeMsPerMegapixel, reindexMsPerWord, exportMsPerChunk
    };
    for (double v : all) {
      if (!(v > 0 && Double.isFinite(v))) {
        throw new IllegalArgumentException(
            "kernel costs must be positive and finite: " + Arrays.toString(all));
      }
    }
  }

  /**
   * Returns the cost of one reported unit of a kernel.
   *
   * @param kernel the kernel
   * @return ms per KiB, item, MP, word or chunk; 0 for {@link Kernel#NONE}
   */
  public double msPerUnit(Kernel kernel) {
    return switch (kernel) {
      case NONE -> 0;
      case RENDER -> renderMsPerKib;
      case INVOICE -> invoiceMsPerItem;
      case RESIZE -> resizeMsPerMegapixel;
      case REINDEX -> reindexMsPerWord;
      case EXPORT -> exportMsPerChunk;
    };
  }

  /**
   * Returns the planned CPU time of a kernel run.
   *
   * @param kernel the kernel
   * @param units the kernel's units (pixels for RESIZE)
   * @return the planned milliseconds
   */
  public double cpuMillis(Kernel kernel, long units) {
    return msPerUnit(kernel) * units / kernel.unitsPerReportedUnit();
  }

  /**
   * Measures every kernel on this machine: one warm-up, then the median of five timed runs.
   *
   * @param ticker the clock the runs are timed with
   * @return the measured calibration
   */
  public static KernelCalibration measure(Ticker ticker) {
    Objects.requireNonNull(ticker, "ticker");
    return new KernelCalibration(
        measure(Kernel.RENDER, ticker),
        measure(Kernel.INVOICE, ticker),
        measure(Kernel.RESIZE, ticker),
        measure(Kernel.REINDEX, ticker),
        measure(Kernel.EXPORT, ticker));
  }

  /**
   * Measures one kernel: the median of five timed runs over its calibration size.
   *
   * @param kernel the kernel, not NONE
   * @param ticker the clock
   * @return ms per reported unit
   */
  static double measure(Kernel kernel, Ticker ticker) {
    if (kernel == Kernel.NONE) {
      throw new IllegalArgumentException("NONE has no cost to measure");
    }
    long units = kernel.calibrationUnits();
    long sink = 0;
    for (int i = 0; i < WARMUP_RUNS; i++) {
      sink += kernel.run(units, -i);
    }
    double[] millis = new double[RUNS];
    for (int i = 0; i < RUNS; i++) {
      long start = ticker.nanos();
      sink += kernel.run(units, i + 2);
      millis[i] = (ticker.nanos() - start) / 1e6;
    }
    Sink.consume(sink);
    Arrays.sort(millis);
    double reportedUnits = (double) units / kernel.unitsPerReportedUnit();
    return Math.max(millis[RUNS / 2], 1e-6) / reportedUnits;
  }
}
