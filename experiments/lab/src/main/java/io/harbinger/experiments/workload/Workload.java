package io.harbinger.experiments.workload;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SplittableRandom;

/**
 * A generated production-flow workload: every job of one run, in arrival order.
 *
 * <p>Example: {@code Workload.generate(WorkloadConfig.reference(11), KernelCalibration.REFERENCE)}
 * gives about 35,000 jobs over 300 s; the same seed always gives the same jobs (arrival times,
 * units, sleeps, failing webhooks), whatever the calibration, which only changes planned durations.
 *
 * <p>Implementation notes: the arrivals of the original implementation's production-flow benchmark.
 * Arrivals are open-loop Poisson per job type: times are drawn at the type's highest phase rate and
 * each is kept with probability (rate of the phase it falls in) / (highest rate). Each type has two
 * streams derived from the seed, one for arrival times and one for costs, so that one type's draws
 * never shift another's. All jobs are then sorted by time (ties by type) and numbered. The oracle
 * tier is the tertile of the planned duration over the whole workload (nearest-rank P33.3 and P66.7
 * of the sorted planned durations; a job at a boundary falls in the lower tier). With a time scale,
 * arrival times, sleeps and kernel units are divided by it (units rounded, at least 1), and planned
 * durations follow from the scaled values.
 *
 * @param config what the workload was generated from
 * @param calibration the kernel costs planned durations were computed with
 * @param jobs the jobs, in arrival order, numbered from 0
 */
public record Workload(WorkloadConfig config, KernelCalibration calibration, List<Job> jobs) {

  /** Checks the fields and copies the job list. */
  public Workload {
    Objects.requireNonNull(config, "config");
    Objects.requireNonNull(calibration, "calibration");
    jobs = List.copyOf(jobs);
  }

  /**
   * Generates the workload of a configuration.
   *
   * @param config the seed, window, rate and time scale
   * @param calibration the kernel costs that set planned durations
   * @return the workload
   */
  public static Workload generate(WorkloadConfig config, KernelCalibration calibration) {
    Objects.requireNonNull(config, "config");
    Objects.requireNonNull(calibration, "calibration");
    record Pending(double seconds, JobType type, Phase phase, JobType.Draw draw) {}
    List<Pending> pending = new ArrayList<>();
    for (JobType type : JobType.values()) {
      SplittableRandom arrivals = new SplittableRandom(streamSeed(config.seed(), type, 0));
      SplittableRandom costs = new SplittableRandom(streamSeed(config.seed(), type, 1));
      double max = type.maxRatePerSecond(config.rateScale());
      double t = 0;
      while (true) {
        t += -Math.log(1 - arrivals.nextDouble()) / max;
        if (t >= config.arrivalSeconds()) {
          break;
        }
        Phase phase = Phase.at(t / config.arrivalSeconds());
        double keep = type.ratePerSecond(phase, config.rateScale()) / max;
        if (arrivals.nextDouble() < keep) {
          pending.add(
              new Pending(
                  t, type, phase, type.draw(costs, phase, config.webhooks(), config.regime())));
        }
      }
    }
    pending.sort(
        Comparator.comparingDouble(Pending::seconds).thenComparing(p -> p.type().ordinal()));
    double scale = config.timeScale();
    List<Job> jobs = new ArrayList<>(pending.size());
    double[] planned = new double[pending.size()];
    for (int i = 0; i < pending.size(); i++) {
      Pending p = pending.get(i);
      long units = scaledUnits(p.type().kernel(), p.draw().units(), scale);
      double cpu = calibration.cpuMillis(p.type().kernel(), units);
      double sleep = p.draw().sleepMillis() / scale;
      double failed = p.draw().failedAttemptMillis() / scale;
      planned[i] = cpu + sleep + failed;
      long arrivalNanos = Math.round(p.seconds() * 1e9 / scale);
      jobs.add(new Job(i, p.type(), p.phase(), arrivalNanos, units, cpu, sleep, failed, 0, 0));
    }
    double[] sorted = planned.clone();
    Arrays.sort(sorted);
    double lowCut = sorted.length == 0 ? 0 : nearestRank(sorted, 100.0 / 3);
    double highCut = sorted.length == 0 ? 0 : nearestRank(sorted, 200.0 / 3);
    List<Job> tiered = new ArrayList<>(jobs.size());
    for (int i = 0; i < jobs.size(); i++) {
      Job j = jobs.get(i);
      int tier = planned[i] <= lowCut ? 0 : planned[i] <= highCut ? 1 : 2;
      tiered.add(
          new Job(
              j.seq(),
              j.type(),
              j.phase(),
              j.arrivalNanos(),
              j.units(),
              j.cpuMillis(),
              j.sleepMillis(),
              j.failedAttemptMillis(),
              planned[i],
              tier));
    }
    return new Workload(config, calibration, tiered);
  }

  /**
   * Returns the number of jobs of each type.
   *
   * @return counts by type, every type present
   */
  public Map<JobType, Integer> countsByType() {
    Map<JobType, Integer> counts = new EnumMap<>(JobType.class);
    for (JobType t : JobType.values()) {
      counts.put(t, 0);
    }
    for (Job j : jobs) {
      counts.merge(j.type(), 1, Integer::sum);
    }
    return counts;
  }

  /**
   * Returns the arrival window as run.
   *
   * @return the window in nanoseconds, after time scaling
   */
  public long arrivalWindowNanos() {
    return Math.round(config.arrivalSeconds() * 1e9 / config.timeScale());
  }

  static long streamSeed(long seed, JobType type, int stream) {
    long z = seed * 0x9E3779B97F4A7C15L + (type.ordinal() * 2L + stream + 1) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }

  private static long scaledUnits(Kernel kernel, long units, double scale) {
    if (kernel == Kernel.NONE || scale == 1) {
      return units;
    }
    return Math.max(1, Math.round(units / scale));
  }

  private static double nearestRank(double[] sorted, double percent) {
    int index = Math.max(0, (int) Math.ceil(sorted.length * percent / 100.0) - 1);
    return sorted[index];
  }
}
