package io.harbinger.rabbit;

import io.harbinger.predictor.Ticker;
import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;

/**
 * The bounded buffer of a {@link ReportPublisher}: reports wait here for their batch, and what does
 * not fit is dropped and counted, both in the publisher's dropped count and as drops that a later
 * batch declares ({@code dropped_since_last}), at most {@link ReportIngestor#MAX_DECLARED_DROPS}
 * per batch, the rest carried to the batches after it.
 *
 * <p>Assumptions and guarantees: {@link #offer} never blocks beyond the buffer's own short lock, so
 * a handler or an acknowledgement never waits for a report. One sender thread takes batches with
 * {@link #next}, which waits until a batch is full or its flush interval has passed, and while
 * nothing may be published; {@link #wake} makes it look again at once.
 */
final class ReportBuffer {

  private final ReentrantLock lock = new ReentrantLock();
  private final Condition changed = lock.newCondition();
  private final ArrayDeque<DurationReport> reports;
  private final int capacity;
  private final int batchSize;
  private final long flushIntervalNanos;
  private final Ticker ticker;
  private final LongAdder dropped;
  private long undeclaredDrops; // guarded by lock
  private long dropsForNextReports; // guarded by lock
  private boolean open = true; // guarded by lock
  private long deadline; // guarded by lock

  /**
   * Creates a buffer.
   *
   * @param capacity the reports it holds, at least 1
   * @param batchSize the most reports per batch, at least 1
   * @param flushIntervalNanos the longest a report waits for its batch, positive
   * @param ticker the monotonic clock of flush deadlines
   * @param dropped the publisher's count of dropped reports
   */
  ReportBuffer(
      int capacity, int batchSize, long flushIntervalNanos, Ticker ticker, LongAdder dropped) {
    this.capacity = capacity;
    this.batchSize = batchSize;
    this.flushIntervalNanos = flushIntervalNanos;
    this.ticker = ticker;
    this.dropped = dropped;
    reports = new ArrayDeque<>(Math.min(capacity, 1 << 16));
    deadline = ticker.nanos() + flushIntervalNanos;
  }

  /** Buffers a report, or drops and counts it when the buffer is full or closed; never blocks. */
  void offer(DurationReport report) {
    lock.lock();
    try {
      if (report == null || !open || reports.size() >= capacity) {
        dropped.increment();
        undeclaredDrops++;
        return;
      }
      reports.addLast(report);
      if (reports.size() == batchSize) {
        changed.signal();
      }
    } finally {
      lock.unlock();
    }
  }

  /** Returns the reports waiting. */
  int size() {
    lock.lock();
    try {
      return reports.size();
    } finally {
      lock.unlock();
    }
  }

  /** Adds drops for a later batch to declare: those of a batch that was lost. */
  void carry(long drops) {
    lock.lock();
    try {
      undeclaredDrops += drops;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Adds drops for the next batch with reports to declare: those of a batch that reached no queue.
   * They do not make a batch of their own, which would reach no queue either, again and again at
   * every flush interval while nothing is bound to the reports exchange.
   */
  void carryWithNextReports(long drops) {
    lock.lock();
    try {
      dropsForNextReports += drops;
    } finally {
      lock.unlock();
    }
  }

  /** Makes a waiting sender look again: the buffer was closed or publishing became possible. */
  void wake() {
    lock.lock();
    try {
      changed.signalAll();
    } finally {
      lock.unlock();
    }
  }

  /**
   * Closes the buffer: later reports are dropped, and the sender's next {@link #next} ends.
   *
   * @return false when it was already closed
   */
  boolean close() {
    lock.lock();
    try {
      boolean was = open;
      open = false;
      changed.signalAll();
      return was;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Waits for the next batch and moves its reports into {@code batch}: when a batch is full, or the
   * flush interval has passed with anything to send (reports or undeclared drops), and only while
   * {@code canPublish} holds.
   *
   * @param batch an empty list the reports are added to
   * @param canPublish whether a batch may be published now
   * @return the drops the batch declares, or -1 once the buffer is closed
   * @throws InterruptedException when the sender is interrupted
   */
  long next(List<DurationReport> batch, BooleanSupplier canPublish) throws InterruptedException {
    lock.lock();
    try {
      while (open) {
        long now = ticker.nanos();
        if (!canPublish.getAsBoolean()) {
          changed.awaitNanos(flushIntervalNanos);
          continue;
        }
        if (reports.size() < batchSize && now - deadline < 0) {
          changed.awaitNanos(deadline - now);
          continue;
        }
        deadline = now + flushIntervalNanos;
        if (!reports.isEmpty() || undeclaredDrops != 0) {
          return take(batch);
        }
      }
      return -1;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Moves the next batch into {@code batch} at once, after the buffer was closed, while there is
   * anything to send and {@code canPublish} holds.
   *
   * @return the drops the batch declares, or -1 when nothing is left or nothing may be published
   */
  long drain(List<DurationReport> batch, BooleanSupplier canPublish) {
    lock.lock();
    try {
      if ((reports.isEmpty() && undeclaredDrops == 0) || !canPublish.getAsBoolean()) {
        return -1;
      }
      return take(batch);
    } finally {
      lock.unlock();
    }
  }

  /** Drops and counts what is still buffered; for the end of close(). */
  void discard() {
    lock.lock();
    try {
      dropped.add(reports.size());
      reports.clear();
    } finally {
      lock.unlock();
    }
  }

  private long take(List<DurationReport> batch) {
    for (int i = 0; i < batchSize && !reports.isEmpty(); i++) {
      batch.add(reports.pollFirst());
    }
    if (!batch.isEmpty()) {
      undeclaredDrops += dropsForNextReports;
      dropsForNextReports = 0;
    }
    long declared = Math.min(undeclaredDrops, ReportIngestor.MAX_DECLARED_DROPS);
    undeclaredDrops -= declared;
    return declared;
  }
}
