package io.harbinger.rabbit;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Consumer;
import com.rabbitmq.client.Envelope;
import com.rabbitmq.client.GetResponse;
import com.rabbitmq.client.Recoverable;
import com.rabbitmq.client.RecoveryListener;
import com.rabbitmq.client.ShutdownListener;
import com.rabbitmq.client.ShutdownSignalException;
import com.rabbitmq.client.impl.recovery.AutorecoveringChannel;
import com.rabbitmq.client.impl.recovery.RecoveryAwareChannelN;
import io.harbinger.predictor.Keys;
import io.harbinger.predictor.Ticker;
import io.harbinger.scheduler.Aging;
import io.harbinger.scheduler.KeyedCostAverage;
import io.harbinger.scheduler.LevelArbiter;
import io.harbinger.scheduler.SchedulerConfig;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The consumer of a logical lanes queue that takes a lane's message only when its application has
 * room for one ({@link LaneFetch#PULL}), so that a busy consumer holds nothing another consumer of
 * the lanes could run, as a consumer of one priority queue with prefetch 1 holds nothing.
 *
 * <p>Implementation notes (seed paper section 3.7, served the way the production-flow replay's
 * lanes arms assume: a free worker takes the head of the level the selector picks). While the
 * application has fewer unsettled hand-offs than its prefetch, the dispatcher asks the scheduling
 * core's {@link LevelArbiter} for a level among the lanes not yet found empty in this round and
 * takes that lane's next message with {@code basic.get} (manual acknowledgement); an empty lane
 * drops out of the round and the arbiter is asked again. A lane found empty is reported to the
 * arbiter as activated before it is tried again, so that an idle level banks no credit. When every
 * lane is empty, the consumer subscribes to every lane with prefetch 1 and waits; it hands over
 * what arrives and, from then on, pulls again and cancels the subscriptions. A thread of its own
 * subscribes and cancels, so no hand-over waits for those calls; what reaches the consumer while it
 * cancels is held in {@link HeldDeliveries}, handed over before the lanes are tried again and aged
 * as in {@link LanesConsumer}.
 *
 * <p>Taking ahead. A {@code basic.get} is a round trip, and on a quorum queue a consensus write, so
 * a worker would idle a round trip (and one more per empty lane tried) between jobs. While the
 * application is full and nothing is held, the subscriber thread takes the next message ahead
 * shortly before the running job is expected to end: at its hand-off plus the running average of
 * its key's jobs (producer and job type, as the reports key them; else of its level's jobs) less
 * one round trip per lane (the consumer's running average of its own {@code basic.get} calls), at
 * once behind a job shorter than that. The worker goes on at once, and the held message waits about
 * as long as those round trips when the job ends as expected, longer only by what the job overruns
 * that average. A level's average mixes its kinds of job, so behind a quick job of a level whose
 * average is long the worker would idle; the key's average times it. A job with neither average
 * yet, or a consumer that has not timed a {@code basic.get} yet, takes nothing ahead, and a free
 * consumer takes what arrives meanwhile.
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
 * automatically recovering channel the consumer resumes after recovery: each subscription has a tag
 * of its own, and one that the client re-registers is adopted or cancelled, never duplicated.
 *
 * <p>Delivery tags across a recovery. The RabbitMQ client numbers a recovered channel's pushed
 * deliveries on from the highest tag it pushed before (its tag offset), so that a late settlement
 * of an old delivery is dropped instead of naming a new one; it does neither for {@code basic.get}.
 * So the consumer adds the channel's offset to each tag it takes, which the client takes off again
 * when the application settles it, and keeps the tags it had handed over, unsettled, when the
 * channel shut down: the wrapped channel drops a settlement of one of them ({@link #stale}), and
 * the consumer takes nothing new until each is settled or its handler has returned, so that no
 * stale tag can name a new delivery. A lane deleted while the consumer pulls closes the channel
 * ({@code basic.get} on a missing queue is a channel error), which the application hears as a
 * shutdown naming the lane.
 *
 * <p>Thread safety: the dispatcher thread takes messages and runs the application's handler, the
 * subscriber thread takes messages ahead, subscribes and cancels, lane callbacks run on the
 * connection's consumer threads and settlements may come from any thread. All state is guarded by
 * one lock, never held while calling the application or RabbitMQ; subscribing and cancelling are
 * serialised by a second one.
 */
final class PullingLanesConsumer implements LanesConsumption {

  private static final Logger LOG = LoggerFactory.getLogger(PullingLanesConsumer.class);

  /** EWMA weight of one {@code basic.get} round trip. */
  private static final double GET_WEIGHT = 0.2;

  /** The most keys whose running cost a consumer keeps for timing what it takes ahead. */
  static final int MAX_COST_KEYS = 1024;

  private final Channel delegate;
  private final LaneLayout layout;
  private final Consumer application;
  private final String tag;
  private final boolean autoAck;
  private final int maxUnsettled;
  private final AdapterStats stats;
  private final Ticker ticker;
  private final String jobTypeHeader;
  private final KeyedCostAverage keyCosts = new KeyedCostAverage(MAX_COST_KEYS);
  private final int allLanes;
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition wakeup = lock.newCondition();
  private final Object subscriptionCalls = new Object();
  private final NavigableMap<Long, LaneJob> handed = new TreeMap<>();
  private final TreeSet<Long> staleTags = new TreeSet<>();
  private final LevelArbiter arbiter;
  private final Aging aging;
  private final HeldDeliveries held;
  private final long agingIntervalNanos;
  private final String[] subscriptionTags;
  private final List<String> strays = new ArrayList<>();
  private final ShutdownListener shutdownListener = this::channelShutdown;
  private final RecoveryListener recoveryListener = new ChannelRecovery();
  private boolean noLocal;
  private Map<String, Object> arguments;
  private int emptyLanes;
  private boolean idle;
  private boolean aheadPlanned;
  private long aheadAtNanos;
  private boolean aheadInFlight;
  private double getNanos = Double.NaN;
  private long subscriptions;
  private long generation;
  private boolean stopped;
  private boolean cancelled;
  private boolean channelDown;
  private boolean shutdownForwarded;
  private boolean cancelForwarded;
  private long lastAgingNanos;

  PullingLanesConsumer(
      Channel delegate,
      LaneLayout layout,
      ChannelOptions channelOptions,
      Consumer application,
      String consumerTag,
      boolean autoAck,
      int applicationPrefetch) {
    LaneOptions options = channelOptions.lanes();
    if (!autoAck && applicationPrefetch <= 0) {
      throw new IllegalArgumentException(
          "pulling lanes needs a consumer prefetch (basicQos) or automatic acknowledgement");
    }
    this.delegate = delegate;
    this.layout = layout;
    SchedulerConfig config = options.schedulerConfig(layout.levels());
    this.application = application;
    this.tag =
        consumerTag == null || consumerTag.isEmpty()
            ? "harbinger-lanes-" + UUID.randomUUID()
            : consumerTag;
    this.autoAck = autoAck;
    this.maxUnsettled = autoAck ? 1 : applicationPrefetch;
    this.stats = channelOptions.stats();
    this.ticker = channelOptions.ticker();
    this.jobTypeHeader = channelOptions.jobTypeHeader();
    this.allLanes = (1 << layout.levels()) - 1;
    this.agingIntervalNanos = options.agingInterval().toNanos();
    this.arbiter = new LevelArbiter(layout.levels(), config.newSelector());
    this.aging = config.newAging();
    this.held = new HeldDeliveries(layout.levels(), level -> {});
    this.subscriptionTags = new String[layout.levels()];
    this.lastAgingNanos = ticker.nanos();
  }

  @Override
  public String tag() {
    return tag;
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
    this.noLocal = noLocal;
    this.arguments = arguments == null ? null : new HashMap<>(arguments);
    delegate.basicQos(1, false);
    delegate.addShutdownListener(shutdownListener);
    if (delegate instanceof Recoverable r) {
      r.addRecoveryListener(recoveryListener);
    }
    Thread dispatcher = new Thread(this::dispatch, "harbinger-lanes-" + layout.queue());
    dispatcher.setDaemon(true);
    Thread subscriber = new Thread(this::subscribe, "harbinger-lanes-sub-" + layout.queue());
    subscriber.setDaemon(true);
    dispatcher.start();
    subscriber.start();
    application.handleConsumeOk(tag);
    return tag;
  }

  @Override
  public void cancel() throws IOException {
    lock.lock();
    try {
      if (cancelled) {
        return;
      }
      cancelled = true;
      stopped = true;
      wakeup.signalAll();
    } finally {
      lock.unlock();
    }
    IOException failure = null;
    synchronized (subscriptionCalls) {
      try {
        cancelSubscriptions(true);
      } catch (IOException e) {
        failure = e;
      }
    }
    List<LaneJob> returned = new ArrayList<>();
    lock.lock();
    try {
      for (int level = 0; level < layout.levels(); level++) {
        for (LaneJob job = held.poll(level); job != null; job = held.poll(level)) {
          returned.add(job);
        }
      }
      if (!returned.isEmpty()) {
        stats.laneHeldChanged(-returned.size());
      }
    } finally {
      lock.unlock();
    }
    for (LaneJob job : returned) {
      giveBack(job);
    }
    delegate.removeShutdownListener(shutdownListener);
    if (delegate instanceof Recoverable r) {
      r.removeRecoveryListener(recoveryListener);
    }
    application.handleCancelOk(tag);
    if (failure != null) {
      throw failure;
    }
  }

  @Override
  public void settled(long deliveryTag, boolean multiple) {
    lock.lock();
    try {
      long now = ticker.nanos();
      if (LaneJob.settle(handed, deliveryTag, multiple, job -> completed(job, now))) {
        wakeup.signalAll();
      }
    } finally {
      lock.unlock();
    }
  }

  @Override
  public boolean stale(long deliveryTag, boolean multiple) {
    lock.lock();
    try {
      if (staleTags.isEmpty()) {
        return false;
      }
      boolean stale;
      if (multiple) {
        var head = staleTags.headSet(deliveryTag, true);
        stale = !head.isEmpty();
        head.clear();
      } else {
        stale = staleTags.remove(deliveryTag);
      }
      if (staleTags.isEmpty()) {
        wakeup.signalAll();
      }
      return stale;
    } finally {
      lock.unlock();
    }
  }

  private void completed(LaneJob job, long nowNanos) {
    if (job.generation == generation) {
      finished(job, nowNanos);
    }
  }

  /** Books a job's duration for its level and its key. Under the lock. */
  private void finished(LaneJob job, long nowNanos) {
    long took = nowNanos - job.handedNanos;
    arbiter.finished(job.pulledLevel, took);
    if (job.costKey != null && !job.costKey.isEmpty()) {
      keyCosts.add(job.costKey, took);
    }
  }

  @Override
  public void recovered() {
    lock.lock();
    try {
      handed.clear();
      wakeup.signalAll();
    } finally {
      lock.unlock();
    }
    application.handleRecoverOk(tag);
  }

  @Override
  public void stop() {
    lock.lock();
    try {
      stopped = true;
      dropHeld();
      handed.clear();
      staleTags.clear();
      wakeup.signalAll();
    } finally {
      lock.unlock();
    }
  }

  @Override
  public int held() {
    lock.lock();
    try {
      return held.size();
    } finally {
      lock.unlock();
    }
  }

  /** Drops what is held and starts a new generation of delivery tags. Under the lock. */
  private void dropHeld() {
    int dropped = held.clear();
    if (dropped > 0) {
      stats.laneHeldChanged(-dropped);
    }
    generation++;
  }

  private boolean hasRoom() {
    return handed.size() < maxUnsettled;
  }

  private void dispatch() {
    int round = allLanes;
    while (true) {
      LaneJob job = null;
      int lane = -1;
      long generationAtGet;
      lock.lock();
      try {
        while (true) {
          if (stopped) {
            return;
          }
          long now = ticker.nanos();
          if (now - lastAgingNanos >= agingIntervalNanos) {
            aging.pass(held, now);
            lastAgingNanos = now;
          }
          // A message being taken ahead is waited for, so that a lane's messages keep their order.
          if (!channelDown && staleTags.isEmpty() && hasRoom() && !aheadInFlight) {
            int heldMask = held.nonEmptyMask();
            if (heldMask != 0) {
              // Taken ahead, or reached the consumer while it subscribed or cancelled.
              job = take(arbiter.next(heldMask), now);
              break;
            }
            if (!idle) {
              int candidates = round;
              if (candidates == 0) {
                // Every lane is empty: subscribe to them all and wait for what comes.
                idle = true;
                round = allLanes;
                wakeup.signalAll();
                continue;
              }
              for (int fresh = candidates & emptyLanes; fresh != 0; fresh &= fresh - 1) {
                arbiter.activated(Integer.numberOfTrailingZeros(fresh));
              }
              lane = arbiter.next(candidates);
              break;
            }
          }
          wakeup.await(agingIntervalNanos, TimeUnit.NANOSECONDS);
        }
        generationAtGet = generation;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      } finally {
        lock.unlock();
      }
      if (job == null) {
        GetResponse response;
        try {
          response = timedGet(lane);
        } catch (IOException | RuntimeException e) {
          if (!awaitChannel(e)) {
            return;
          }
          continue;
        }
        lock.lock();
        try {
          long now = ticker.nanos();
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
          if (generationAtGet != generation) {
            // The channel shut down meanwhile: the tag is stale and RabbitMQ redelivers the
            // message.
            continue;
          }
          if (stopped) {
            job = null;
          } else {
            emptyLanes &= ~(1 << lane);
            handOff(job, lane, now);
          }
        } finally {
          lock.unlock();
        }
        if (job == null) {
          // Taken after the application cancelled: back to its lane.
          giveBack(response.getEnvelope().getDeliveryTag());
          continue;
        }
      }
      round = allLanes;
      boolean returned = LaneHandOff.run(delegate, application, tag, job, autoAck, layout.queue());
      lock.lock();
      try {
        if (returned && autoAck) {
          // The job's cost is the handler's duration when the consumer acknowledges itself.
          finished(job, ticker.nanos());
        }
        if (job.generation != generation
            && staleTags.remove(job.envelope.getDeliveryTag())
            && staleTags.isEmpty()) {
          // The channel shut down under the handler, which has returned: its tag is no longer
          // waited for.
          wakeup.signalAll();
        }
      } finally {
        lock.unlock();
      }
    }
  }

  /** Holds a message taken ahead or delivered by a subscription. Under the lock. */
  private void hold(LaneJob job) {
    held.add(job);
    stats.laneHeldChanged(1);
    emptyLanes &= ~(1 << job.lane);
    wakeup.signalAll();
  }

  /** Takes the head of a held level and hands it off. Under the lock. */
  private LaneJob take(int level, long nowNanos) {
    LaneJob job = held.poll(level);
    stats.laneHeldChanged(-1);
    emptyLanes &= ~(1 << job.lane);
    handOff(job, level, nowNanos);
    return job;
  }

  /**
   * Books a hand-off and stops waiting for the lanes; behind a job short enough, asks for the next
   * message to be taken ahead. Under the lock.
   */
  private void handOff(LaneJob job, int level, long nowNanos) {
    arbiter.started(level, Double.NaN);
    job.pulledLevel = level;
    job.handedNanos = nowNanos;
    job.costKey = costKey(job.properties);
    stats.laneHandedOff(nowNanos - job.receivedNanos);
    if (!autoAck) {
      handed.put(job.envelope.getDeliveryTag(), job);
    }
    if (idle) {
      idle = false;
      wakeup.signalAll();
    }
    planAhead(job, nowNanos);
  }

  /** The key of a delivery for its running cost: producer ({@code user-id}) and job type. */
  private String costKey(AMQP.BasicProperties properties) {
    if (properties == null) {
      return Keys.NO_KEY;
    }
    return Keys.of(
        properties.getUserId(), DeliveryTracker.jobType(properties.getHeaders(), jobTypeHeader));
  }

  /**
   * Plans to take the next message while the application runs a job, when the application is then
   * full and nothing is held: shortly before the job is expected to end, so that the worker does
   * not idle the round trips of a {@code basic.get} between jobs while the message held meanwhile
   * waits little. The job is expected to take its key's running average, else its level's. Under
   * the lock.
   */
  private void planAhead(LaneJob job, long nowNanos) {
    double average = keyCosts.averageMillis(job.costKey) * 1e6;
    if (Double.isNaN(average)) {
      average = arbiter.averageCostMillis(job.pulledLevel) * 1e6;
    }
    aheadPlanned =
        (autoAck || handed.size() >= maxUnsettled)
            && held.size() == 0
            && !Double.isNaN(average)
            && !Double.isNaN(getNanos);
    if (aheadPlanned) {
      double lead = getNanos * layout.levels();
      aheadAtNanos = nowNanos + (long) Math.max(0, average - lead);
      wakeup.signalAll();
    }
  }

  /** Whether a planned take-ahead is due. Under the lock. */
  private boolean aheadDue(long nowNanos) {
    return aheadPlanned && nowNanos - aheadAtNanos >= 0;
  }

  /**
   * Takes a lane's next message, its tag numbered as the client numbers pushed deliveries (plus the
   * channel's tag offset after a recovery), and keeps the running average of the round trip.
   */
  private GetResponse timedGet(int lane) throws IOException {
    long start = ticker.nanos();
    GetResponse response = delegate.basicGet(layout.laneName(lane), false);
    long took = ticker.nanos() - start;
    stats.increment(response == null ? Counter.LANE_EMPTY_GET : Counter.LANE_GET);
    long offset = tagOffset(delegate);
    if (response != null && offset != 0) {
      Envelope e = response.getEnvelope();
      response =
          new GetResponse(
              new Envelope(
                  e.getDeliveryTag() + offset, e.isRedeliver(), e.getExchange(), e.getRoutingKey()),
              response.getProps(),
              response.getBody(),
              response.getMessageCount());
    }
    lock.lock();
    try {
      getNanos = Double.isNaN(getNanos) ? took : getNanos + GET_WEIGHT * (took - getNanos);
    } finally {
      lock.unlock();
    }
    return response;
  }

  /**
   * The offset the RabbitMQ client subtracts from a settled tag on an automatically recovering
   * channel (the highest tag it pushed on the channel before each recovery), or 0.
   */
  static long tagOffset(Channel channel) {
    if (channel instanceof AutorecoveringChannel recovering
        && recovering.getDelegate() instanceof RecoveryAwareChannelN aware) {
      return aware.getActiveDeliveryTagOffset();
    }
    return 0;
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
      lock.lock();
      try {
        int candidates = round & ~held.nonEmptyMask();
        if (stopped
            || channelDown
            || !staleTags.isEmpty()
            || idle
            || held.size() > 0
            || !(autoAck || handed.size() >= maxUnsettled)
            || candidates == 0) {
          return;
        }
        for (int fresh = candidates & emptyLanes; fresh != 0; fresh &= fresh - 1) {
          arbiter.activated(Integer.numberOfTrailingZeros(fresh));
        }
        lane = arbiter.next(candidates);
        generationAtGet = generation;
        aheadInFlight = true;
      } finally {
        lock.unlock();
      }
      GetResponse response;
      try {
        response = timedGet(lane);
      } catch (IOException | RuntimeException e) {
        lock.lock();
        try {
          aheadInFlight = false;
          wakeup.signalAll();
        } finally {
          lock.unlock();
        }
        throw e;
      }
      boolean giveBack = false;
      lock.lock();
      try {
        // Cleared together with holding what came, so the dispatcher never takes a later one first.
        aheadInFlight = false;
        wakeup.signalAll();
        if (response == null) {
          round &= ~(1 << lane);
          emptyLanes |= 1 << lane;
          continue;
        }
        if (generationAtGet != generation) {
          return;
        }
        if (stopped) {
          giveBack = true;
        } else {
          stats.increment(Counter.LANE_TAKEN_AHEAD);
          hold(
              new LaneJob(
                  lane,
                  response.getEnvelope(),
                  response.getProps(),
                  response.getBody(),
                  ticker.nanos(),
                  generationAtGet));
        }
      } finally {
        lock.unlock();
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
    lock.lock();
    try {
      if (stopped) {
        return false;
      }
      LOG.debug("lanes queue '{}': a call on the channel failed; waiting", layout.queue(), e);
      wakeup.await(agingIntervalNanos, TimeUnit.NANOSECONDS);
      return !stopped;
    } catch (InterruptedException interrupted) {
      Thread.currentThread().interrupt();
      return false;
    } finally {
      lock.unlock();
    }
  }

  private void giveBack(LaneJob job) {
    giveBack(job.envelope.getDeliveryTag());
  }

  private void giveBack(long deliveryTag) {
    if (!delegate.isOpen()) {
      return;
    }
    try {
      delegate.basicReject(deliveryTag, true);
    } catch (IOException | RuntimeException e) {
      LOG.debug("lanes queue '{}': could not return delivery {}", layout.queue(), deliveryTag, e);
    }
  }

  /**
   * The subscriber thread: takes a message ahead when the dispatcher asks, subscribes while the
   * dispatcher waits for the lanes, else cancels.
   */
  private void subscribe() {
    while (true) {
      boolean want;
      boolean ahead;
      lock.lock();
      try {
        while (!stopped
            && (channelDown
                || (!aheadDue(ticker.nanos()) && strays.isEmpty() && subscribedAsWanted()))) {
          if (aheadPlanned) {
            // Woken by the clock for the take-ahead, checked at least every aging interval.
            long left = Math.min(aheadAtNanos - ticker.nanos(), agingIntervalNanos);
            wakeup.await(Math.max(left, 1), TimeUnit.NANOSECONDS);
          } else {
            wakeup.await();
          }
        }
        if (stopped) {
          return;
        }
        want = idle;
        ahead = aheadDue(ticker.nanos());
        if (ahead) {
          aheadPlanned = false;
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      } finally {
        lock.unlock();
      }
      try {
        if (ahead) {
          takeAhead();
        }
        synchronized (subscriptionCalls) {
          if (want) {
            subscribeAll();
          } else {
            cancelSubscriptions(false);
          }
          cancelStrays();
        }
      } catch (IOException | RuntimeException e) {
        if (!awaitChannel(e)) {
          return;
        }
      }
    }
  }

  /** Whether every lane is subscribed while idle, and none while pulling. Under the lock. */
  private boolean subscribedAsWanted() {
    for (String t : subscriptionTags) {
      if ((t != null) != idle) {
        return false;
      }
    }
    return true;
  }

  /** Subscribes every lane not subscribed yet, while the dispatcher still waits. */
  private void subscribeAll() throws IOException {
    for (int lane = 0; lane < layout.levels(); lane++) {
      String laneTag;
      lock.lock();
      try {
        if (stopped || !idle || subscriptionTags[lane] != null) {
          continue;
        }
        laneTag = tag + LaneLayout.LANE_SUFFIX + lane + "." + ++subscriptions;
      } finally {
        lock.unlock();
      }
      delegate.basicConsume(
          layout.laneName(lane), false, laneTag, noLocal, false, arguments, new LaneConsumer(lane));
      lock.lock();
      try {
        if (subscriptionTags[lane] == null) {
          subscriptionTags[lane] = laneTag;
        } else if (!subscriptionTags[lane].equals(laneTag)) {
          strays.add(laneTag);
        }
      } finally {
        lock.unlock();
      }
    }
  }

  /** Cancels every lane's subscription, or (unless {@code all}) only while the dispatcher pulls. */
  private void cancelSubscriptions(boolean all) throws IOException {
    for (int lane = 0; lane < layout.levels(); lane++) {
      String laneTag;
      lock.lock();
      try {
        laneTag = subscriptionTags[lane];
        if (laneTag == null || (!all && idle && !stopped)) {
          continue;
        }
      } finally {
        lock.unlock();
      }
      cancelTag(laneTag);
      lock.lock();
      try {
        if (laneTag.equals(subscriptionTags[lane])) {
          subscriptionTags[lane] = null;
        }
      } finally {
        lock.unlock();
      }
    }
  }

  private void cancelStrays() throws IOException {
    while (true) {
      String stray;
      lock.lock();
      try {
        if (strays.isEmpty()) {
          return;
        }
        stray = strays.get(0);
      } finally {
        lock.unlock();
      }
      cancelTag(stray);
      lock.lock();
      try {
        strays.remove(stray);
      } finally {
        lock.unlock();
      }
    }
  }

  /** Cancels one subscription; one the client no longer knows (a channel recovered) is gone. */
  private void cancelTag(String laneTag) throws IOException {
    try {
      delegate.basicCancel(laneTag);
    } catch (IOException e) {
      if (delegate.isOpen() && String.valueOf(e.getMessage()).contains("Unknown consumerTag")) {
        return;
      }
      throw e;
    }
  }

  private void channelShutdown(ShutdownSignalException sig) {
    LOG.debug("lanes queue '{}': the channel shut down", layout.queue(), sig);
    boolean forward;
    lock.lock();
    try {
      forward = !shutdownForwarded && !cancelled;
      shutdownForwarded = true;
      dropHeld();
      staleTags.addAll(handed.keySet());
      handed.clear();
      if (!(delegate instanceof Recoverable) || sig.isInitiatedByApplication()) {
        stopped = true;
      } else {
        channelDown = true;
      }
      wakeup.signalAll();
    } finally {
      lock.unlock();
    }
    if (forward) {
      application.handleShutdownSignal(tag, sig);
    }
  }

  /** Resumes pulling once an automatically recovering channel is back. */
  private final class ChannelRecovery implements RecoveryListener {

    @Override
    public void handleRecovery(Recoverable recoverable) {
      lock.lock();
      try {
        channelDown = false;
        shutdownForwarded = false;
        wakeup.signalAll();
      } finally {
        lock.unlock();
      }
    }

    @Override
    public void handleRecoveryStarted(Recoverable recoverable) {
      // Nothing to do until the channel is back.
    }
  }

  /** The callbacks of one lane's subscription. */
  private final class LaneConsumer implements Consumer {

    private final int lane;

    LaneConsumer(int lane) {
      this.lane = lane;
    }

    @Override
    public void handleConsumeOk(String consumerTag) {
      // A subscription the client re-registered after recovery is adopted, or cancelled when the
      // lane already has one.
      lock.lock();
      try {
        if (consumerTag.equals(subscriptionTags[lane]) || strays.contains(consumerTag)) {
          return;
        }
        if (subscriptionTags[lane] == null && !stopped) {
          subscriptionTags[lane] = consumerTag;
        } else {
          strays.add(consumerTag);
        }
        wakeup.signalAll();
      } finally {
        lock.unlock();
      }
    }

    @Override
    public void handleCancelOk(String consumerTag) {
      // The consumer's own cancels; the application hears its cancel-ok from cancel().
    }

    @Override
    public void handleCancel(String consumerTag) {
      boolean forward;
      lock.lock();
      try {
        if (!consumerTag.equals(subscriptionTags[lane])) {
          strays.remove(consumerTag);
          return;
        }
        subscriptionTags[lane] = null;
        forward = !cancelForwarded && !cancelled;
        cancelForwarded = true;
        stopped = true;
        wakeup.signalAll();
      } finally {
        lock.unlock();
      }
      if (!forward) {
        return;
      }
      LOG.warn(
          "RabbitMQ cancelled the subscription to lane '{}' of '{}' (was the lane deleted?);"
              + " stopping the consumer",
          layout.laneName(lane),
          layout.queue());
      synchronized (subscriptionCalls) {
        try {
          cancelSubscriptions(true);
        } catch (IOException | RuntimeException ignored) {
          // Already gone.
        }
      }
      try {
        application.handleCancel(tag);
      } catch (IOException e) {
        LOG.debug("the application's handleCancel threw", e);
      }
    }

    @Override
    public void handleShutdownSignal(String consumerTag, ShutdownSignalException sig) {
      // Heard by the channel's shutdown listener, which also hears it while nothing is subscribed.
    }

    @Override
    public void handleRecoverOk(String consumerTag) {
      // Forwarded once by recovered().
    }

    @Override
    public void handleDelivery(
        String consumerTag, Envelope envelope, AMQP.BasicProperties properties, byte[] body) {
      boolean giveBack;
      lock.lock();
      try {
        giveBack = cancelled;
        if (!stopped) {
          hold(new LaneJob(lane, envelope, properties, body, ticker.nanos(), generation));
        }
      } finally {
        lock.unlock();
      }
      if (giveBack) {
        giveBack(envelope.getDeliveryTag());
      }
    }
  }
}
