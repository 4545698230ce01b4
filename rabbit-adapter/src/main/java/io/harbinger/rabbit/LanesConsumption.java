package io.harbinger.rabbit;

import java.io.IOException;
import java.util.Map;
import java.util.function.LongPredicate;

/**
 * What a wrapped channel needs of the consumer of one logical lanes queue: {@link LanesConsumer}
 * (push: each lane's next delivery held) or {@link PullingLanesConsumer} (pull: a message taken
 * only when the application has room).
 *
 * <p>Thread safety: every implementation is thread-safe.
 */
interface LanesConsumption {

  /** Creates the consumer of one logical lanes queue; the constructors of both kinds. */
  @FunctionalInterface
  interface Factory {
    LanesConsumption create(LanesConsumeRequest request);
  }

  /** Returns the consumer tag the application sees. */
  String tag();

  /**
   * Checks that every lane exists, then starts consuming them.
   *
   * @param noLocal passed to every lane's consume
   * @param exclusive passed to every lane's consume
   * @param arguments passed to every lane's consume, or null
   * @return the application's consumer tag
   * @throws io.harbinger.rabbit.Lanes.LanesException when a lane is missing; nothing was consumed
   * @throws IOException when RabbitMQ refuses a consume
   */
  String start(boolean noLocal, boolean exclusive, Map<String, Object> arguments)
      throws IOException;

  /** Cancels the consumption; the application hears one cancel-ok. */
  void cancel() throws IOException;

  /**
   * Whether a settlement names only deliveries this consumer handed over before its channel shut
   * down. The wrapped channel then sends nothing (RabbitMQ returned those deliveries to their lanes
   * when the channel closed) and the consumer forgets them. Pushed deliveries never are: the
   * RabbitMQ client already drops their stale tags.
   *
   * @param deliveryTag the tag settled
   * @param multiple whether every tag up to it is settled too
   * @return true when the settlement is to be dropped
   */
  default boolean stale(long deliveryTag, boolean multiple) {
    return false;
  }

  /**
   * Records the application's settlement of delivery tags of this channel.
   *
   * @param deliveryTag the tag settled
   * @param multiple whether every tag up to it is settled too
   */
  void settled(long deliveryTag, boolean multiple);

  /**
   * Returns the lowest delivery tag up to a bound that a settlement of the channel must not name:
   * one this consumer received and has not handed to the application (held, being handed over,
   * being given back or taken with a {@code basic.get} still in flight), so that a multiple
   * settlement is sent as settlements that leave it alone.
   *
   * @param upTo the highest tag of interest
   * @param seen whether the application's handler has started on a delivery tag
   * @return the lowest such tag; {@link Long#MAX_VALUE} when there is none up to the bound; 0 when
   *     the consumer cannot tell (a {@code basic.get} in flight, deliveries being given back), so
   *     that only deliveries the application was handed are settled, one by one
   */
  long lowestUnhanded(long upTo, LongPredicate seen);

  /**
   * Whether the consumer has stopped and returned what it held: after a cancel it needs no more
   * settlements' care.
   */
  boolean finished();

  /** Forgets the unsettled hand-offs after {@code basic.recover}: RabbitMQ redelivers them. */
  void recovered();

  /** Stops handing over and drops what is held (the channel is closing). */
  void stop();

  /** Returns how many deliveries this consumer holds now, received but not handed over. */
  int held();
}
