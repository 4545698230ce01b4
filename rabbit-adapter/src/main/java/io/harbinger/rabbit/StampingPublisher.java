package io.harbinger.rabbit;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import java.io.IOException;
import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.Iterator;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Set;

/**
 * The publish path of a wrapped channel: every {@code basicPublish} overload comes to {@link
 * #publish}, which applies a {@link MessageStamper}'s {@link Stamp} to the caller's properties (the
 * priority, the producer identity, {@code user-id} or {@code app-id} where so configured, and the
 * {@code x-harbinger} header), picks the lane of a logical lanes queue, remembers a publish that
 * may come back ({@link ReturnedMessages}) and sends it on the delegate.
 *
 * <p>Implementation notes. The stamper hands the stamp's values to {@link #properties} (a {@link
 * MessageStamper.Applier}), so no {@link Stamp} object is made on this path. A publish allocates
 * one properties object and the {@code x-harbinger} header's value; the properties' constructor
 * copies the caller's headers plus the stamp header from a {@link HeadersWithStamp} view (copy on
 * write: the caller's properties and headers are never modified); every other property is the
 * caller's. A publish to a logical lanes queue (on the default exchange) goes to the lane of the
 * message's level, the lowest lane in shadow mode so that delivery order stays as without
 * Harbinger, with the caller's own priority; it allocates the pair of lane and properties too.
 *
 * <p>Thread-safe: the stamper and the returned messages are, and nothing else is shared.
 */
final class StampingPublisher {

