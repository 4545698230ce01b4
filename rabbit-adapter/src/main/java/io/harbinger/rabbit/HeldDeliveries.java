package io.harbinger.rabbit;

import io.harbinger.scheduler.AgingLevels;
import java.util.ArrayDeque;
import java.util.function.IntConsumer;

/**
 * The deliveries a lanes consumer holds, one FIFO per level, as the scheduling core's {@link
 * io.harbinger.scheduler.Aging} sees them: heads only ({@link #next} is null), which is all that
 * pausing aging ever promotes.
 *
 * <p>A delivery waits at its lane's level, or above it once promoted; its arrival and placement
 * times are when it reached this consumer and when it was last placed. Nothing expires here:
 * RabbitMQ applies TTL at the lane's head before delivering.
 *
 * <p>Not thread-safe: used under its lanes consumer's lock ({@link LaneDispatch}).
 */
final class HeldDeliveries implements AgingLevels<LaneJob> {

  private final ArrayDeque<LaneJob>[] queues;
  private final int[] promoted;
  private final IntConsumer onLevelFilled;
  private int nonEmptyMask;
  private int size;

  @SuppressWarnings("unchecked")
  HeldDeliveries(int levels, IntConsumer onLevelFilled) {
    queues = new ArrayDeque[levels];
    for (int i = 0; i < levels; i++) {
      queues[i] = new ArrayDeque<>();
    }
    promoted = new int[levels];
    this.onLevelFilled = onLevelFilled;
  }

  /** Adds a delivery at the tail of its level. */
  void add(LaneJob job) {
    int level = job.level;
    queues[level].addLast(job);
    size++;
    if (job.level < job.lane) {
      promoted[level]++;
    }
    int bit = 1 << level;
    if ((nonEmptyMask & bit) == 0) {
      nonEmptyMask |= bit;
      onLevelFilled.accept(level);
    }
  }

  /** Takes the head of a level, or null. */
  LaneJob poll(int level) {
    LaneJob job = queues[level].pollFirst();
    if (job == null) {
      return null;
    }
    size--;
    if (job.level < job.lane) {
      promoted[level]--;
    }
    if (queues[level].isEmpty()) {
      nonEmptyMask &= ~(1 << level);
    }
    return job;
  }

  /** Returns the bit mask of the levels that hold a delivery. */
  int nonEmptyMask() {
    return nonEmptyMask;
  }

  /** Returns how many deliveries are held. */
  int size() {
    return size;
  }

  /** Returns the lowest delivery tag held, or {@link Long#MAX_VALUE} when nothing is held. */
  long lowestTag() {
    long lowest = Long.MAX_VALUE;
    for (ArrayDeque<LaneJob> queue : queues) {
      for (LaneJob job : queue) {
        lowest = Math.min(lowest, job.envelope.getDeliveryTag());
      }
    }
    return lowest;
  }

  /** Forgets every held delivery and returns how many there were. */
  int clear() {
    int n = size;
    for (int i = 0; i < queues.length; i++) {
      queues[i].clear();
      promoted[i] = 0;
    }
    nonEmptyMask = 0;
    size = 0;
    return n;
  }

  @Override
  public int levels() {
    return queues.length;
  }

  @Override
  public boolean isEmpty(int level) {
    return (nonEmptyMask & (1 << level)) == 0;
  }

  @Override
  public int promoted(int level) {
    return promoted[level];
  }

  @Override
  public LaneJob head(int level) {
    return queues[level].peekFirst();
  }

  @Override
  public LaneJob next(LaneJob job) {
    return null;
  }

  @Override
  public long arrivalNanos(LaneJob job) {
    return job.receivedNanos;
  }

  @Override
  public long placedNanos(LaneJob job) {
    return job.placedNanos;
  }

  @Override
  public boolean isExpired(LaneJob job, long nowNanos) {
    return false;
  }

  @Override
  public void promote(LaneJob job, long nowNanos) {
    assert job.level > 0 && queues[job.level].peekFirst() == job : "only a head above 0: " + job;
    poll(job.level);
    job.level--;
    job.placedNanos = nowNanos;
    add(job);
  }
}
