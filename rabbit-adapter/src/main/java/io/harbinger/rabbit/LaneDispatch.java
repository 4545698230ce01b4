package io.harbinger.rabbit;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Consumer;
import com.rabbitmq.client.Recoverable;
import com.rabbitmq.client.ShutdownSignalException;
import io.harbinger.predictor.Ticker;
import io.harbinger.scheduler.Aging;
import io.harbinger.scheduler.LevelArbiter;
import io.harbinger.scheduler.SchedulerConfig;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.NavigableMap;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.IntConsumer;
import java.util.function.LongPredicate;
import java.util.function.ObjLongConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What both kinds of lanes consumer share ({@link LanesConsumer} holds each lane's next delivery,
 * {@link PullingLanesConsumer} takes a message when its application has room): the application's
 * consumer and tag, the deliveries held, the deliveries handed to the application and not yet
 * settled, the scheduling core that picks the next level, and the hand-off itself.
 *
 * <p>Implementation notes (seed paper section 3.7). Held deliveries wait in {@link HeldDeliveries},
 * one FIFO per level. The scheduling core's {@link LevelArbiter} picks the level (strict, or
 * weighted by worker time, each pull charged the level's running average of handler durations) and
 * its {@link Aging}, run every aging interval, promotes a held delivery that has waited at the head
 * of its level for the threshold (pausing aging: one per level per pass, none into a level that is
 * behind). The application has room for a hand-off while it has fewer unsettled hand-offs than its
 * prefetch (one at a time with automatic acknowledgement, any number without a prefetch). A
 * delivery is handed over the way the RabbitMQ client hands one to a consumer: with automatic
 * acknowledgement it is acknowledged first, and a handler that throws closes the channel (RabbitMQ
 * then redelivers what was unsettled). A generation numbers the channel's lives: dropping what is
 * held when the channel shuts down starts a new one, so that a hand-off of an older generation is
 * known to carry a stale tag.
 *
 * <p>Thread safety: the state here, and the consumer's own, is guarded by {@link #lock}, never held
 * while calling the application or RabbitMQ. The methods documented "under the lock" expect the
 * caller to hold it; the others take it.
 */
final class LaneDispatch {

  private static final Logger LOG = LoggerFactory.getLogger(LaneDispatch.class);

  /** The channel the lanes are consumed on. */
  final Channel delegate;

  /** The logical queue's lanes. */
  final LaneLayout layout;

  /** The application's consumer. */
  final Consumer application;

  /** The consumer tag the application sees. */
  final String tag;

  /** Whether the application consumes with automatic acknowledgement. */
  final boolean autoAck;

  /** The channel's counters. */
  final AdapterStats stats;

  /** The monotonic clock of hand-offs and aging. */
  final Ticker ticker;

  /** How often the aging pass runs, and the longest a dispatcher waits without looking. */
  final long agingIntervalNanos;

  /** Guards the state of the consumer. */
  final ReentrantLock lock = new ReentrantLock();

  /** Signalled whenever the state changes in a way a waiting thread may care about. */
  final Condition wakeup = lock.newCondition();

  /** The hand-offs not yet settled, by delivery tag. Under the lock. */
  final NavigableMap<Long, LaneJob> handed = new TreeMap<>();

  /** The scheduling core's level selection. Under the lock. */
  final LevelArbiter arbiter;

  /** The deliveries held, not yet handed over. Under the lock. */
  final HeldDeliveries held;

  private final int maxUnsettled;
  private final Aging aging;
  private long lastAgingNanos;

  /** The channel's life the held deliveries belong to. Under the lock. */
  long generation;

  /** Whether the consumer has stopped for good. Under the lock. */
  boolean stopped;

  /** Whether the application heard of the channel's current shutdown. Under the lock. */
  boolean shutdownForwarded;

  /** Whether the application heard of a cancel by RabbitMQ. Under the lock. */
  private boolean cancelForwarded;

  /**
   * How many deliveries are being given back to their lanes, taken from what is held and not yet
   * rejected. Under the lock.
   */
  int returning;

  /**
   * The tag of the delivery being handed over with automatic acknowledgement whose acknowledgement
   * has not been sent yet, 0 for none. Written at hand-off under the lock, cleared once sent.
   */
  private volatile long autoAcking;

