package io.harbinger.rabbit;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Envelope;
import com.rabbitmq.client.GetResponse;
import com.rabbitmq.client.impl.recovery.AutorecoveringChannel;
import com.rabbitmq.client.impl.recovery.RecoveryAwareChannelN;
import java.util.Collection;
import java.util.TreeSet;

/**
 * The delivery tags of the messages a pulling lanes consumer takes with {@code basic.get} across a
 * recovery of its channel: numbered as the RabbitMQ client numbers pushed deliveries, and those it
 * had handed over, unsettled, when the channel shut down, which are stale.
 *
 * <p>Implementation notes. The RabbitMQ client numbers a recovered channel's pushed deliveries on
 * from the highest tag it pushed before (its tag offset), so that a late settlement of an old
 * delivery is dropped instead of naming a new one; it does neither for {@code basic.get}. So the
 * offset is added to each tag taken ({@link #numbered}), and the client takes it off again when the
 * application settles the delivery. The tags handed over and unsettled when the channel shut down
 * are kept: the wrapped channel drops a settlement of one of them ({@link #settle}), and the
 * consumer takes nothing new until each is settled or its handler has returned ({@link #none}), so
 * that no stale tag can name a new delivery.
 *
 * <p>The static methods are thread-safe; an instance is not: its consumer uses it under its lock.
 */
final class PulledTags {

  private final TreeSet<Long> stale = new TreeSet<>();

  /** Keeps the tags handed over and unsettled when the channel shut down. */
  void shutDown(Collection<Long> unsettled) {
    stale.addAll(unsettled);
  }

  /** Whether no stale tag is left, so that the consumer may take new deliveries. */
  boolean none() {
    return stale.isEmpty();
  }

  /**
   * Forgets the stale tags a settlement names.
   *
   * @param deliveryTag the tag settled
   * @param multiple whether every tag up to it is settled too
   * @return whether the settlement named a stale tag, and is to be dropped
   */
  boolean settle(long deliveryTag, boolean multiple) {
    if (!multiple) {
      return stale.remove(deliveryTag);
    }
    var head = stale.headSet(deliveryTag, true);
    boolean named = !head.isEmpty();
    head.clear();
    return named;
  }

  /**
   * Forgets the stale tag of a delivery whose handler returned.
   *
   * @return whether it was the last stale tag
   */
  boolean handlerReturned(long deliveryTag) {
    return stale.remove(deliveryTag) && stale.isEmpty();
  }

  /** Forgets every stale tag: the consumer stopped. */
  void clear() {
    stale.clear();
  }

  /**
   * Returns a message taken with {@code basic.get}, its tag plus the channel's offset.
   *
   * @param channel the channel it was taken on
   * @param response what {@code basic.get} answered, or null for an empty queue
   * @return the message as the application is to see it, or null
   */
  static GetResponse numbered(Channel channel, GetResponse response) {
    long offset = tagOffset(channel);
    if (response == null || offset == 0) {
      return response;
    }
    Envelope e = response.getEnvelope();
    return new GetResponse(
        new Envelope(
            e.getDeliveryTag() + offset, e.isRedeliver(), e.getExchange(), e.getRoutingKey()),
        response.getProps(),
        response.getBody(),
        response.getMessageCount());
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
}