  private final MessageStamper stamper;
  private final String jobTypeHeader;
  private final AdapterStats stats;
  private final ReturnedMessages returns = new ReturnedMessages(1024);

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
    String target;
    AMQP.BasicProperties stamped;
    if (layout != null) {
      LanePublish p = stampLane(layout, props, length);
      target = p.lane();
      stamped = p.properties();
    } else {
      target = routingKey;
      stamped = stamp(exchange, routingKey, props, length);
    }
    if (mandatory || immediate) {
      returns.remember(exchange, target, length, stamped, props);
    }
    delegate.basicPublish(exchange, target, mandatory, immediate, stamped, bytes);
  }

  /**
   * Returns the properties to publish in place of the caller's.
   *
   * @param exchange the exchange published to, empty for the default exchange
   * @param routingKey the routing key, the queue's name on the default exchange
   * @param props the caller's properties, or null
   * @param bodyLength the body length in bytes, the size hint when size hints are on and the caller
   *     set no {@code x-size-hint} header
   * @return new properties; the caller's are untouched
   */
  AMQP.BasicProperties stamp(
      String exchange, String routingKey, AMQP.BasicProperties props, long bodyLength) {
    Map<String, Object> callerHeaders = props == null ? null : props.getHeaders();
    return stamper.stamp(
        exchange,
        routingKey,
        callerHeaders == null ? null : callerHeaders.get(jobTypeHeader),
        stamper.sizeHint(callerHeaders, bodyLength),
        props == null ? null : props.getPriority(),
        props == null ? null : props.getUserId(),
        props,
        StampingPublisher::properties);
  }

  /** A publish to a logical lanes queue: the lane to route to and the properties to send. */
  record LanePublish(String lane, AMQP.BasicProperties properties) {}

  /**
   * Returns the lane and properties of a publish to a logical lanes queue: the lane of the
   * message's level (the lowest lane in shadow mode, so that delivery order stays as without
   * Harbinger), with the stamped headers and identity and the caller's own priority.
   *
   * @param lanes the logical queue's layout
   * @param props the caller's properties, or null
   * @param bodyLength the body length in bytes
   * @return the lane and the properties
   */
  LanePublish stampLane(LaneLayout lanes, AMQP.BasicProperties props, long bodyLength) {
    Map<String, Object> callerHeaders = props == null ? null : props.getHeaders();
    return stamper.stamp(
        "",
        lanes.queue(),
        callerHeaders == null ? null : callerHeaders.get(jobTypeHeader),
        stamper.sizeHint(callerHeaders, bodyLength),
        props == null ? null : props.getPriority(),
        props == null ? null : props.getUserId(),
        props,
        (p, level, priority, userId, appId, publishedAt, mode) -> {
          if (level >= lanes.levels()) {
            stats.increment(Counter.INVALID_LEVEL);
          }
          return new LanePublish(
              lanes.laneFor(level, MessageStamper.SHADOW_MODE.equals(mode)),
              properties(
                  p, level, p == null ? null : p.getPriority(), userId, appId, publishedAt, mode));
        });
  }

  /** Builds the properties to send from the caller's and the stamp's values. */
  private static AMQP.BasicProperties properties(
      AMQP.BasicProperties props,
      int level,
      Integer priority,
      String userId,
      String appId,
      long publishedAtMicros,
      String mode) {
    String stamp = Stamp.headerValue(publishedAtMicros, level, mode);
    if (props == null) {
      return new AMQP.BasicProperties(
          null,
          null,
          new HeadersWithStamp(null, stamp),
          null,
          priority,
          null,
          null,
          null,
          null,
          null,
          null,
          userId,
          appId,
          null);
    }
    // The constructor copies the headers view into a map of its own.
    return new AMQP.BasicProperties(
        props.getContentType(),
        props.getContentEncoding(),
        new HeadersWithStamp(props.getHeaders(), stamp),
        props.getDeliveryMode(),
        priority,
        props.getCorrelationId(),
        props.getReplyTo(),
        props.getExpiration(),
        props.getMessageId(),
        props.getTimestamp(),
        props.getType(),
        userId,
        appId == null ? props.getAppId() : appId,
        props.getClusterId());
  }

  /**
   * A read-only view of the caller's headers plus the {@link HarbingerHeaders#STAMP} header, which
   * replaces any caller value of that name.
   *
   * <p>Implementation notes. {@code AMQP.BasicProperties} copies the headers map it is given into a
   * {@code HashMap} of its own, so handing it this view instead of a merged copy saves one map per
   * publish without ever exposing or changing the caller's map (copy on write: the caller's
   * properties and headers are never modified).
   *
   * <p>Not thread-safe; lives for one publish.
   */
  static final class HeadersWithStamp extends AbstractMap<String, Object> {

    private static final String NAME = HarbingerHeaders.STAMP;

    private final Map<String, Object> caller;
    private final String stamp;

    /**
     * Creates the view.
     *
     * @param caller the caller's headers, or null
     * @param stamp the value of the stamp header
     */
    HeadersWithStamp(Map<String, Object> caller, String stamp) {
      this.caller = caller;
      this.stamp = stamp;
    }

    @Override
    public int size() {
      if (caller == null) {
        return 1;
      }
      return caller.containsKey(NAME) ? caller.size() : caller.size() + 1;
    }

    @Override
    public Object get(Object name) {
      if (NAME.equals(name)) {
        return stamp;
      }
      return caller == null ? null : caller.get(name);
    }

    @Override
    public boolean containsKey(Object name) {
      return NAME.equals(name) || (caller != null && caller.containsKey(name));
    }

    @Override
    public Set<Entry<String, Object>> entrySet() {
      return new AbstractSet<>() {
        @Override
        public Iterator<Entry<String, Object>> iterator() {
          return new Entries();
        }

        @Override
        public int size() {
          return HeadersWithStamp.this.size();
        }
      };
    }

    private final class Entries implements Iterator<Entry<String, Object>> {
      private final Iterator<Entry<String, Object>> callerEntries =
          caller == null ? null : caller.entrySet().iterator();
      private Entry<String, Object> next;
      private boolean ownDone;

      @Override
      public boolean hasNext() {
        if (next != null) {
          return true;
        }
        while (callerEntries != null && callerEntries.hasNext()) {
          Entry<String, Object> e = callerEntries.next();
          if (!NAME.equals(e.getKey())) {
            next = e;
            return true;
          }
        }
        if (ownDone) {
          return false;
        }
        next = new SimpleImmutableEntry<>(NAME, stamp);
        ownDone = true;
        return true;
      }

      @Override
      public Entry<String, Object> next() {
        if (!hasNext()) {
          throw new NoSuchElementException();
        }
        Entry<String, Object> e = next;
        next = null;
        return e;
      }
    }
  }
}