  /**
   * Creates the shared part of one lanes consumer.
   *
   * @param request what the application asked for
   * @param onLevelFilled told when a level goes from holding nothing to holding a delivery
   */
  LaneDispatch(LanesConsumeRequest request, IntConsumer onLevelFilled) {
    ChannelOptions options = request.options();
    this.delegate = request.delegate();
    this.layout = request.layout();
    SchedulerConfig config = options.lanes().schedulerConfig(layout.levels());
    this.application = request.application();
    String consumerTag = request.consumerTag();
    this.tag =
        consumerTag == null || consumerTag.isEmpty()
            ? "harbinger-lanes-" + UUID.randomUUID()
            : consumerTag;
    this.autoAck = request.autoAck();
    this.maxUnsettled = autoAck ? 1 : request.prefetch();
    this.stats = options.stats();
    this.ticker = options.ticker();
    this.agingIntervalNanos = options.lanes().agingInterval().toNanos();
    this.arbiter = new LevelArbiter(layout.levels(), config.newSelector());
    this.aging = config.newAging();
    this.held = new HeldDeliveries(layout.levels(), onLevelFilled);
    this.lastAgingNanos = ticker.nanos();
  }

  /**
   * Starts a daemon thread of this consumer, named for its logical queue.
   *
   * @param body what the thread runs
   * @param prefix the name's prefix, such as {@code harbinger-lanes-}
   */
  void startThread(Runnable body, String prefix) {
    Thread thread = new Thread(body, prefix + layout.queue());
    thread.setDaemon(true);
    thread.start();
  }

  /** Whether the application has room for another hand-off. Under the lock. */
  boolean hasRoom() {
    return maxUnsettled == 0 || handed.size() < maxUnsettled;
  }

  /** Runs the aging pass when an aging interval has passed since the last one. Under the lock. */
  void age(long nowNanos) {
    if (nowNanos - lastAgingNanos >= agingIntervalNanos) {
      aging.pass(held, nowNanos);
      lastAgingNanos = nowNanos;
    }
  }

  /** Holds a delivery until it is handed over. Under the lock. */
  void hold(LaneJob job) {
    held.add(job);
    stats.laneHeldChanged(1);
    wakeup.signalAll();
  }

  /** Takes the head of a level that holds a delivery. Under the lock. */
  LaneJob takeHeld(int level) {
    LaneJob job = held.poll(level);
    stats.laneHeldChanged(-1);
    return job;
  }

  /** Takes every held delivery, heads first, level by level. Under the lock. */
  List<LaneJob> takeAllHeld() {
    List<LaneJob> all = new ArrayList<>();
    for (int level = 0; level < layout.levels(); level++) {
      for (LaneJob job = held.poll(level); job != null; job = held.poll(level)) {
        all.add(job);
      }
    }
    if (!all.isEmpty()) {
      stats.laneHeldChanged(-all.size());
    }
    return all;
  }

  /**
   * Books the hand-off of a job at the level the arbiter picked; it is unsettled until the
   * application settles it, unless acknowledged automatically. Under the lock.
   */
  void handOff(LaneJob job, int level, long nowNanos) {
    arbiter.started(level, Double.NaN);
    job.pulledLevel = level;
    job.handedNanos = nowNanos;
    stats.laneHandedOff(nowNanos - job.receivedNanos);
    if (!autoAck) {
      handed.put(job.envelope.getDeliveryTag(), job);
    } else {
      autoAcking = job.envelope.getDeliveryTag();
    }
  }

  /**
   * Returns the lowest delivery tag up to a bound that this consumer received and the application
   * has not been handed: a held delivery, one being given back, one handed over with automatic
   * acknowledgement whose acknowledgement is not sent yet, or a hand-off whose handler has not
   * started. Under the lock.
   *
   * @param upTo the highest tag of interest
   * @param seen whether the application's handler has started on a delivery tag
   * @return the lowest such tag; {@link Long#MAX_VALUE} when there is none up to the bound; 0 when
   *     deliveries are being given back, whose tags are not kept
   */
  long lowestUnhanded(long upTo, LongPredicate seen) {
    if (returning > 0) {
      return 0;
    }
    long lowest = held.lowestTag();
    long acking = autoAcking;
    if (acking != 0) {
      lowest = Math.min(lowest, acking);
    }
    for (long tag : handed.headMap(Math.min(upTo, lowest), true).keySet()) {
      if (!seen.test(tag)) {
        return tag;
      }
    }
    return lowest <= upTo ? lowest : Long.MAX_VALUE;
  }

