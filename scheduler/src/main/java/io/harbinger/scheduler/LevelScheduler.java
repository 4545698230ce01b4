package io.harbinger.scheduler;

import io.harbinger.predictor.Ticker;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * L FIFO levels served by a {@link LevelSelector}, with {@link Aging} (seed paper sections 3.2, 3.6
 * and 3.7, with the original implementation's aging and weighted selection).
 *
 * <p>Example: three levels, weights (8, 3, 1), pausing aging at 5 s. A job routed to level 2 waits
 * at the tail of level 2; a pull takes the head of the level with the smallest virtual clock and
 * charges it the job's predicted cost, else the level's average acknowledged duration, else 1 ms.
 * After 5 s of waiting the job moves to the tail of level 1, unless level 1 is behind.
 *
 * <p>Implementation notes: selection and pricing are a {@link LevelArbiter}'s, over the mask of
 * non-empty levels. The cost average is keyed by the level a job was pulled from, as in the
 * original implementation; it is kept whatever the selector, but only weighted selection uses it. A
 * refund on {@link #requeueFront} restores the clock and the counters exactly.
 *
 * <p>Not thread-safe; see {@link Scheduler}.
 */
public final class LevelScheduler implements Scheduler {

  private final Ticker ticker;
  private final LevelArbiter arbiter;
  private final Aging aging;
  private final LevelQueues queues;
  private final long[] pulls;
  private final double[] chargedMillis;
  private int size;

  /**
   * Creates a scheduler.
   *
   * @param levels the number of levels, in [2, 10]
   * @param selector the selection policy; a weighted one must have one weight per level
   * @param aging the aging policy
   * @param ticker the clock
   */
  public LevelScheduler(int levels, LevelSelector selector, Aging aging, Ticker ticker) {
    this.arbiter = new LevelArbiter(levels, selector);
    this.aging = Objects.requireNonNull(aging, "aging");
    this.ticker = Objects.requireNonNull(ticker, "ticker");
    this.queues = new LevelQueues(levels, arbiter::activated);
    this.pulls = new long[levels];
    this.chargedMillis = new double[levels];
  }

  @Override
  public int levels() {
    return queues.levels();
  }

  @Override
  public void submit(QueuedJob job) {
    if (job.level < 0 || job.level >= queues.levels()) {
      throw new IllegalArgumentException(
          "job level must be in [0, " + queues.levels() + "): " + job.level);
    }
    if (job.deque != null) {
      throw new IllegalStateException("job is already queued: " + job);
    }
    long now = ticker.nanos();
    job.arrivalNanos = now;
    job.enqueueNanos = now;
    queues.addLast(job);
    size++;
  }

  @Override
  public QueuedJob poll() {
    int level = arbiter.next(queues.nonEmptyMask());
    if (level < 0) {
      return null;
    }
    QueuedJob job = queues.pollFirst(level);
    size--;
    double cost = arbiter.started(level, job.costNanos);
    job.pulledLevel = level;
    job.chargedMillis = cost;
    pulls[level]++;
    chargedMillis[level] += cost;
    return job;
  }

  @Override
  public void requeueFront(QueuedJob job) {
    int level = job.pulledLevel;
    if (job.deque != null || level < 0 || level != job.level) {
      throw new IllegalStateException("only a job just polled can be put back: " + job);
    }
    arbiter.putBack(level, job.chargedMillis);
    pulls[level]--;
    chargedMillis[level] -= job.chargedMillis;
    job.chargedMillis = 0;
    queues.addFirst(job);
    size++;
  }

  @Override
  public void retry(QueuedJob job) {
    if (job.deque != null) {
      throw new IllegalStateException("job is already queued: " + job);
    }
    job.level = job.originalLevel;
    job.enqueueNanos = ticker.nanos();
    queues.addLast(job);
    size++;
  }

  @Override
  public boolean remove(QueuedJob job) {
    if (job.deque == null || job.level < 0 || job.level >= queues.levels()) {
      return false;
    }
    queues.remove(job);
    size--;
    return true;
  }

  @Override
  public int age() {
    return aging.pass(queues, ticker.nanos());
  }

  @Override
  public void completed(QueuedJob job, double durationNanos) {
    if (job.pulledLevel >= 0 && job.pulledLevel < queues.levels()) {
      arbiter.finished(job.pulledLevel, durationNanos);
    }
  }

  @Override
  public int size() {
    return size;
  }

  @Override
  public int size(int level) {
    return queues.size(level);
  }

  @Override
  public int promoted(int level) {
    return queues.promoted(level);
  }

  @Override
  public SchedulerStats stats() {
    int levels = queues.levels();
    List<Long> p = new ArrayList<>(levels);
    List<Double> c = new ArrayList<>(levels);
    List<Double> a = new ArrayList<>(levels);
    List<Integer> w = new ArrayList<>(levels);
    List<Integer> pr = new ArrayList<>(levels);
    for (int i = 0; i < levels; i++) {
      p.add(pulls[i]);
      c.add(chargedMillis[i]);
      a.add(arbiter.averageCostMillis(i));
      w.add(queues.size(i));
      pr.add(queues.promoted(i));
    }
    return new SchedulerStats(p, c, a, w, pr);
  }

  @Override
  public String toString() {
    return "LevelScheduler[levels="
        + queues.levels()
        + ", "
        + arbiter.selector()
        + ", "
        + aging
        + "]";
  }
}
