package io.harbinger.rabbit;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * Counters of what wrapped channels did: publishes, fallbacks, reports and anomalies.
 *
 * <p>One instance is shared by every channel wrapped with the same {@link ChannelOptions}. Thread
 * safe; every counter only increases, and reading one never blocks a publish.
 */
public final class AdapterStats {

  final LongAdder published = new LongAdder();
  final LongAdder routerFailures = new LongAdder();
  final LongAdder routerAbsent = new LongAdder();
  final LongAdder invalidLevels = new LongAdder();
  final LongAdder userIdReplaced = new LongAdder();
  final LongAdder reports = new LongAdder();
  final LongAdder censored = new LongAdder();
  final LongAdder unmatchedSettles = new LongAdder();
  final LongAdder sinkFailures = new LongAdder();
  final LongAdder prefetchWarnings = new LongAdder();
  final LongAdder laneHandoffs = new LongAdder();
  final LongAdder laneHeldNanos = new LongAdder();
  final AtomicLong laneHeld = new AtomicLong();
  final AtomicLong laneHeldMax = new AtomicLong();

  /** Creates zeroed counters. */
  public AdapterStats() {}

  /**
   * Returns the messages published through wrapped channels.
   *
   * @return the count
   */
  public long published() {
    return published.sum();
  }

  /**
   * Returns the publishes whose router threw; each went out at the default level.
   *
   * @return the count
   */
  public long routerFailures() {
    return routerFailures.sum();
  }

  /**
   * Returns the publishes made with no router configured; each went out at the default level.
   *
   * @return the count
   */
  public long routerAbsent() {
    return routerAbsent.sum();
  }

  /**
   * Returns the publishes whose router answered a level outside [0, levels); each went out at the
   * default level.
   *
   * @return the count
   */
  public long invalidLevels() {
    return invalidLevels.sum();
  }

  /**
   * Returns the publishes whose caller set a {@code user-id} other than the connection's user,
   * which the wrapper replaced (RabbitMQ would have closed the channel).
   *
   * @return the count
   */
  public long userIdReplaced() {
    return userIdReplaced.sum();
  }

  /**
   * Returns the reports handed to the report sink, censored ones included.
   *
   * @return the count
   */
  public long reports() {
    return reports.sum();
  }

  /**
   * Returns the censored reports: redelivered messages whose earlier attempt never settled.
   *
   * @return the count
   */
  public long censored() {
    return censored.sum();
  }

  /**
   * Returns acknowledgements for delivery tags the wrapper was not tracking (deliveries made before
   * a connection recovery, or to consumers that were not wrapped); they were forwarded unchanged.
   *
   * @return the count
   */
  public long unmatchedSettles() {
    return unmatchedSettles.sum();
  }

  /**
   * Returns the reports lost because the report sink threw.
   *
   * @return the count
   */
  public long sinkFailures() {
    return sinkFailures.sum();
  }

  /**
   * Returns the prefetch warnings logged (at most one per queue).
   *
   * @return the count
   */
  public long prefetchWarnings() {
    return prefetchWarnings.sum();
  }

  /**
   * Returns the deliveries that lanes consumers handed to their applications.
   *
   * @return the count
   */
  public long laneHandoffs() {
    return laneHandoffs.sum();
  }

  /**
   * Returns how many deliveries lanes consumers hold now: delivered by RabbitMQ to the consumer but
   * not yet handed to the application (invisible to other consumers meanwhile).
   *
   * @return the count, a gauge
   */
  public long laneHeld() {
    return laneHeld.get();
  }

  /**
   * Returns the most deliveries lanes consumers held at once.
   *
   * @return the high-water mark of {@link #laneHeld()}
   */
  public long laneHeldMax() {
    return laneHeldMax.get();
  }

  /**
   * Returns the mean time a delivery handed to the application had been held by its lanes consumer.
   *
   * @return milliseconds, NaN before the first hand-off
   */
  public double laneHeldMeanMillis() {
    long n = laneHandoffs.sum();
    return n == 0 ? Double.NaN : laneHeldNanos.sum() / 1e6 / n;
  }

  /**
   * Changes the count of held lane deliveries; for the adapter's internal package.
   *
   * @param delta deliveries received (positive) or handed off or dropped (negative)
   */
  public void laneHeldChanged(int delta) {
    long now = laneHeld.addAndGet(delta);
    laneHeldMax.accumulateAndGet(now, Math::max);
  }

  /**
   * Counts one hand-off of a held lane delivery; for the adapter's internal package.
   *
   * @param heldNanos how long it was held
   */
  public void laneHandedOff(long heldNanos) {
    laneHandoffs.increment();
    laneHeldNanos.add(Math.max(0, heldNanos));
  }

  /**
   * Adds one to a counter; for the adapter's internal package.
   *
   * @param counter the counter
   */
  public void increment(Counter counter) {
    adder(counter).increment();
  }

  private LongAdder adder(Counter counter) {
    return switch (counter) {
      case PUBLISHED -> published;
      case ROUTER_FAILURE -> routerFailures;
      case ROUTER_ABSENT -> routerAbsent;
      case INVALID_LEVEL -> invalidLevels;
      case USER_ID_REPLACED -> userIdReplaced;
      case REPORT -> reports;
      case CENSORED -> censored;
      case UNMATCHED_SETTLE -> unmatchedSettles;
      case SINK_FAILURE -> sinkFailures;
      case PREFETCH_WARNING -> prefetchWarnings;
    };
  }

  /** The counters, named for {@link #increment}. */
  public enum Counter {
    /** See {@link AdapterStats#published()}. */
    PUBLISHED,
    /** See {@link AdapterStats#routerFailures()}. */
    ROUTER_FAILURE,
    /** See {@link AdapterStats#routerAbsent()}. */
    ROUTER_ABSENT,
    /** See {@link AdapterStats#invalidLevels()}. */
    INVALID_LEVEL,
    /** See {@link AdapterStats#userIdReplaced()}. */
    USER_ID_REPLACED,
    /** See {@link AdapterStats#reports()}. */
    REPORT,
    /** See {@link AdapterStats#censored()}. */
    CENSORED,
    /** See {@link AdapterStats#unmatchedSettles()}. */
    UNMATCHED_SETTLE,
    /** See {@link AdapterStats#sinkFailures()}. */
    SINK_FAILURE,
    /** See {@link AdapterStats#prefetchWarnings()}. */
    PREFETCH_WARNING
  }
}
