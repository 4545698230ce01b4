package io.harbinger.experiments.workload;

import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;
import java.util.SplittableRandom;

/**
 * The rate scale that loads this machine's workers like the reference run loaded its own, with the
 * expected utilisation of every phase.
 *
 * <p>Example: if the steady phase offers, at rate scale 1, 1.2 s of planned handler time per second
 * to 4 workers (30%), the rate scale for a 60% steady phase is 2.0, and a flash sale offering 2.6 s
 * per second at rate scale 1 is then expected at 130%.
 *
 * <p>Implementation notes: the original implementation's kernel calibration and phases, and seed
 * paper section 4 ("a steady phase at about sixty percent utilisation, a flash-sale overload at
 * about one hundred twenty-five percent"). The reference machine reached that with rate scale 1.8;
 * a slower machine needs a lower one, because job sizes are fixed and a slower CPU means heavier
 * load (the benchmarks page's "why effect sizes move between machines"). The expected planned time
 * per job of each type and phase is a Monte-Carlo mean over {@value #DRAWS} draws of the cost model
 * with a fixed seed, priced with the measured kernel costs. Utilisation = rate scale x sum over
 * types of (rate x mean planned time) / workers. One parameter cannot set two phases: the rate
 * scale fixes the steady phase at the target, and the flash sale's utilisation follows from the
 * phase multipliers and this machine's mix of CPU and I/O. The CPU demand is also given per core:
 * with CPU handlers, 4 workers share the machine's cores, so where CPU demand exceeds the cores,
 * planned durations underestimate real ones and the real utilisation is higher than computed.
 *
 * @param kernels the kernel costs used
 * @param workers the number of workers, at least 1
 * @param cores the number of CPU cores the handlers share, at least 1
 * @param steadyTarget the target utilisation of the steady phase, in (0, 2]
 * @param rateScale the rate scale that meets the steady target
 * @param utilisation expected worker utilisation per phase (planned handler time / workers)
 * @param cpuPerCore expected CPU demand per core per phase (kernel time / cores)
 * @param cpuShare the share of planned handler time that is CPU work, per phase
 * @param totalPerSecondAtScaleOne planned handler ms offered per second at rate scale 1, per phase
 */
public record Calibration(
    KernelCalibration kernels,
    int workers,
    int cores,
    double steadyTarget,
    double rateScale,
    Map<Phase, Double> utilisation,
    Map<Phase, Double> cpuPerCore,
    Map<Phase, Double> cpuShare,
    Map<Phase, Double> totalPerSecondAtScaleOne) {

  /** The draws per (type, phase) of the Monte-Carlo means. */
  public static final int DRAWS = 20_000;

  /** The reference's target for the steady phase. */
  public static final double STEADY_TARGET = 0.60;

  /** The reference's expected flash-sale utilisation. */
  public static final double FLASH_TARGET = 1.25;

  /** Checks the fields and copies the maps. */
  public Calibration {
    Objects.requireNonNull(kernels, "kernels");
    if (workers < 1 || cores < 1) {
      throw new IllegalArgumentException(
          "workers and cores must be at least 1: " + workers + ", " + cores);
    }
    utilisation = Collections.unmodifiableMap(new EnumMap<>(utilisation));
    cpuPerCore = Collections.unmodifiableMap(new EnumMap<>(cpuPerCore));
    cpuShare = Collections.unmodifiableMap(new EnumMap<>(cpuShare));
    totalPerSecondAtScaleOne = Collections.unmodifiableMap(new EnumMap<>(totalPerSecondAtScaleOne));
  }

  /**
   * Computes the rate scale for a steady-phase target and the utilisation it gives every phase.
   *
   * @param kernels the measured kernel costs
   * @param workers the worker count (4 in the reference)
   * @param cores the cores CPU handlers share
   * @param steadyTarget the steady-phase utilisation, in (0, 2]
   * @return the calibration
   */
  public static Calibration compute(
      KernelCalibration kernels, int workers, int cores, double steadyTarget) {
    Objects.requireNonNull(kernels, "kernels");
    if (!(steadyTarget > 0 && steadyTarget <= 2)) {
      throw new IllegalArgumentException("steadyTarget must be in (0, 2]: " + steadyTarget);
    }
    if (workers < 1 || cores < 1) {
      throw new IllegalArgumentException(
          "workers and cores must be at least 1: " + workers + ", " + cores);
    }
    Map<Phase, Double> total = new EnumMap<>(Phase.class);
    Map<Phase, Double> cpu = new EnumMap<>(Phase.class);
    for (Phase phase : Phase.values()) {
      double totalMs = 0;
      double cpuMs = 0;
      for (JobType type : JobType.values()) {
        double[] means = meanMillis(type, phase, kernels);
        double rate = type.ratePerSecond(phase, 1.0);
        totalMs += rate * means[0];
        cpuMs += rate * means[1];
      }
      total.put(phase, totalMs);
      cpu.put(phase, cpuMs);
    }
    double rateScale = steadyTarget * workers * 1000 / total.get(Phase.STEADY);
    Map<Phase, Double> util = new EnumMap<>(Phase.class);
    Map<Phase, Double> perCore = new EnumMap<>(Phase.class);
    Map<Phase, Double> share = new EnumMap<>(Phase.class);
    for (Phase phase : Phase.values()) {
      util.put(phase, rateScale * total.get(phase) / (workers * 1000.0));
      perCore.put(phase, rateScale * cpu.get(phase) / (cores * 1000.0));
      share.put(phase, cpu.get(phase) / total.get(phase));
    }
    return new Calibration(
        kernels, workers, cores, steadyTarget, rateScale, util, perCore, share, total);
  }

  /**
   * Returns the expected planned and CPU milliseconds of one job.
   *
   * @param type the job type
   * @param phase the phase (the shifted phase changes resize and webhook costs)
   * @param kernels the kernel costs
   * @return {@code {mean planned ms, mean CPU ms}}
   */
  static double[] meanMillis(JobType type, Phase phase, KernelCalibration kernels) {
    SplittableRandom random =
        new SplittableRandom(2026L * 31 + type.ordinal() * 7L + phase.ordinal());
    double planned = 0;
    double cpu = 0;
    for (int i = 0; i < DRAWS; i++) {
      JobType.Draw d = type.draw(random, phase);
      double c = kernels.cpuMillis(type.kernel(), d.units());
      cpu += c;
      planned += c + d.sleepMillis() + d.failedAttemptMillis();
    }
    return new double[] {planned / DRAWS, cpu / DRAWS};
  }
}
