package io.harbinger.scheduler;

import java.util.function.IntConsumer;

/**
 * The L FIFO level queues of a {@link LevelScheduler}, with a per-level count of promoted jobs.
 *
 * <p>Level 0 is served first. A job is promoted while its level is above (numerically below) its
 * original level; retried jobs are back at their original level and are not counted, as in the
 * original implementation. Within a level, placement times never decrease from head to tail,
 * because every path that adds at the tail stamps the current time and the only path that adds at
 * the head puts back the job that was just taken from there; {@link Aging} relies on this.
 *
 * <p>Not thread-safe.
 */
final class LevelQueues implements AgingLevels<QueuedJob> {

  private final JobDeque[] queues;
  private final int[] promoted;
  private final IntConsumer onActivated;
  private int nonEmptyMask;

  LevelQueues(int levels, IntConsumer onActivated) {
    this.queues = new JobDeque[levels];
    for (int i = 0; i < levels; i++) {
      queues[i] = new JobDeque();
    }
    this.promoted = new int[levels];
    this.onActivated = onActivated;
  }

  @Override
  public int levels() {
    return queues.length;
  }

  /**
   * Returns the number of jobs waiting at a level.
   *
   * @param level in [0, levels)
   * @return the count
   */
  int size(int level) {
    return queues[level].size();
  }

  @Override
  public boolean isEmpty(int level) {
    return (nonEmptyMask & (1 << level)) == 0;
  }

  /**
   * Returns a bit mask of the non-empty levels: bit i is set when level i holds a job.
   *
   * @return the mask
   */
  int nonEmptyMask() {
    return nonEmptyMask;
  }

  @Override
  public int promoted(int level) {
    return promoted[level];
  }

  @Override
  public QueuedJob head(int level) {
    return queues[level].peekFirst();
  }

  @Override
  public QueuedJob next(QueuedJob job) {
    return job.next;
  }

  @Override
  public long arrivalNanos(QueuedJob job) {
    return job.arrivalNanos;
  }

  @Override
  public long placedNanos(QueuedJob job) {
    return job.enqueueNanos;
  }

  @Override
  public boolean isExpired(QueuedJob job, long nowNanos) {
    return job.isExpired(nowNanos);
  }

  void addLast(QueuedJob job) {
    add(job, false);
  }

  void addFirst(QueuedJob job) {
    add(job, true);
  }

  private void add(QueuedJob job, boolean front) {
    int level = job.level;
    JobDeque queue = queues[level];
    if (front) {
      queue.addFirst(job);
    } else {
      queue.addLast(job);
    }
    if (job.level < job.originalLevel) {
      promoted[level]++;
    }
    int bit = 1 << level;
    if ((nonEmptyMask & bit) == 0) {
      nonEmptyMask |= bit;
      onActivated.accept(level);
    }
  }

  void remove(QueuedJob job) {
    int level = job.level;
    JobDeque queue = queues[level];
    queue.unlink(job);
    if (job.level < job.originalLevel) {
      promoted[level]--;
    }
    if (queue.isEmpty()) {
      nonEmptyMask &= ~(1 << level);
    }
  }

  QueuedJob pollFirst(int level) {
    QueuedJob job = queues[level].peekFirst();
    if (job != null) {
      remove(job);
    }
    return job;
  }

  @Override
  public void promote(QueuedJob job, long nowNanos) {
    assert job.level > 0 : "level 0 has no level above: " + job;
    remove(job);
    job.level--;
    job.enqueueNanos = nowNanos;
    addLast(job);
  }
}
