package io.harbinger.broker.sched;

import java.util.function.IntConsumer;

/**
 * The L FIFO level queues of a {@link LevelScheduler}, with a per-level count of promoted jobs.
 *
 * <p>Level 0 is served first. A job is promoted while its level is above (numerically below) its
 * original level; retried jobs are back at their original level and are not counted (reference
 * section 2.6). Within a level, placement times never decrease from head to tail, because every
 * path that adds at the tail stamps the current time and the only path that adds at the head puts
 * back the job that was just taken from there; {@link Aging} relies on this.
 *
 * <p>Not thread-safe.
 */
public final class LevelQueues {

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

  /** Returns the number of levels. */
  public int levels() {
    return queues.length;
  }

  /**
   * Returns the number of jobs waiting at a level.
   *
   * @param level in [0, levels)
   * @return the count
   */
  public int size(int level) {
    return queues[level].size();
  }

  /**
   * Returns whether a level is empty.
   *
   * @param level in [0, levels)
   * @return true when nothing waits there
   */
  public boolean isEmpty(int level) {
    return (nonEmptyMask & (1 << level)) == 0;
  }

  /**
   * Returns a bit mask of the non-empty levels: bit i is set when level i holds a job.
   *
   * @return the mask
   */
  public int nonEmptyMask() {
    return nonEmptyMask;
  }

  /**
   * Returns how many promoted jobs wait at a level.
   *
   * @param level in [0, levels)
   * @return the count
   */
  public int promoted(int level) {
    return promoted[level];
  }

  /**
   * Returns the oldest job at a level.
   *
   * @param level in [0, levels)
   * @return its head, or null when empty
   */
  public Job head(int level) {
    return queues[level].peekFirst();
  }

  void addLast(Job job) {
    add(job, false);
  }

  void addFirst(Job job) {
    add(job, true);
  }

  private void add(Job job, boolean front) {
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

  void remove(Job job) {
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

  Job pollFirst(int level) {
    Job job = queues[level].peekFirst();
    if (job != null) {
      remove(job);
    }
    return job;
  }

  /**
   * Moves a queued job to the tail of the level above and restarts its wait.
   *
   * @param job a job waiting at a level above 0... that is, at a level greater than 0
   * @param nowNanos the current ticker reading, its new placement time
   */
  void promote(Job job, long nowNanos) {
    assert job.level > 0 : "level 0 has no level above: " + job;
    remove(job);
    job.level--;
    job.enqueueNanos = nowNanos;
    addLast(job);
  }
}
