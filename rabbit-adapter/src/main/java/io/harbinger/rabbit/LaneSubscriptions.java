package io.harbinger.rabbit;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Consumer;
import com.rabbitmq.client.Envelope;
import com.rabbitmq.client.ShutdownSignalException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;

/**
 * The subscriptions of a pulling lanes consumer ({@link PullingLanesConsumer}), which consumes its
 * lanes (prefetch 1 each) only while every lane is empty: one subscription per lane, each with a
 * tag of its own, and the strays to cancel.
 *
 * <p>Implementation notes. A subscription's tag is the consumer's tag, the lane's suffix and a
 * serial number, so that no two subscriptions of a lane share one. A stray is a subscription the
 * consumer does not want: one the RabbitMQ client re-registered after an automatic recovery while
 * the lane has another, or one that a cancel raced. A re-registered subscription is adopted when
 * its lane has none, else cancelled, so that a lane is never subscribed twice. A cancel of a
 * subscription the client no longer knows (the channel recovered without it) counts as done.
 *
 * <p>Thread safety: the tags are guarded by the consumer's lock ({@link LaneDispatch#lock}); the
 * calls to RabbitMQ are made without it and serialised by this class, so that subscribing and
 * cancelling never interleave.
 */
final class LaneSubscriptions {

  private final LaneDispatch d;
  private final Listener listener;
  private final String[] tags;
  private final List<String> strays = new ArrayList<>();
  private final Object calls = new Object();
  private long serial;
  private boolean noLocal;
  private Map<String, Object> arguments;

  /** What the consumer does with what its subscriptions hear. */
  interface Listener {

    /**
     * Called when RabbitMQ cancels a subscription (the lane was deleted, say), or a stray.
     *
     * @param lane the lane
     * @param consumerTag the subscription's tag, for {@link #cancelledByBroker}
     */
    void cancelled(int lane, String consumerTag);

    /**
     * Called when a subscription delivers a message.
     *
     * @param lane the lane
     * @param envelope the delivery's envelope
     * @param properties its properties
     * @param body its body
     */
    void delivered(int lane, Envelope envelope, AMQP.BasicProperties properties, byte[] body);
  }

  /**
   * Creates the subscriptions of one consumer.
   *
   * @param d the consumer's shared part: channel, lanes, tag and lock
   * @param listener hears the subscriptions' cancels and deliveries
   */
  LaneSubscriptions(LaneDispatch d, Listener listener) {
    this.d = d;
    this.listener = listener;
    this.tags = new String[d.layout.levels()];
  }

  /**
   * Sets what every subscription passes to {@code basic.consume}, before the first one.
   *
   * @param noLocal the application's {@code noLocal}
   * @param arguments the application's consume arguments, or null; copied
   */
  void configure(boolean noLocal, Map<String, Object> arguments) {
    this.noLocal = noLocal;
    this.arguments = arguments == null ? null : new HashMap<>(arguments);
  }

  /** Whether every lane is subscribed while {@code idle}, and none otherwise. Under the lock. */
  boolean asWanted(boolean idle) {
    for (String t : tags) {
      if ((t != null) != idle) {
        return false;
      }
    }
    return true;
  }

  /** Whether a stray waits to be cancelled. Under the lock. */
  boolean hasStrays() {
    return !strays.isEmpty();
  }

  /**
   * Subscribes every lane while the consumer waits for the lanes (cancels them while it pulls),
   * then cancels the strays.
   *
   * @param want whether the consumer waited for the lanes when it asked
   * @param stillIdle whether it still waits, asked under the lock before each call
   * @throws IOException when RabbitMQ refuses a call
   */
  void update(boolean want, BooleanSupplier stillIdle) throws IOException {
    synchronized (calls) {
      if (want) {
        subscribeAll(stillIdle);
      } else {
        cancel(false, stillIdle);
      }
      cancelStrays();
    }
  }

  /**
   * Cancels every subscription, whatever the consumer waits for.
   *
   * @throws IOException when RabbitMQ refuses a cancel
   */
  void cancelAll() throws IOException {
    synchronized (calls) {
      cancel(true, () -> false);
    }
  }

