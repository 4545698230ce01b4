package io.harbinger.rabbit;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Consumer;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongPredicate;

/**
 * The lanes consumers of one wrapped channel, by the consumer tag the application sees: a consumer
 * of a logical lanes queue consumes every lane ({@link LanesConsumer} with {@link LaneFetch#PUSH},
 * {@link PullingLanesConsumer} with {@link LaneFetch#PULL} when it has a prefetch or automatic
 * acknowledgement), and the channel's settlements, recoveries and shutdowns reach each of them. A
 * cancelled consumer is kept, retiring, until it has stopped and given back what it held, so that a
 * multiple settlement meanwhile still leaves its deliveries alone ({@link #lowestUnhanded}).
 *
 * <p>Thread-safe: concurrent collections, read without locking on every settlement.
 */
final class LanesConsumerRegistry {

  private final Channel delegate;
  private final ChannelOptions options;
  private final DeliveryTracker tracker;
  private final Map<String, LanesConsumption> consumers = new ConcurrentHashMap<>();
  private final Set<LanesConsumption> retiring = ConcurrentHashMap.newKeySet();

  /**
   * Creates the registry of one wrapped channel.
   *
   * @param delegate the application's channel, which the lanes are consumed on
   * @param options how the channel is wrapped
   * @param tracker the tracker of the channel's deliveries, which times the application's handler
   */
  LanesConsumerRegistry(Channel delegate, ChannelOptions options, DeliveryTracker tracker) {
    this.delegate = delegate;
    this.options = options;
    this.tracker = tracker;
  }

  /**
   * Consumes every lane of a logical lanes queue for the application.
   *
   * @param layout the logical queue's lanes
   * @param autoAck whether the application acknowledges automatically
   * @param consumerTag the application's tag, or null or empty for a generated one
   * @param noLocal passed to every lane's consume
   * @param exclusive passed to every lane's consume
   * @param arguments passed to every lane's consume, or null
   * @param callback the application's consumer
   * @param prefetch the application's effective prefetch, 0 for none
   * @return the application's consumer tag
   * @throws IllegalArgumentException when the tag is used on this channel already
   * @throws IOException when RabbitMQ refuses a consume
   */
  String consume(
      LaneLayout layout,
      boolean autoAck,
      String consumerTag,
      boolean noLocal,
      boolean exclusive,
      Map<String, Object> arguments,
      Consumer callback,
      int prefetch)
      throws IOException {
    if (callback == null) {
      throw new NullPointerException("callback");
    }
    if (consumerTag != null && consumers.containsKey(consumerTag)) {
      throw new IllegalArgumentException(
          "consumer tag '" + consumerTag + "' is already used on this channel");
    }
    LanesConsumption.Factory factory =
        options.lanes().fetch().on(layout.type(), exclusive) == LaneFetch.PULL
                && (autoAck || prefetch > 0)
            ? PullingLanesConsumer::new
            : LanesConsumer::new;
    LanesConsumption consumer =
        factory.create(
            new LanesConsumeRequest(
                delegate,
                layout,
                options,
                new TimedConsumer(callback, tracker, autoAck),
                consumerTag,
                autoAck,
                prefetch));
    consumers.put(consumer.tag(), consumer);
    try {
      return consumer.start(noLocal, exclusive, arguments);
    } catch (IOException | RuntimeException e) {
      consumers.remove(consumer.tag());
      throw e;
    }
  }

  /**
   * Cancels the lanes consumer of a tag, if it is one.
   *
   * @param consumerTag the application's tag, or null
   * @return false when no lanes consumer has the tag (the channel cancels it itself)
   * @throws IOException when RabbitMQ refuses a lane's cancel
   */
  boolean cancel(String consumerTag) throws IOException {
    LanesConsumption consumer = consumerTag == null ? null : consumers.remove(consumerTag);
    if (consumer == null) {
      return false;
    }
    retiring.removeIf(LanesConsumption::finished);
    retiring.add(consumer);
    consumer.cancel();
    return true;
  }

  /**
   * Whether the channel has a lanes consumer, consuming or retiring: its multiple settlements must
   * leave what they hold alone.
   */
  boolean any() {
    if (!consumers.isEmpty()) {
      return true;
    }
    if (retiring.isEmpty()) {
      return false;
    }
    retiring.removeIf(LanesConsumption::finished);
    return !retiring.isEmpty();
  }

  /**
   * Returns the lowest delivery tag up to a bound that a lanes consumer of the channel received and
   * has not handed to the application (see {@link LanesConsumption#lowestUnhanded}).
   *
   * @param upTo the highest tag of interest
   * @param seen whether the application's handler has started on a delivery tag
   * @return the lowest such tag, {@link Long#MAX_VALUE} for none, 0 when one cannot be told
   */
  long lowestUnhanded(long upTo, LongPredicate seen) {
    long lowest = Long.MAX_VALUE;
    for (LanesConsumption c : all()) {
      lowest = Math.min(lowest, c.lowestUnhanded(upTo, seen));
    }
    return lowest;
  }

  /** Returns the consumers consuming, then those retiring. */
  private Iterable<LanesConsumption> all() {
    if (retiring.isEmpty()) {
      return consumers.values();
    }
    List<LanesConsumption> all = new ArrayList<>(consumers.values());
    all.addAll(retiring);
    return all;
  }

  /**
   * Whether a pulling lanes consumer handed these tags before the channel shut down (see {@link
   * LanesConsumption#stale}).
   */
  boolean stale(long deliveryTag, boolean multiple) {
    if (!consumers.isEmpty() || !retiring.isEmpty()) {
      for (LanesConsumption c : all()) {
        if (c.stale(deliveryTag, multiple)) {
          return true;
        }
      }
    }
    return false;
  }

  /** Tells every lanes consumer of a settlement the channel sent. */
  void settled(long deliveryTag, boolean multiple) {
    if (!consumers.isEmpty() || !retiring.isEmpty()) {
      for (LanesConsumption c : all()) {
        c.settled(deliveryTag, multiple);
      }
    }
  }

  /** Tells every lanes consumer that {@code basic.recover} returned their hand-offs. */
  void recovered() {
    all().forEach(LanesConsumption::recovered);
  }

  /** Stops every lanes consumer and forgets them: the channel is closing. */
  void stop() {
    for (LanesConsumption c : all()) {
      c.stop();
    }
    consumers.clear();
    retiring.clear();
  }

  /** Returns how many deliveries the lanes consumers hold now. */
  int held() {
    int held = 0;
    for (LanesConsumption c : all()) {
      held += c.held();
    }
    return held;
  }
}
