package io.harbinger.rabbit;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.impl.ChannelN;
import com.rabbitmq.client.impl.recovery.AutorecoveringChannel;
import java.io.IOException;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The publish path of a wrapped channel: every {@code basicPublish} overload comes to {@link
 * #publish}, which applies a {@link MessageStamper}'s stamp to the caller's properties (the
 * priority, the producer identity, {@code user-id} or {@code app-id} where so configured, and the
 * {@code x-harbinger} header), picks the lane of a logical lanes queue, remembers a publish that
 * may come back ({@link ReturnedMessages}) and sends it on the delegate.
 *
 * <p>Implementation notes. The stamper hands the stamp's values to {@link #fill} (a {@link
 * MessageStamper.Applier}), so no {@link Stamp} object is made on this path. The properties sent
 * are a {@link StampedProperties}: the caller's read through, nothing copied, the caller's object
 * and headers never modified. When the delegate is the RabbitMQ client's own channel, which encodes
 * a publish before {@code basicPublish} returns and keeps nothing of it, one such object per
 * channel is refilled for every publish (taken from a one-slot spare; a concurrent publish on the
 * same channel makes its own), so a publish allocates nothing here; any other delegate, which might
 * keep the properties it is given, gets a new object per publish. A publish that may come back
 * (mandatory or immediate) is remembered with the caller's properties, keyed by the stamp's text. A
 * publish to a logical lanes queue (on the default exchange) goes to the lane of the message's
 * level, the lowest lane in shadow mode so that delivery order stays as without Harbinger, with the
 * caller's own priority.
 *
 * <p>Thread-safe: the stamper, the spare and the returned messages are, and nothing else is shared.
 */
final class StampingPublisher {

  private final MessageStamper stamper;
  private final String jobTypeHeader;
  private final AdapterStats stats;
  private final ReturnedMessages returns = new ReturnedMessages(1024);
  private final AtomicReference<StampedProperties> spare =
      new AtomicReference<>(new StampedProperties());

  /**
   * Creates the publish path of one channel.
   *
   * @param options how the channel is wrapped
   * @param brokerVersion the version the broker reports, or null when unknown
   */
  StampingPublisher(ChannelOptions options, String brokerVersion) {
    stamper = MessageStamper.create(options, brokerVersion);
    stats = options.stats();
    jobTypeHeader = stamper.jobTypeHeader();
  }

  /** Returns the publishes that may come back, whose listeners hear the caller's properties. */
  ReturnedMessages returns() {
    return returns;
  }

  /**
   * Stamps one publish, routes it to its lane when it addresses a logical lanes queue, remembers it
   * when it may come back, and sends it with the delegate's overload of its body type, with all its
   * parameters (so mandatory, immediate, confirms and transactions behave as without the wrapper).
   *
   * @param delegate the application's channel
   * @param exchange the exchange, empty or null for the default exchange
   * @param routingKey the routing key
   * @param mandatory the caller's {@code mandatory}
   * @param immediate the caller's {@code immediate}
   * @param props the caller's properties, or null; untouched
   * @param bytes the body, or null
   * @throws IOException as the delegate's publish
   */
  void publish(
      Channel delegate,
      String exchange,
      String routingKey,
      boolean mandatory,
      boolean immediate,
      AMQP.BasicProperties props,
      byte[] bytes)
      throws IOException {
    long length = bytes == null ? 0 : bytes.length;
    LaneLayout layout =
        exchange == null || exchange.isEmpty() ? DeclaredLanes.SHARED.layout(routingKey) : null;
    StampedProperties reused = encodesAtOnce(delegate) ? spare.getAndSet(null) : null;
    StampedProperties stamped = reused != null ? reused : new StampedProperties();
    try {
      String target;
      if (layout != null) {
        stamp(stamped, "", layout.queue(), props, length, true);
        if (stamped.level() >= layout.levels()) {
          stats.increment(Counter.INVALID_LEVEL);
        }
        target = layout.laneFor(stamped.level(), stamped.shadow());
      } else {
        stamp(stamped, exchange, routingKey, props, length, false);
        target = routingKey;
      }
      if (mandatory || immediate) {
        returns.remember(exchange, target, length, stamped, props);
      }
      delegate.basicPublish(exchange, target, mandatory, immediate, stamped, bytes);
    } finally {
      if (reused != null) {
        reused.caller(null); // keeps nothing of the application's between publishes
        spare.set(reused);
      }
    }
  }

  /** Fills {@code into} with the stamp of one publish; lanes keep the caller's priority. */
  private void stamp(
      StampedProperties into,
      String exchange,
      String routingKey,
      AMQP.BasicProperties props,
      long bodyLength,
      boolean callersPriority) {
    Map<String, Object> callerHeaders = props == null ? null : props.getHeaders();
    Integer callerPriority = props == null ? null : props.getPriority();
    into.caller(props);
    stamper.stamp(
        exchange,
        routingKey,
        callerHeaders == null ? null : callerHeaders.get(jobTypeHeader),
        stamper.sizeHint(callerHeaders, bodyLength),
        callerPriority,
        props == null ? null : props.getUserId(),
        into,
        callersPriority ? StampingPublisher::fillKeepingPriority : StampingPublisher::fill);
  }

  /** Applies a stamp's values to the properties to send. */
  private static StampedProperties fill(
      StampedProperties into,
      int level,
      Integer priority,
      String userId,
      String appId,
      long publishedAtMicros,
      String mode) {
    return into.fill(into.caller(), level, priority, userId, appId, publishedAtMicros, mode);
  }

  /** Applies a stamp's values but the priority, which stays the caller's: a lane's publish. */
  private static StampedProperties fillKeepingPriority(
      StampedProperties into,
      int level,
      Integer priority,
      String userId,
      String appId,
      long publishedAtMicros,
      String mode) {
    AMQP.BasicProperties caller = into.caller();
    return into.fill(
        caller,
        level,
        caller == null ? null : caller.getPriority(),
        userId,
        appId,
        publishedAtMicros,
        mode);
  }

  /**
   * Returns whether a channel is the RabbitMQ client's own, which encodes a publish's properties
   * before {@code basicPublish} returns and keeps no reference to them.
   */
  private static boolean encodesAtOnce(Channel delegate) {
    return delegate instanceof ChannelN || delegate instanceof AutorecoveringChannel;
  }
}