  /** Subscribes every lane not subscribed yet, while the consumer still waits. */
  private void subscribeAll(BooleanSupplier stillIdle) throws IOException {
    for (int lane = 0; lane < tags.length; lane++) {
      String laneTag;
      d.lock.lock();
      try {
        if (!stillIdle.getAsBoolean() || tags[lane] != null) {
          continue;
        }
        laneTag = d.tag + LaneLayout.LANE_SUFFIX + lane + "." + ++serial;
      } finally {
        d.lock.unlock();
      }
      d.delegate.basicConsume(
          d.layout.laneName(lane),
          false,
          laneTag,
          noLocal,
          false,
          arguments,
          new Subscription(lane));
      d.lock.lock();
      try {
        if (tags[lane] == null) {
          tags[lane] = laneTag;
        } else if (!tags[lane].equals(laneTag)) {
          strays.add(laneTag);
        }
      } finally {
        d.lock.unlock();
      }
    }
  }

  /** Cancels every lane's subscription, or (unless {@code all}) only while the consumer pulls. */
  private void cancel(boolean all, BooleanSupplier stillIdle) throws IOException {
    for (int lane = 0; lane < tags.length; lane++) {
      String laneTag;
      d.lock.lock();
      try {
        laneTag = tags[lane];
        if (laneTag == null || (!all && stillIdle.getAsBoolean())) {
          continue;
        }
      } finally {
        d.lock.unlock();
      }
      cancelTag(laneTag);
      d.lock.lock();
      try {
        if (laneTag.equals(tags[lane])) {
          tags[lane] = null;
        }
      } finally {
        d.lock.unlock();
      }
    }
  }

  private void cancelStrays() throws IOException {
    while (true) {
      String stray;
      d.lock.lock();
      try {
        if (strays.isEmpty()) {
          return;
        }
        stray = strays.get(0);
      } finally {
        d.lock.unlock();
      }
      cancelTag(stray);
      d.lock.lock();
      try {
        strays.remove(stray);
      } finally {
        d.lock.unlock();
      }
    }
  }

  /** Cancels one subscription; one the client no longer knows (a channel recovered) is gone. */
  private void cancelTag(String laneTag) throws IOException {
    try {
      d.delegate.basicCancel(laneTag);
    } catch (IOException e) {
      if (d.delegate.isOpen() && String.valueOf(e.getMessage()).contains("Unknown consumerTag")) {
        return;
      }
      throw e;
    }
  }

  /**
   * Adopts a subscription RabbitMQ confirmed that the consumer does not know yet (one the client
   * re-registered after recovery) when its lane has none, else marks it a stray. Under the lock.
   */
  private void confirmed(int lane, String consumerTag) {
    if (consumerTag.equals(tags[lane]) || strays.contains(consumerTag)) {
      return;
    }
    if (tags[lane] == null && !d.stopped) {
      tags[lane] = consumerTag;
    } else {
      strays.add(consumerTag);
    }
    d.wakeup.signalAll();
  }

  /**
   * Forgets a subscription RabbitMQ cancelled. Under the lock.
   *
   * @param lane the lane
   * @param consumerTag the subscription's tag
   * @return whether it was the lane's subscription (else a stray, now forgotten)
   */
  boolean cancelledByBroker(int lane, String consumerTag) {
    if (!consumerTag.equals(tags[lane])) {
      strays.remove(consumerTag);
      return false;
    }
    tags[lane] = null;
    return true;
  }

  /** The callbacks of one lane's subscription. */
  private final class Subscription implements Consumer {

    private final int lane;

    Subscription(int lane) {
      this.lane = lane;
    }

    @Override
    public void handleConsumeOk(String consumerTag) {
      // A subscription the client re-registered after recovery is adopted, or cancelled when the
      // lane already has one.
      d.lock.lock();
      try {
        confirmed(lane, consumerTag);
      } finally {
        d.lock.unlock();
      }
    }

    @Override
    public void handleCancelOk(String consumerTag) {
      // The consumer's own cancels; the application hears its cancel-ok from the consumer.
    }

    @Override
    public void handleCancel(String consumerTag) {
      listener.cancelled(lane, consumerTag);
    }

    @Override
    public void handleShutdownSignal(String consumerTag, ShutdownSignalException sig) {
      // Heard by the channel's shutdown listener, which also hears it while nothing is subscribed.
    }

    @Override
    public void handleRecoverOk(String consumerTag) {
      // Forwarded once by the consumer.
    }

    @Override
    public void handleDelivery(
        String consumerTag, Envelope envelope, AMQP.BasicProperties properties, byte[] body) {
      listener.delivered(lane, envelope, properties, body);
    }
  }
}
