package io.harbinger.experiments.bench;

import io.harbinger.experiments.workload.HandlerMode;
import io.harbinger.experiments.workload.Job;
import io.harbinger.experiments.workload.RunRecord;
import io.harbinger.experiments.workload.Service;
import io.harbinger.experiments.workload.Sleeper;
import io.harbinger.experiments.workload.Workload;
import io.harbinger.predictor.Ticker;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Runs one workload through one arm and records every message.
 *
 * <p>Example: {@code new BenchRunner(Ticker.SYSTEM, Sleeper.SYSTEM, Duration.ofSeconds(60),
 * System.err).run(BenchArms.byName("rabbitmq-fifo"), workload, HandlerMode.SLEEP, endpoints)}
 * starts the arm's four workers, publishes every job at its planned time from one thread per
 * service, waits until all have completed (at most 60 s after the arrival window), and returns the
 * run.
 *
 * <p>Implementation notes: the original implementation's production-flow runner. Five services
 * publish on their own thread and channel; each sleeps until origin + the job's arrival time
 * (origin = start + 500 ms) and publishes open loop: a late publisher never skips a job, it
 * publishes it at once. The submit time is taken just before the publish. The run drains until
 * every job has completed or the drain bound passes; a job that has not completed then is
 * dead-lettered if the broker says so, else lost. A progress line (carriage return, no newline)
 * goes out every second.
 *
 * <p>Not thread-safe: one run at a time per runner. {@link #run} blocks for the whole run.
 */
final class BenchRunner {

  /** The number of workers every arm runs. */
  static final int WORKERS = 4;

  private static final long ORIGIN_DELAY_NANOS = 500_000_000L;
  private static final long PROGRESS_NANOS = 1_000_000_000L;
  private static final long PUBLISHER_JOIN_MILLIS = 10_000;

  private final Ticker ticker;
  private final Sleeper sleeper;
  private final Duration maxDrain;
  private final PrintStream progress;

  /**
   * Creates a runner.
   *
   * @param ticker the clock of every recorded time and of the publish schedule
   * @param sleeper what publishers and handlers sleep with
   * @param maxDrain how long to wait for completion after the arrival window; positive
   * @param progress where the progress line goes
   */
  BenchRunner(Ticker ticker, Sleeper sleeper, Duration maxDrain, PrintStream progress) {
    this.ticker = Objects.requireNonNull(ticker, "ticker");
    this.sleeper = Objects.requireNonNull(sleeper, "sleeper");
    this.progress = Objects.requireNonNull(progress, "progress");
    if (maxDrain.isNegative() || maxDrain.isZero()) {
      throw new IllegalArgumentException("maxDrain must be positive: " + maxDrain);
    }
    this.maxDrain = maxDrain;
  }

  /**
   * Runs a workload through an arm.
   *
   * @param arm the arm
   * @param workload the jobs
   * @param mode how handlers spend each job's time
   * @param endpoints where RabbitMQ and Redis are
   * @return the run, one record per job
   * @throws Exception when the arm cannot start
   */
  RunRecord run(BenchArm arm, Workload workload, HandlerMode mode, Endpoints endpoints)
      throws Exception {
    Tracker tracker = new Tracker(workload.jobs(), mode.create(sleeper, ticker), ticker);
    Map<Service, List<Job>> byService = new EnumMap<>(Service.class);
    for (Job job : workload.jobs()) {
      byService.computeIfAbsent(job.service(), s -> new ArrayList<>()).add(job);
    }
    String label = arm.name() + " seed " + workload.config().seed();
    AtomicLong submitErrors = new AtomicLong();
    Map<String, String> attributes = new LinkedHashMap<>();
    Set<Integer> deadLettered = new HashSet<>();
    long runStart = ticker.nanos();
    boolean allDone;
    try (BenchArm.Session session = arm.open(endpoints, workload, tracker)) {
      long origin = ticker.nanos() + ORIGIN_DELAY_NANOS;
      List<Thread> publishers = new ArrayList<>();
      for (Map.Entry<Service, List<Job>> e : byService.entrySet()) {
        BenchArm.Publisher publisher = session.publisher(e.getKey());
        List<Job> jobs = e.getValue();
        publishers.add(
            Thread.ofPlatform()
                .name("bench-publish-" + e.getKey().wireName())
                .start(() -> publishAll(publisher, jobs, origin, tracker, submitErrors)));
      }
      long drainDeadline = origin + workload.arrivalWindowNanos() + maxDrain.toNanos();
      allDone = false;
      while (!allDone) {
        allDone = tracker.awaitAll(PROGRESS_NANOS);
        long now = ticker.nanos();
        printProgress(label, tracker, workload.jobs().size(), now - runStart);
        boolean publishing = publishers.stream().anyMatch(Thread::isAlive);
        if (!publishing && now >= drainDeadline) {
          break;
        }
      }
      for (Thread t : publishers) {
        t.join(PUBLISHER_JOIN_MILLIS);
      }
      if (!allDone) {
        for (byte[] body : session.deadLettered()) {
          int seq = Tracker.seqOf(body);
          if (seq >= 0) {
            deadLettered.add(seq);
          }
        }
      }
      attributes.putAll(session.attributes());
    }
    progress.println();
    progress.flush();
    attributes.put("wall_seconds", format((ticker.nanos() - runStart) / 1e9));
    attributes.put("duplicate_deliveries", Long.toString(tracker.duplicates()));
    attributes.put("unknown_bodies", Long.toString(tracker.unknownBodies()));
    attributes.put("handler_errors", Long.toString(tracker.handlerErrors()));
    attributes.put("workers", Integer.toString(WORKERS));
    attributes.put("prefetch", "1");
    attributes.put("drained", Boolean.toString(allDone));
    return new RunRecord(
        arm.name(),
        workload.config().seed(),
        mode,
        workload.config(),
        submitErrors.get(),
        attributes,
        tracker.records(deadLettered));
  }

  private void publishAll(
      BenchArm.Publisher publisher,
      List<Job> jobs,
      long origin,
      Tracker tracker,
      AtomicLong submitErrors) {
    for (Job job : jobs) {
      try {
        long waitNanos = origin + job.arrivalNanos() - ticker.nanos();
        if (waitNanos > 0) {
          sleeper.sleep(waitNanos);
        }
        tracker.submitted(job);
        publisher.publish(job);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      } catch (Exception e) {
        submitErrors.incrementAndGet();
      }
    }
  }

  private void printProgress(String label, Tracker tracker, int total, long elapsedNanos) {
    progress.printf(
        Locale.ROOT,
        "\r%-40s %5.0f s  published %d/%d  completed %d  in flight %d   ",
        label,
        elapsedNanos / 1e9,
        tracker.published(),
        total,
        tracker.completed(),
        tracker.published() - tracker.completed());
    progress.flush();
  }

  private static String format(double value) {
    return String.format(Locale.ROOT, "%.1f", value);
  }
}