  /** Whether this consumer has stopped and gave back everything it was giving back. */
  boolean finished() {
    lock.lock();
    try {
      return stopped && returning == 0;
    } finally {
      lock.unlock();
    }
  }

  /** Charges a finished job's duration to the level it was pulled at. Under the lock. */
  long finished(LaneJob job, long nowNanos) {
    long took = nowNanos - job.handedNanos;
    arbiter.finished(job.pulledLevel, took);
    return took;
  }

  /**
   * Records the application's settlement of delivery tags of this channel.
   *
   * @param deliveryTag the tag settled
   * @param multiple whether every tag up to it is settled too
   * @param completed told of each settled hand-off, with the time, under the lock
   */
  void settled(long deliveryTag, boolean multiple, ObjLongConsumer<LaneJob> completed) {
    lock.lock();
    try {
      long now = ticker.nanos();
      boolean any;
      if (multiple) {
        var head = handed.headMap(deliveryTag, true);
        any = !head.isEmpty();
        head.values().forEach(job -> completed.accept(job, now));
        head.clear();
      } else {
        LaneJob job = handed.remove(deliveryTag);
        any = job != null;
        if (any) {
          completed.accept(job, now);
        }
      }
      if (any) {
        wakeup.signalAll();
      }
    } finally {
      lock.unlock();
    }
  }

  /** Forgets the unsettled hand-offs after {@code basic.recover}: RabbitMQ redelivers them. */
  void recovered() {
    lock.lock();
    try {
      handed.clear();
      wakeup.signalAll();
    } finally {
      lock.unlock();
    }
  }

  /** Returns how many deliveries are held now. */
  int heldCount() {
    lock.lock();
    try {
      return held.size();
    } finally {
      lock.unlock();
    }
  }

  /** Drops what is held and starts a new generation of delivery tags. Under the lock. */
  void dropHeld() {
    int dropped = held.clear();
    if (dropped > 0) {
      stats.laneHeldChanged(-dropped);
    }
    generation++;
  }

  /** Stops for good: drops what is held and forgets the hand-offs. Under the lock. */
  void stop() {
    stopped = true;
    dropHeld();
    handed.clear();
    wakeup.signalAll();
  }

  /** Whether a shutdown leaves a channel that recovers automatically. */
  boolean recovers(ShutdownSignalException sig) {
    return delegate instanceof Recoverable && !sig.isInitiatedByApplication();
  }

  /**
   * Books a shutdown of the channel: drops what is held and forgets the hand-offs (their tags died
   * with the channel, and RabbitMQ redelivers them), and stops for good unless the channel
   * recovers. Under the lock.
   *
   * @return whether the application has not heard of this shutdown yet
   */
  boolean shutDown(ShutdownSignalException sig) {
    boolean first = !shutdownForwarded;
    shutdownForwarded = true;
    dropHeld();
    handed.clear();
    if (!recovers(sig)) {
      stopped = true;
    }
    wakeup.signalAll();
    return first;
  }

  /** Returns whether this is the first cancel by RabbitMQ, which the application hears. */
  boolean firstCancel() {
    lock.lock();
    try {
      boolean first = !cancelForwarded;
      cancelForwarded = true;
      return first;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Runs the application's handler on one delivery. Never under the lock.
   *
   * @param job the delivery
   * @return whether the handler returned normally
   */
  boolean deliver(LaneJob job) {
    try {
      if (autoAck) {
        try {
          delegate.basicAck(job.envelope.getDeliveryTag(), false);
        } finally {
          autoAcking = 0;
        }
      }
      application.handleDelivery(tag, job.envelope, job.properties, job.body);
      return true;
    } catch (Exception e) {
      if (!delegate.isOpen()) {
        // The channel closed under the handler (an acknowledgement on it failed, say): RabbitMQ
        // redelivers what was unsettled, and a recovering channel resumes the lanes.
        LOG.debug("the consumer of lanes queue '{}' failed on a closed channel", layout.queue(), e);
        return false;
      }
      LOG.error(
          "the consumer of lanes queue '{}' threw from handleDelivery; closing the channel, as"
              + " the RabbitMQ client does",
          layout.queue(),
          e);
      try {
        delegate.close(AMQP.REPLY_SUCCESS, "Closed due to exception from Consumer " + tag);
      } catch (IOException | TimeoutException | RuntimeException ignored) {
        // Already closing.
      }
      return false;
    }
  }
}
