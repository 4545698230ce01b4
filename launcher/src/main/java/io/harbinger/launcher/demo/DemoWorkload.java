package io.harbinger.launcher.demo;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The demonstration's job mix and arrival schedule: four job types from cheap to expensive, Poisson
 * arrivals at 70% of four workers' capacity, a burst at 135% and a recovery at 60%.
 *
 * <p>With the shares and durations below a job costs 0.45·4 + 0.25·10 + 0.20·40 + 0.10·700 = 82.3
 * ms on average, so four workers serve about 48.6 jobs a second. The burst builds a backlog of a
 * few hundred jobs, which is when cheap jobs wait behind expensive ones. The schedule is the same
 * for every run with the same seed.
 */
final class DemoWorkload {

  /** One job type: its name, its handler time and its share of arrivals. */
  record JobType(String name, long handlerMillis, double share) {}

  /** One planned job: when it is published (from the run's start) and its type. */
  record Job(int seq, long atNanos, JobType type) {}

  static final List<JobType> TYPES =
      List.of(
          new JobType("reserve_inventory", 4, 0.45),
          new JobType("push_notification", 10, 0.25),
          new JobType("send_email", 40, 0.20),
          new JobType("export_report", 700, 0.10));

  /** The job types whose latency is reported as "short-job": the two cheapest. */
  static final List<String> SHORT = List.of("reserve_inventory", "push_notification");

  static final int WORKERS = 4;

  private DemoWorkload() {}

  static double meanCostMillis() {
    return TYPES.stream().mapToDouble(t -> t.share() * t.handlerMillis()).sum();
  }

  /**
   * Plans the arrivals of one run.
   *
   * @param seed the seed; the same seed gives the same jobs
   * @param timeScale multiplies every phase's length and every handler's time, keeping the load and
   *     the number of jobs (1 = about 35 seconds of arrivals)
   * @return the jobs in publish order
   */
  static List<Job> plan(long seed, double timeScale) {
    double capacity = WORKERS * 1000 / meanCostMillis();
    double[][] phases = {{10, 0.70}, {15, 1.35}, {10, 0.60}}; // seconds, load
    SplittableRandom random = new SplittableRandom(seed);
    List<Job> jobs = new ArrayList<>();
    double t = 0;
    double phaseStart = 0;
    for (double[] phase : phases) {
      double end = phaseStart + phase[0] * timeScale;
      double rate = capacity * phase[1] / timeScale;
      while (true) {
        t += -Math.log(1 - random.nextDouble()) / rate;
        if (t >= end) {
          t = end;
          break;
        }
        jobs.add(new Job(jobs.size(), (long) (t * 1e9), pick(random.nextDouble())));
      }
      phaseStart = end;
    }
    return jobs;
  }

  private static JobType pick(double u) {
    double cumulative = 0;
    for (JobType type : TYPES) {
      cumulative += type.share();
      if (u < cumulative) {
        return type;
      }
    }
    return TYPES.get(TYPES.size() - 1);
  }
}
