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

  private final LongAdder published = new LongAdder();
  private final LongAdder routerFailures = new LongAdder();
  private final LongAdder routerAbsent = new LongAdder();
  private final LongAdder invalidLevels = new LongAdder();
  private final LongAdder routerUnavailable = new LongAdder();
  private final LongAdder userIdReplaced = new LongAdder();
  private final LongAdder reports = new LongAdder();
  private final LongAdder censored = new LongAdder();
  private final LongAdder unmatchedSettles = new LongAdder();
  private final LongAdder sinkFailures = new LongAdder();
  private final LongAdder prefetchWarnings = new LongAdder();
  private final LongAdder unreadableStamps = new LongAdder();
  private final LongAdder invalidSizeHints = new LongAdder();
  private final LongAdder laneHandoffs = new LongAdder();
  private final LongAdder laneGets = new LongAdder();
  private final LongAdder laneEmptyGets = new LongAdder();
  private final LongAdder laneTakenAhead = new LongAdder();
  private final LongAdder laneHeldNanos = new LongAdder();
  private final AtomicLong laneHeld = new AtomicLong();
  private final AtomicLong laneHeldMax = new AtomicLong();

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
   * Returns the publishes whose router had no current answer ({@link
   * io.harbinger.predictor.Outcome#UNAVAILABLE}): a sidecar router before its first route table or
   * once its table is older than the staleness limit (a stopped, hung or unreachable sidecar); each
   * went out at the router's default level.
   *
   * @return the count
   */
  public long routerUnavailable() {
    return routerUnavailable.sum();
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
   * Returns the deliveries whose stamp a wrapped consumer could not read in full: an {@code
   * x-harbinger} header that is malformed or from a newer producer, or a level outside the
   * consumer's levels. Each was still handed to its handler, settled as the handler chose and
   * reported, at unknown level.
   *
   * @return the count
   */
  public long unreadableStamps() {
    return unreadableStamps.sum();
  }

  /**
   * Returns the messages, published or delivered, whose {@value ChannelOptions#SIZE_HINT_HEADER}
   * header held no non-negative integer; their body length was the size hint instead.
   *
   * @return the count
   */
  public long invalidSizeHints() {
    return invalidSizeHints.sum();
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
   * Returns the {@code basic.get} calls of pulling lanes consumers ({@link LaneFetch#PULL}) that
   * took a message (those that found their lane empty are {@link #laneEmptyGets()}).
   *
   * @return the count
   */
  public long laneGets() {
    return laneGets.sum();
  }

  /**
   * Returns the {@code basic.get} calls of pulling lanes consumers that found their lane empty: the
   * round trips a pulling consumer paid beyond one per message.
   *
   * @return the count
   */
  public long laneEmptyGets() {
    return laneEmptyGets.sum();
  }

  /**
   * Returns the messages pulling lanes consumers took ahead, while their application was running a
   * job, to hand on when it ends.
   *
   * @return the count
   */
  public long laneTakenAhead() {
    return laneTakenAhead.sum();
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
   * Adds one to a counter.
   *
   * @param counter which one
   */
  void increment(Counter counter) {
    adder(counter).increment();
  }

  /**
   * Changes the gauge of deliveries that lanes consumers hold.
   *
   * @param delta deliveries received (positive) or handed off or dropped (negative)
   */
  void laneHeldChanged(int delta) {
    long now = laneHeld.addAndGet(delta);
    laneHeldMax.accumulateAndGet(now, Math::max);
  }

  /**
   * Counts one hand-off of a held lane delivery to the application.
   *
   * @param heldNanos how long the delivery was held
   */
  void laneHandedOff(long heldNanos) {
    laneHandoffs.increment();
    laneHeldNanos.add(Math.max(0, heldNanos));
  }

  private LongAdder adder(Counter counter) {
    return switch (counter) {
      case PUBLISHED -> published;
      case ROUTER_FAILURE -> routerFailures;
      case ROUTER_ABSENT -> routerAbsent;
      case INVALID_LEVEL -> invalidLevels;
      case ROUTER_UNAVAILABLE -> routerUnavailable;
      case USER_ID_REPLACED -> userIdReplaced;
      case REPORT -> reports;
      case CENSORED -> censored;
      case UNMATCHED_SETTLE -> unmatchedSettles;
      case SINK_FAILURE -> sinkFailures;
      case PREFETCH_WARNING -> prefetchWarnings;
      case UNREADABLE_STAMP -> unreadableStamps;
      case INVALID_SIZE_HINT -> invalidSizeHints;
      case LANE_GET -> laneGets;
      case LANE_EMPTY_GET -> laneEmptyGets;
      case LANE_TAKEN_AHEAD -> laneTakenAhead;
    };
  }
}
