package io.harbinger.experiments.bench;

import io.harbinger.experiments.workload.Handler;
import io.harbinger.experiments.workload.Job;
import io.harbinger.experiments.workload.MessageRecord;
import io.harbinger.predictor.Ticker;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The per-message state of one run: submit, first start, start and end times, attempts and handler
 * time of every job, filled in by the publishers and the workers.
 *
 * <p>Thread-safe: publishers call {@link #submitted}, any number of consumer threads call {@link
 * #deliver}; every field is an atomic array slot per sequence number. {@link #deliver} blocks for
 * the handler's time.
 */
final class Tracker implements BenchArm.Worker {

  private static final byte[] SEQ_PREFIX = "{\"seq\":".getBytes(StandardCharsets.US_ASCII);

  private final List<Job> jobs;
  private final Handler handler;
  private final Ticker ticker;
  private final AtomicLongArray submitNanos;
  private final AtomicLongArray firstStartNanos;
  private final AtomicLongArray startNanos;
  private final AtomicLongArray endNanos;
  private final AtomicLongArray handlerNanos;
  private final AtomicIntegerArray attempts;
  private final CountDownLatch remaining;
  private final AtomicLong published = new AtomicLong();
  private final AtomicLong duplicates = new AtomicLong();
  private final AtomicLong unknownBodies = new AtomicLong();
  private final AtomicLong handlerErrors = new AtomicLong();

  Tracker(List<Job> jobs, Handler handler, Ticker ticker) {
    this.jobs = List.copyOf(jobs);
    this.handler = handler;
    this.ticker = ticker;
    int n = jobs.size();
    for (int i = 0; i < n; i++) {
      if (jobs.get(i).seq() != i) {
        throw new IllegalArgumentException(
            "jobs must be numbered 0..n-1 in order: job " + i + " has seq " + jobs.get(i).seq());
      }
    }
    submitNanos = absent(n);
    firstStartNanos = absent(n);
    startNanos = absent(n);
    endNanos = absent(n);
    handlerNanos = new AtomicLongArray(n);
    attempts = new AtomicIntegerArray(n);
    remaining = new CountDownLatch(n);
  }

  private static AtomicLongArray absent(int n) {
    AtomicLongArray a = new AtomicLongArray(n);
    for (int i = 0; i < n; i++) {
      a.set(i, MessageRecord.ABSENT);
    }
    return a;
  }

  /** Notes the submit time of a job; call just before publishing it. */
  void submitted(Job job) {
    submitNanos.set((int) job.seq(), ticker.nanos());
    published.incrementAndGet();
  }

  @Override
  public boolean deliver(byte[] body) throws InterruptedException {
    int seq = seqOf(body);
    if (seq < 0 || seq >= jobs.size() || submitNanos.get(seq) == MessageRecord.ABSENT) {
      unknownBodies.incrementAndGet();
      return true;
    }
    if (endNanos.get(seq) != MessageRecord.ABSENT) {
      duplicates.incrementAndGet();
      return true;
    }
    int attempt = attempts.incrementAndGet(seq);
    long start = ticker.nanos();
    firstStartNanos.compareAndSet(seq, MessageRecord.ABSENT, start);
    startNanos.set(seq, start);
    Handler.AttemptResult result;
    try {
      result = handler.handle(jobs.get(seq), attempt);
    } catch (RuntimeException e) {
      handlerErrors.incrementAndGet();
      handlerNanos.set(seq, Math.max(0, ticker.nanos() - start));
      return false;
    }
    handlerNanos.set(seq, result.handlerNanos());
    if (result.succeeded() && endNanos.compareAndSet(seq, MessageRecord.ABSENT, ticker.nanos())) {
      remaining.countDown();
    }
    return result.succeeded();
  }

  /**
   * Reads the sequence number from the front of a body, {@code {"seq":123,...}}.
   *
   * @param body the body
   * @return the sequence number, or -1 when the body does not start that way
   */
  static int seqOf(byte[] body) {
    if (body == null || body.length <= SEQ_PREFIX.length) {
      return -1;
    }
    for (int i = 0; i < SEQ_PREFIX.length; i++) {
      if (body[i] != SEQ_PREFIX[i]) {
        return -1;
      }
    }
    long value = 0;
    int i = SEQ_PREFIX.length;
    int digits = 0;
    while (i < body.length && body[i] >= '0' && body[i] <= '9' && digits < 10) {
      value = value * 10 + (body[i] - '0');
      i++;
      digits++;
    }
    boolean terminated = i < body.length && body[i] == ',';
    return digits > 0 && terminated && value <= Integer.MAX_VALUE ? (int) value : -1;
  }

  /**
   * Waits until every job has completed, or the timeout passes.
   *
   * @param timeoutNanos the longest wait
   * @return true when every job has completed
   * @throws InterruptedException when interrupted
   */
  boolean awaitAll(long timeoutNanos) throws InterruptedException {
    return remaining.await(timeoutNanos, TimeUnit.NANOSECONDS);
  }

  long completed() {
    return jobs.size() - remaining.getCount();
  }

  long published() {
    return published.get();
  }

  long duplicates() {
    return duplicates.get();
  }

  long unknownBodies() {
    return unknownBodies.get();
  }

  long handlerErrors() {
    return handlerErrors.get();
  }

  /**
   * Returns one record per job: completed, dead-lettered (when its sequence number is in {@code
   * deadLettered}) or lost.
   *
   * @param deadLettered sequence numbers the broker dead-lettered
   * @return the records, in sequence order
   */
  List<MessageRecord> records(Set<Integer> deadLettered) {
    List<MessageRecord> out = new ArrayList<>(jobs.size());
    for (int i = 0; i < jobs.size(); i++) {
      Job job = jobs.get(i);
      long submit = submitNanos.get(i);
      long end = endNanos.get(i);
      double handlerMillis = handlerNanos.get(i) / 1e6;
      if (end != MessageRecord.ABSENT) {
        out.add(
            MessageRecord.completed(
                job,
                submit,
                firstStartNanos.get(i),
                startNanos.get(i),
                end,
                attempts.get(i),
                handlerMillis));
      } else {
        out.add(
            MessageRecord.notCompleted(
                job,
                deadLettered.contains(i)
                    ? MessageRecord.Disposition.DEAD_LETTERED
                    : MessageRecord.Disposition.LOST,
                submit == MessageRecord.ABSENT ? 0 : submit,
                firstStartNanos.get(i),
                startNanos.get(i),
                attempts.get(i),
                handlerMillis));
      }
    }
    return out;
  }
}
