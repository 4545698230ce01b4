package io.harbinger.rabbit;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Consumer;
import com.rabbitmq.client.Envelope;
import com.rabbitmq.client.ShutdownSignalException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.LongPredicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The consumer of a logical lanes queue on one wrapped channel: one RabbitMQ consumer per lane, one
 * consumer tag for the application, and the scheduling core choosing which held delivery the
 * application gets next ({@link LaneFetch#PUSH}).
 *
 * <p>Implementation notes (seed paper section 3.7). Each lane is consumed with manual
 * acknowledgements and a prefetch of the application's prefetch plus one (by default), so that
 * while the application runs a delivery of a lane, the lane's next delivery is already held. A
 * dispatcher thread hands the application the next one whenever it has room, picked and aged by the
 * scheduling core as {@link LaneDispatch} describes.
 *
 * <p>Only the heads of the lanes are here, so a lane that holds nothing may merely have its next
 * delivery in flight: a lane whose credit was used up (its held and unsettled deliveries reached
 * the lane prefetch) may have more at RabbitMQ than this consumer could take, and a settlement lets
 * RabbitMQ send the next. Such a lane counts as non-empty for selection until its next delivery
 * arrives or the anticipation (20 ms by default) passes: when the selector would serve it, the
 * dispatcher waits for it instead of handing over work of a level served later; and it keeps its
 * virtual clock (the selector is told a level became active only when its lane had been taken for
 * empty). Without this, a short lane with a backlog would look empty between its deliveries and
 * long work would run in its place. A settlement on a lane that still had credit expects nothing:
 * RabbitMQ would have sent what it had, so waiting would only idle a worker. Nor does the consumer
 * wait for a lane whose expected deliveries have lately not come ({@link LaneForecast}): with
 * several consumers on a lane that is rarely backed up, another consumer takes what the freed
 * credit would have brought.
 *
 * <p>Delivery tags, acknowledgements, nacks and requeues pass through unchanged: RabbitMQ returns a
 * requeued message to its own lane. With automatic acknowledgement on the application's side, the
 * lanes are still consumed with manual acknowledgements, and each delivery is acknowledged when it
 * is handed over (so held deliveries stay bounded and a crash loses nothing not handed over). When
 * the consumer is cancelled, what it holds goes back to its lane ({@code basic.reject} with
 * requeue), so that no later multiple settlement of the channel can name it. On a shutdown the held
 * deliveries are dropped (their tags are stale and RabbitMQ redelivers them); an automatically
 * recovering channel re-registers the lane consumers.
 *
 * <p>Thread safety: lane callbacks run on the connection's consumer threads, the application's
 * handler on the dispatcher thread; settlements may come from any thread. All state is guarded by
 * the one lock of its {@link LaneDispatch}, never held while calling the application or RabbitMQ.
 */
final class LanesConsumer implements LanesConsumption {

  private static final Logger LOG = LoggerFactory.getLogger(LanesConsumer.class);

  private final LaneDispatch d;
  private final Channel delegate;
  private final LaneLayout layout;
  private final int lanePrefetch;
  private final List<String> laneTags;
  private final long anticipationNanos;
  private final int[] heldPerLane;
  private final int[] handedPerLane;
  private final long[] expectUntilNanos;
  private final int[] expectedPerLane;
  private final LaneForecast forecast;
  private int consumeOks;
  private int cancelOks;

  LanesConsumer(LanesConsumeRequest request) {
    LaneOptions options = request.options().lanes();
    this.d = new LaneDispatch(request, this::levelFilled);
    this.delegate = d.delegate;
    this.layout = d.layout;
    this.lanePrefetch =
        options.lanePrefetch() > 0
            ? options.lanePrefetch()
            : request.prefetch() == 0 ? 0 : request.prefetch() + 1;
    this.anticipationNanos = options.anticipation().toNanos();
    this.heldPerLane = new int[layout.levels()];
    this.handedPerLane = new int[layout.levels()];
    this.expectUntilNanos = new long[layout.levels()];
    this.expectedPerLane = new int[layout.levels()];
    this.forecast =
        anticipationNanos > 0 ? new LaneForecast(layout.levels(), anticipationNanos) : null;
    Arrays.fill(expectUntilNanos, d.ticker.nanos());
    List<String> tags = new ArrayList<>(layout.levels());
    for (int level = 0; level < layout.levels(); level++) {
      tags.add(d.tag + LaneLayout.LANE_SUFFIX + level);
    }
    this.laneTags = List.copyOf(tags);
  }

  /** Returns the consumer tag the application sees. */
  @Override
  public String tag() {
    return d.tag;
  }

  /** Returns the per-lane prefetch this consumer asked RabbitMQ for, 0 for unlimited. */
  int lanePrefetch() {
    return lanePrefetch;
  }

  /**
   * Checks that every lane exists, then consumes them all and starts the dispatcher.
   *
   * @param noLocal passed to every lane's consume
   * @param exclusive passed to every lane's consume
   * @param arguments passed to every lane's consume, or null
   * @return the application's consumer tag
   * @throws Lanes.LanesException when a lane is missing; nothing was consumed
   * @throws IOException when RabbitMQ refuses a consume
   */
  @Override
  public String start(boolean noLocal, boolean exclusive, Map<String, Object> arguments)
      throws IOException {
    LaneCheck.requireLanes(delegate, layout);
    delegate.basicQos(lanePrefetch, false);
    d.startThread(this::dispatch, "harbinger-lanes-");
    int started = 0;
    try {
      for (int level = 0; level < layout.levels(); level++) {
        delegate.basicConsume(
            layout.laneName(level),
            false,
            laneTags.get(level),
            noLocal,
            exclusive,
            arguments,
            new LaneConsumer(level));
        started++;
      }
    } catch (IOException | RuntimeException e) {
      for (int level = 0; level < started; level++) {
        try {
          delegate.basicCancel(laneTags.get(level));
        } catch (IOException | RuntimeException ignored) {
          // The channel is closed: its consumers are gone with it.
        }
      }
      stop();
      throw e;
    }
    return d.tag;
  }

  /** Cancels every lane; the application hears one cancel-ok once all lanes confirmed. */
  @Override
  public void cancel() throws IOException {
    IOException failure = null;
    for (String laneTag : laneTags) {
      try {
        delegate.basicCancel(laneTag);
      } catch (IOException e) {
        failure = e;
      }
    }
    if (failure != null) {
      throw failure;
    }
  }

  @Override
  public void settled(long deliveryTag, boolean multiple) {
    d.settled(deliveryTag, multiple, this::completed);
  }

  /** Books a settled hand-off: the level's cost, the lane's freed credit. Under the lock. */
  private void completed(LaneJob job, long nowNanos) {
    d.finished(job, nowNanos);
    if (job.generation == d.generation) {
      boolean blocked = creditUsedUp(job.lane, nowNanos);
      handedPerLane[job.lane]--;
      if (blocked) {
        expectNext(job.lane, nowNanos);
      }
    }
  }

  /**
   * Returns whether a lane's held, unsettled and expected deliveries fill its prefetch, so that
   * RabbitMQ holds back what else the lane has. Under the lock.
   */
  private boolean creditUsedUp(int lane, long nowNanos) {
    return lanePrefetch > 0
        && heldPerLane[lane] + handedPerLane[lane] + inFlight(lane, nowNanos) >= lanePrefetch;
  }

  /**
   * Returns how many deliveries a lane is expected to send: one per settlement of its used-up
   * credit, until they arrive or the anticipation passes. Under the lock.
   */
  private int inFlight(int lane, long nowNanos) {
    return expectUntilNanos[lane] - nowNanos > 0 ? expectedPerLane[lane] : 0;
  }

  /** Expects one more delivery of a credit-blocked lane within the anticipation. Under the lock. */
  private void expectNext(int lane, long nowNanos) {
    if (anticipationNanos > 0) {
      forecast.creditFreed(lane, nowNanos);
      expectedPerLane[lane] = inFlight(lane, nowNanos) + 1;
      expectUntilNanos[lane] = nowNanos + anticipationNanos;
    }
  }

  /**
   * Returns the lanes that hold nothing here but whose next delivery is expected: a settlement
   * freed their used-up credit within the anticipation, and what it let RabbitMQ send has not all
   * arrived. Under the lock.
   */
  private int expectedMask(long nowNanos) {
    int mask = 0;
    for (int lane = 0; lane < heldPerLane.length; lane++) {
      if (heldPerLane[lane] == 0
          && inFlight(lane, nowNanos) > 0
          && forecast.worthWaiting(lane, nowNanos)) {
        mask |= 1 << lane;
      }
    }
    return mask;
  }

  /**
   * Called when a level goes from holding nothing to holding a delivery: the selector is told the
   * level became active only when its lane was taken for empty, so that a lane whose next delivery
   * is merely in flight keeps its place (an idle level banks no credit, a busy one loses none).
   */
  private void levelFilled(int level) {
    if (inFlight(level, d.ticker.nanos()) == 0) {
      d.arbiter.activated(level);
    }
  }

  @Override
  public long lowestUnhanded(long upTo, LongPredicate seen) {
    d.lock.lock();
    try {
      return d.lowestUnhanded(upTo, seen);
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
  }

  /**
   * Stops handing over and gives what is held back to its lanes ({@code basic.reject} with requeue)
   * while the channel is open, so that no later settlement of the channel can name it.
   */
  private void giveBackHeld() {
    List<LaneJob> returned;
    d.lock.lock();
    try {
      d.stopped = true;
      d.wakeup.signalAll();
      returned = d.takeAllHeld();
      d.returning += returned.size();
    } finally {
      d.lock.unlock();
    }
    try {
      for (LaneJob job : returned) {
        if (delegate.isOpen()) {
          try {
            delegate.basicReject(job.envelope.getDeliveryTag(), true);
          } catch (IOException | RuntimeException e) {
            LOG.debug("lanes queue '{}': could not return a held delivery", layout.queue(), e);
          }
        }
      }
    } finally {
      d.lock.lock();
      try {
        d.returning -= returned.size();
      } finally {
        d.lock.unlock();
      }
    }
  }

  /** Stops the dispatcher and drops what is held; the lanes' consumers are left to the channel. */
  @Override
  public void stop() {
    d.lock.lock();
    try {
      forgetLanes();
      d.stop();
    } finally {
      d.lock.unlock();
    }
  }

  /** Forgets the per-lane counts and expectations, with what is held. Under the lock. */
  private void forgetLanes() {
    Arrays.fill(heldPerLane, 0);
    Arrays.fill(handedPerLane, 0);
    Arrays.fill(expectedPerLane, 0);
    if (forecast != null) {
      forecast.reset();
    }
  }

  @Override
  public int held() {
    return d.heldCount();
  }

  private void dispatch() {
    while (true) {
      LaneJob job;
      d.lock.lock();
      try {
        int level;
        while (true) {
          if (d.stopped) {
            return;
          }
          long now = d.ticker.nanos();
          d.age(now);
          long waitNanos = d.agingIntervalNanos;
          if (d.held.size() > 0 && d.hasRoom()) {
            int mask = d.held.nonEmptyMask();
            int expected = anticipationNanos == 0 ? 0 : expectedMask(now) & ~mask;
            level = d.arbiter.next(mask | expected);
            if ((expected & (1 << level)) == 0) {
              break;
            }
            // The lane the selector would serve is likely about to deliver: wait for it.
            waitNanos = Math.min(waitNanos, Math.max(1, expectUntilNanos[level] - now));
          }
          d.wakeup.await(waitNanos, TimeUnit.NANOSECONDS);
        }
        job = d.takeHeld(level);
        boolean blocked = creditUsedUp(job.lane, d.ticker.nanos());
        heldPerLane[job.lane]--;
        d.handOff(job, level, d.ticker.nanos());
        if (!d.autoAck) {
          handedPerLane[job.lane]++;
        } else if (blocked) {
          // Acknowledged at hand-off: RabbitMQ may now send this lane's next message.
          expectNext(job.lane, job.handedNanos);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      } finally {
        d.lock.unlock();
      }
      if (d.deliver(job) && d.autoAck) {
        d.lock.lock();
        try {
          // The level's cost is the handler's duration when the consumer acknowledges itself.
          d.finished(job, d.ticker.nanos());
        } finally {
          d.lock.unlock();
        }
      }
    }
  }

  private final class LaneConsumer implements Consumer {

    private final int level;

    LaneConsumer(int level) {
      this.level = level;
    }

    @Override
    public void handleConsumeOk(String consumerTag) {
      boolean all;
      d.lock.lock();
      try {
        consumeOks++;
        all = consumeOks == layout.levels();
        if (all) {
          d.shutdownForwarded = false;
        }
      } finally {
        d.lock.unlock();
      }
      if (all) {
        d.application.handleConsumeOk(d.tag);
      }
    }

    @Override
    public void handleCancelOk(String consumerTag) {
      boolean all;
      d.lock.lock();
      try {
        cancelOks++;
        all = cancelOks == layout.levels();
      } finally {
        d.lock.unlock();
      }
      if (all) {
        giveBackHeld();
        stop();
        d.application.handleCancelOk(d.tag);
      }
    }

    @Override
    public void handleCancel(String consumerTag) throws IOException {
      if (!d.firstCancel()) {
        return;
      }
      LOG.warn(
          "RabbitMQ cancelled the consumer of lane '{}' of '{}' (was the lane deleted?); cancelling"
              + " the other lanes",
          layout.laneName(level),
          layout.queue());
      for (int other = 0; other < laneTags.size(); other++) {
        if (other != level) {
          try {
            delegate.basicCancel(laneTags.get(other));
          } catch (IOException | RuntimeException ignored) {
            // Already gone.
          }
        }
      }
      giveBackHeld();
      stop();
      d.application.handleCancel(d.tag);
    }

    @Override
    public void handleShutdownSignal(String consumerTag, ShutdownSignalException sig) {
      boolean first;
      d.lock.lock();
      try {
        consumeOks = 0;
        forgetLanes();
        first = d.shutDown(sig);
      } finally {
        d.lock.unlock();
      }
      if (first) {
        d.application.handleShutdownSignal(d.tag, sig);
      }
    }

    @Override
    public void handleRecoverOk(String consumerTag) {
      if (level == 0) {
        d.application.handleRecoverOk(d.tag);
      }
    }

    @Override
    public void handleDelivery(
        String consumerTag, Envelope envelope, AMQP.BasicProperties properties, byte[] body) {
      d.lock.lock();
      try {
        if (d.stopped) {
          return;
        }
        long now = d.ticker.nanos();
        d.hold(new LaneJob(level, envelope, properties, body, now, d.generation));
        heldPerLane[level]++;
        if (forecast != null) {
          forecast.delivered(level, now);
        }
        if (expectedPerLane[level] > 0) {
          // One of the deliveries the lane was expected to send has come.
          expectedPerLane[level]--;
        }
      } finally {
        d.lock.unlock();
      }
    }
  }
}
