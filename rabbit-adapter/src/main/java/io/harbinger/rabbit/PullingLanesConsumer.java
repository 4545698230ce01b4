package io.harbinger.rabbit;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Envelope;
import com.rabbitmq.client.GetResponse;
import com.rabbitmq.client.Recoverable;
import com.rabbitmq.client.RecoveryListener;
import com.rabbitmq.client.ShutdownListener;
import com.rabbitmq.client.ShutdownSignalException;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.LongPredicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The consumer of a logical lanes queue that takes a lane's message only when its application has
 * room for one ({@link LaneFetch#PULL}), so that a busy consumer holds nothing another consumer of
 * the lanes could run, as a consumer of one priority queue with prefetch 1 holds nothing.
 *
 * <p>Implementation notes (seed paper section 3.7, served the way the production-flow replay's
 * lanes arms assume: a free worker takes the head of the level the selector picks). While the
 * application has room ({@link LaneDispatch}), the dispatcher asks the scheduling core's arbiter
 * for a level among the lanes not yet found empty in this round and takes that lane's next message
 * with {@code basic.get} (manual acknowledgement); an empty lane drops out of the round and the
 * arbiter is asked again. A lane found empty is reported to the arbiter as activated before it is
 * tried again, so that an idle level banks no credit. When every lane is empty, the consumer
 * subscribes to every lane with prefetch 1 and waits ({@link LaneSubscriptions}); it hands over
 * what arrives and, from then on, pulls again and cancels the subscriptions. A thread of its own
 * subscribes and cancels, so no hand-over waits for those calls; what reaches the consumer while it
 * cancels is held, handed over before the lanes are tried again and aged as in {@link
 * LanesConsumer}. While the application is full, that thread also takes the next message ahead,
 * shortly before the running job is expected to end ({@link TakeAhead}).
 *
 * <p>Cost: one {@code basic.get} per message while the lanes have work, plus one per empty lane
 * tried before it; one consume and one cancel per lane each time the consumer goes idle and busy
 * again.
 *
 * <p>Acknowledgements, nacks, requeues and redeliveries are RabbitMQ's: a message taken with {@code
 * basic.get} is a delivery of the channel like any other, and a requeued message returns to its own
 * lane. With automatic acknowledgement on the application's side, each message is acknowledged when
 * it is handed over. When the application cancels, what is held goes back to its lane ({@code
 * basic.reject} with requeue); on a shutdown it is dropped (RabbitMQ redelivers it). On an
 * automatically recovering channel the consumer resumes after recovery.
 *
 * <p>Delivery tags across a recovery are numbered, and those handed over before a shutdown kept as
 * stale, as {@link PulledTags} describes; the wrapped channel drops a settlement of a stale one
 * ({@link #stale}). A lane deleted while the consumer pulls closes the channel ({@code basic.get}
 * on a missing queue is a channel error), which the application hears as a shutdown naming the
 * lane.
 *
 * <p>Thread safety: the dispatcher thread takes messages and runs the application's handler, the
 * subscriber thread takes messages ahead, subscribes and cancels, lane callbacks run on the
 * connection's consumer threads and settlements may come from any thread. All state is guarded by
 * the one lock of its {@link LaneDispatch}, never held while calling the application or RabbitMQ;
 * subscribing and cancelling are serialised by a second one.
 */
final class PullingLanesConsumer implements LanesConsumption, LaneSubscriptions.Listener {

  private static final Logger LOG = LoggerFactory.getLogger(PullingLanesConsumer.class);

  private final LaneDispatch d;
  private final Channel delegate;
  private final LaneLayout layout;
  private final TakeAhead ahead;
  private final LaneSubscriptions subscriptions;
  private final int allLanes;
  private final PulledTags pulledTags = new PulledTags();
  private final ShutdownListener shutdownListener = this::channelShutdown;
  private final RecoveryListener recoveryListener = new ChannelRecovery();
  private int emptyLanes;
  private boolean idle;
  private boolean aheadInFlight;
  private boolean pulling;
  private boolean cancelled;
  private boolean channelDown;

  PullingLanesConsumer(LanesConsumeRequest request) {
    if (!request.autoAck() && request.prefetch() <= 0) {
      throw new IllegalArgumentException(
          "pulling lanes needs a consumer prefetch (basicQos) or automatic acknowledgement");
    }
    this.d = new LaneDispatch(request, level -> {});
    this.delegate = d.delegate;
    this.layout = d.layout;
    this.ahead = new TakeAhead(request.options().jobTypeHeader(), layout.levels());
    this.subscriptions = new LaneSubscriptions(d, this);
    this.allLanes = (1 << layout.levels()) - 1;
  }

  @Override
  public String tag() {
    return d.tag;
  }

  @Override
  public String start(boolean noLocal, boolean exclusive, Map<String, Object> arguments)
      throws IOException {
    if (exclusive) {
      throw new IllegalArgumentException(
          "lanes queue '"
              + layout.queue()
              + "': an exclusive consumer needs LaneFetch.PUSH; LaneFetch.PULL subscribes to the"
              + " lanes only while they are empty, so it cannot hold them exclusively");
    }
    LaneCheck.requireLanes(delegate, layout);
    subscriptions.configure(noLocal, arguments);
    delegate.basicQos(1, false);
    delegate.addShutdownListener(shutdownListener);
    if (delegate instanceof Recoverable r) {
      r.addRecoveryListener(recoveryListener);
    }
    d.startThread(this::dispatch, "harbinger-lanes-");
    d.startThread(this::subscribe, "harbinger-lanes-sub-");
    d.application.handleConsumeOk(d.tag);
    return d.tag;
  }

  @Override
  public void cancel() throws IOException {
    d.lock.lock();
    try {
      if (cancelled) {
        return;
      }
      cancelled = true;
      d.stopped = true;
      d.wakeup.signalAll();
    } finally {
      d.lock.unlock();
    }
    IOException failure = null;
    try {
      subscriptions.cancelAll();
    } catch (IOException e) {
      failure = e;
    }
    List<LaneJob> returned;
    d.lock.lock();
    try {
      returned = d.takeAllHeld();
      d.returning += returned.size();
    } finally {
      d.lock.unlock();
    }
    for (LaneJob job : returned) {
      giveBack(job.envelope.getDeliveryTag());
    }
    delegate.removeShutdownListener(shutdownListener);
    if (delegate instanceof Recoverable r) {
      r.removeRecoveryListener(recoveryListener);
    }
    d.application.handleCancelOk(d.tag);
    if (failure != null) {
      throw failure;
    }
  }

  @Override
  public void settled(long deliveryTag, boolean multiple) {
    d.settled(deliveryTag, multiple, this::completed);
  }

  @Override
  public boolean stale(long deliveryTag, boolean multiple) {
    d.lock.lock();
    try {
      if (pulledTags.none()) {
        return false;
      }
      boolean stale = pulledTags.settle(deliveryTag, multiple);
      if (pulledTags.none()) {
        d.wakeup.signalAll();
      }
      return stale;
    } finally {
      d.lock.unlock();
    }
  }

  private void completed(LaneJob job, long nowNanos) {
    if (job.generation == d.generation) {
      finished(job, nowNanos);
    }
  }

  /** Books a job's duration for its level and its key. Under the lock. */
  private void finished(LaneJob job, long nowNanos) {
    ahead.finished(job, d.finished(job, nowNanos));
  }

  @Override
  public long lowestUnhanded(long upTo, LongPredicate seen) {
    d.lock.lock();
    try {
      // The tag of a message a basic.get is taking is not known until it is here.
      return pulling || aheadInFlight ? 0 : d.lowestUnhanded(upTo, seen);
    } finally {
      d.lock.unlock();
    }
  }

  @Override
  public boolean finished() {
    return d.finished();
  }

  @Override
  public void recovered() {
    d.recovered();
    d.application.handleRecoverOk(d.tag);
  }

  @Override
  public void stop() {
    d.lock.lock();
    try {
      d.stop();
      pulledTags.clear();
    } finally {
      d.lock.unlock();
    }
  }

  @Override
  public int held() {
    return d.heldCount();
  }

  /** Whether the application is full: a take-ahead is wanted behind its job. Under the lock. */
  private boolean full() {
    return d.autoAck || !d.hasRoom();
  }

  private void dispatch() {
    int round = allLanes;
    while (true) {
      LaneJob job = null;
      int lane = -1;
      long generationAtGet;
      d.lock.lock();
      try {
        while (true) {
          if (d.stopped) {
            return;
          }
          long now = d.ticker.nanos();
          d.age(now);
          // A message being taken ahead is waited for, so that a lane's messages keep their order.
          if (!channelDown && pulledTags.none() && d.hasRoom() && !aheadInFlight) {
            int heldMask = d.held.nonEmptyMask();
            if (heldMask != 0) {
              // Taken ahead, or reached the consumer while it subscribed or cancelled.
              job = take(d.arbiter.next(heldMask), now);
              break;
            }
            if (!idle) {
              int candidates = round;
              if (candidates == 0) {
                // Every lane is empty: subscribe to them all and wait for what comes.
                idle = true;
                round = allLanes;
                d.wakeup.signalAll();
                continue;
              }
              lane = pick(candidates);
              break;
            }
          }
          d.wakeup.await(d.agingIntervalNanos, TimeUnit.NANOSECONDS);
        }
        generationAtGet = d.generation;
        // The dispatcher's own basic.get, which the application's settlements must wait out.
        pulling = job == null;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      } finally {
        d.lock.unlock();
      }
      if (job == null) {
        GetResponse response;
        try {
          response = timedGet(lane);
        } catch (IOException | RuntimeException e) {
          d.lock.lock();
          try {
            pulling = false;
          } finally {
            d.lock.unlock();
          }
          if (!awaitChannel(e)) {
            return;
          }
          continue;
        }
        d.lock.lock();
        try {
          pulling = false;
          long now = d.ticker.nanos();
          if (response == null) {
            round &= ~(1 << lane);
            emptyLanes |= 1 << lane;
            continue;
          }
          job =
              new LaneJob(
                  lane,
                  response.getEnvelope(),
                  response.getProps(),
                  response.getBody(),
                  now,
                  generationAtGet);
          if (generationAtGet != d.generation) {
            // The channel shut down meanwhile: the tag is stale and RabbitMQ redelivers the
            // message.
            continue;
          }
          if (d.stopped) {
            job = null;
            d.returning++;
          } else {
            emptyLanes &= ~(1 << lane);
            handOff(job, lane, now);
          }
        } finally {
          d.lock.unlock();
        }
        if (job == null) {
          // Taken after the application cancelled: back to its lane.
          giveBack(response.getEnvelope().getDeliveryTag());
          continue;
        }
      }
      round = allLanes;
      boolean returned = d.deliver(job);
      d.lock.lock();
      try {
        if (returned && d.autoAck) {
          // The job's cost is the handler's duration when the consumer acknowledges itself.
          finished(job, d.ticker.nanos());
        }
        if (job.generation != d.generation
            && pulledTags.handlerReturned(job.envelope.getDeliveryTag())) {
          // The channel shut down under the handler, which has returned: its tag is no longer
          // waited for.
          d.wakeup.signalAll();
        }
      } finally {
        d.lock.unlock();
      }
    }
  }

  /**
   * Asks the arbiter for a lane among the candidates, first telling it of those found empty since,
   * which may hold messages again. Under the lock.
   */
  private int pick(int candidates) {
    for (int fresh = candidates & emptyLanes; fresh != 0; fresh &= fresh - 1) {
      d.arbiter.activated(Integer.numberOfTrailingZeros(fresh));
    }
    return d.arbiter.next(candidates);
  }

  /** Holds a message taken ahead or delivered by a subscription. Under the lock. */
  private void hold(LaneJob job) {
    d.hold(job);
    emptyLanes &= ~(1 << job.lane);
  }

  /** Takes the head of a held level and hands it off. Under the lock. */
  private LaneJob take(int level, long nowNanos) {
    LaneJob job = d.takeHeld(level);
    emptyLanes &= ~(1 << job.lane);
    handOff(job, level, nowNanos);
    return job;
  }

  /**
   * Books a hand-off and stops waiting for the lanes; behind a job short enough, asks for the next
   * message to be taken ahead. Under the lock.
   */
  private void handOff(LaneJob job, int level, long nowNanos) {
    job.costKey = ahead.costKey(job.properties);
    d.handOff(job, level, nowNanos);
    if (idle) {
      idle = false;
      d.wakeup.signalAll();
    }
    boolean wanted = full() && d.held.size() == 0;
    if (ahead.plan(job, wanted, d.arbiter.averageCostMillis(job.pulledLevel))) {
      d.wakeup.signalAll();
    }
  }

  /** Takes a lane's next message and books the round trip. */
  private GetResponse timedGet(int lane) throws IOException {
    long start = d.ticker.nanos();
    GetResponse response = delegate.basicGet(layout.laneName(lane), false);
    long took = d.ticker.nanos() - start;
    d.stats.increment(response == null ? Counter.LANE_EMPTY_GET : Counter.LANE_GET);
    response = PulledTags.numbered(delegate, response);
    d.lock.lock();
    try {
      ahead.timedGet(took);
    } finally {
      d.lock.unlock();
    }
    return response;
  }

  /**
   * Takes one message ahead into the held deliveries while the application is full, from the lane
   * the arbiter picks (the next one when that one is empty). Gives up when the application has room
   * again, something is held, or every lane is empty.
   */
  private void takeAhead() throws IOException {
    int round = allLanes;
    while (true) {
      int lane;
      long generationAtGet;
      d.lock.lock();
      try {
        int candidates = round & ~d.held.nonEmptyMask();
        if (d.stopped
            || channelDown
            || !pulledTags.none()
            || idle
            || d.held.size() > 0
            || !full()
            || candidates == 0) {
          return;
        }
        lane = pick(candidates);
        generationAtGet = d.generation;
        aheadInFlight = true;
      } finally {
        d.lock.unlock();
      }
      GetResponse response;
      try {
        response = timedGet(lane);
      } catch (IOException | RuntimeException e) {
        d.lock.lock();
        try {
          aheadInFlight = false;
          d.wakeup.signalAll();
        } finally {
          d.lock.unlock();
        }
        throw e;
      }
      boolean giveBack = false;
      d.lock.lock();
      try {
        // Cleared together with holding what came, so the dispatcher never takes a later one first.
        aheadInFlight = false;
        d.wakeup.signalAll();
        if (response == null) {
          round &= ~(1 << lane);
          emptyLanes |= 1 << lane;
          continue;
        }
        if (generationAtGet != d.generation) {
          return;
        }
        if (d.stopped) {
          giveBack = true;
          d.returning++;
        } else {
          d.stats.increment(Counter.LANE_TAKEN_AHEAD);
          hold(
              new LaneJob(
                  lane,
                  response.getEnvelope(),
                  response.getProps(),
                  response.getBody(),
                  d.ticker.nanos(),
                  generationAtGet));
        }
      } finally {
        d.lock.unlock();
      }
      if (giveBack) {
        giveBack(response.getEnvelope().getDeliveryTag());
      }
      return;
    }
  }

  /**
   * After a failed call: waits until the channel is back (true) or the consumer has stopped
   * (false).
   */
  private boolean awaitChannel(Exception e) {
    d.lock.lock();
    try {
      if (d.stopped) {
        return false;
      }
      LOG.debug("lanes queue '{}': a call on the channel failed; waiting", layout.queue(), e);
      d.wakeup.await(d.agingIntervalNanos, TimeUnit.NANOSECONDS);
      return !d.stopped;
    } catch (InterruptedException interrupted) {
      Thread.currentThread().interrupt();
      return false;
    } finally {
      d.lock.unlock();
    }
  }

  /**
   * Returns a delivery to its lane ({@code basic.reject} with requeue) while the channel is open;
   * the caller counted it as {@link LaneDispatch#returning}.
   */
  private void giveBack(long deliveryTag) {
    try {
      if (delegate.isOpen()) {
        delegate.basicReject(deliveryTag, true);
      }
    } catch (IOException | RuntimeException e) {
      LOG.debug("lanes queue '{}': could not return delivery {}", layout.queue(), deliveryTag, e);
    } finally {
      d.lock.lock();
      try {
        d.returning--;
      } finally {
        d.lock.unlock();
      }
    }
  }

  /**
   * The subscriber thread: takes a message ahead when the dispatcher asks, subscribes while the
   * dispatcher waits for the lanes, else cancels.
   */
  private void subscribe() {
    while (true) {
      boolean want;
      boolean takeAhead;
      d.lock.lock();
      try {
        while (!d.stopped
            && (channelDown
                || (!ahead.due(d.ticker.nanos())
                    && !subscriptions.hasStrays()
                    && subscriptions.asWanted(idle)))) {
          if (ahead.planned()) {
            // Woken by the clock for the take-ahead, checked at least every aging interval.
            long left = Math.min(ahead.atNanos() - d.ticker.nanos(), d.agingIntervalNanos);
            d.wakeup.await(Math.max(left, 1), TimeUnit.NANOSECONDS);
          } else {
            d.wakeup.await();
          }
        }
        if (d.stopped) {
          return;
        }
        want = idle;
        takeAhead = ahead.due(d.ticker.nanos());
        if (takeAhead) {
          ahead.started();
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      } finally {
        d.lock.unlock();
      }
      try {
        if (takeAhead) {
          takeAhead();
        }
        subscriptions.update(want, () -> !d.stopped && idle);
      } catch (IOException | RuntimeException e) {
        if (!awaitChannel(e)) {
          return;
        }
      }
    }
  }

  private void channelShutdown(ShutdownSignalException sig) {
    LOG.debug("lanes queue '{}': the channel shut down", layout.queue(), sig);
    boolean forward;
    d.lock.lock();
    try {
      pulledTags.shutDown(d.handed.keySet());
      forward = d.shutDown(sig) && !cancelled;
      if (d.recovers(sig)) {
        channelDown = true;
      }
    } finally {
      d.lock.unlock();
    }
    if (forward) {
      d.application.handleShutdownSignal(d.tag, sig);
    }
  }

  /** Resumes pulling once an automatically recovering channel is back. */
  private final class ChannelRecovery implements RecoveryListener {

    @Override
    public void handleRecovery(Recoverable recoverable) {
      d.lock.lock();
      try {
        channelDown = false;
        d.shutdownForwarded = false;
        d.wakeup.signalAll();
      } finally {
        d.lock.unlock();
      }
    }

    @Override
    public void handleRecoveryStarted(Recoverable recoverable) {
      // Nothing to do until the channel is back.
    }
  }

  @Override
  public void cancelled(int lane, String consumerTag) {
    boolean forward;
    d.lock.lock();
    try {
      if (!subscriptions.cancelledByBroker(lane, consumerTag)) {
        return;
      }
      forward = d.firstCancel() && !cancelled;
      d.stopped = true;
      d.wakeup.signalAll();
    } finally {
      d.lock.unlock();
    }
    if (!forward) {
      return;
    }
    LOG.warn(
        "RabbitMQ cancelled the subscription to lane '{}' of '{}' (was the lane deleted?);"
            + " stopping the consumer",
        layout.laneName(lane),
        layout.queue());
    try {
      subscriptions.cancelAll();
    } catch (IOException | RuntimeException ignored) {
      // Already gone.
    }
    try {
      d.application.handleCancel(d.tag);
    } catch (IOException e) {
      LOG.debug("the application's handleCancel threw", e);
    }
  }

  @Override
  public void delivered(int lane, Envelope envelope, AMQP.BasicProperties properties, byte[] body) {
    boolean giveBack;
    d.lock.lock();
    try {
      giveBack = cancelled;
      if (giveBack) {
        d.returning++;
      }
      if (!d.stopped) {
        hold(new LaneJob(lane, envelope, properties, body, d.ticker.nanos(), d.generation));
      }
    } finally {
      d.lock.unlock();
    }
    if (giveBack) {
      giveBack(envelope.getDeliveryTag());
    }
  }
}
