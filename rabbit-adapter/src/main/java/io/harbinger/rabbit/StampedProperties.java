package io.harbinger.rabbit;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.impl.ContentHeaderPropertyWriter;
import java.io.IOException;
import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.Date;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Set;

/**
 * The properties a wrapped channel publishes: the caller's, read through, with the stamp's
 * priority, identity and {@code x-harbinger} header over them, and nothing copied.
 *
 * <p>Implementation notes. {@code AMQP.BasicProperties}' own constructor copies the headers into a
 * new map, and its getters and {@link #writePropertiesTo} read its private fields; this subclass
 * leaves those fields empty and overrides every getter, the encoding ({@link #writePropertiesTo}
 * writes exactly what {@code AMQP.BasicProperties} with the same values writes, in the same order),
 * {@link #builder} and the debug string, so that whoever reads it, the client's encoder, an
 * observation collector that adds trace headers through {@link #builder}, or a test, sees the
 * stamped values. The headers are a read-only view of the caller's plus the stamp, which replaces a
 * caller value of its name; the stamp's value is a byte array of its ASCII text ({@link
 * StampHeader#encodeInto}).
 *
 * <p>An instance may be refilled for the next publish ({@link #fill}), reusing its stamp array, by
 * a channel whose delegate encodes a publish before {@code basicPublish} returns and keeps nothing
 * of it (the client's own channels): then a publish allocates nothing here. A publish that must be
 * remembered (a mandatory one, which may come back) keeps a {@link #snapshot}.
 *
 * <p>Not thread-safe: one publish at a time.
 */
final class StampedProperties extends AMQP.BasicProperties {

  private AMQP.BasicProperties caller;
  private Map<String, Object> callerHeaders;
  private Integer priority;
  private String userId;
  private String appId;
  private byte[] stamp;
  private int level;
  private boolean shadow;
  private final Headers headers = new Headers();

  StampedProperties() {}

  /**
   * Fills this object for one publish.
   *
   * @param caller the caller's properties, or null; never modified
   * @param level the stamped level
   * @param priority the priority to publish with, or null for none
   * @param userId the {@code user-id} to publish with, or null
   * @param appId the {@code app-id} to publish with, or null for the caller's
   * @param publishedAtMicros the publish time in epoch microseconds
   * @param mode the stamp's mode: {@code predictive}, {@code shadow} or {@code off}
   * @return this object
   */
  StampedProperties fill(
      AMQP.BasicProperties caller,
      int level,
      Integer priority,
      String userId,
      String appId,
      long publishedAtMicros,
      String mode) {
    this.caller = caller;
    this.callerHeaders = caller == null ? null : caller.getHeaders();
    this.priority = priority;
    this.userId = userId;
    this.appId = appId;
    this.level = level;
    this.shadow = MessageStamper.SHADOW_MODE.equals(mode);
    this.stamp = StampHeader.encodeInto(publishedAtMicros, level, mode, stamp);
    return this;
  }

  /**
   * Sets the caller's properties the next {@link #fill} reads through.
   *
   * @param caller the caller's properties, or null
   */
  void caller(AMQP.BasicProperties caller) {
    this.caller = caller;
    this.callerHeaders = caller == null ? null : caller.getHeaders();
  }

  /** Returns the stamped level. */
  int level() {
    return level;
  }

  /** Returns whether the stamp is in shadow mode. */
  boolean shadow() {
    return shadow;
  }

  /** Returns the caller's properties this object reads through, or null. */
  AMQP.BasicProperties caller() {
    return caller;
  }

  /**
   * Returns plain properties with the same values, and the stamp as its own array: what may be kept
   * after this object is refilled.
   *
   * @return new properties
   */
  AMQP.BasicProperties snapshot() {
    return builder().build();
  }

  @Override
  public String getContentType() {
    return caller == null ? null : caller.getContentType();
  }

  @Override
  public String getContentEncoding() {
    return caller == null ? null : caller.getContentEncoding();
  }

  @Override
  public Map<String, Object> getHeaders() {
    return headers;
  }

  @Override
  public Integer getDeliveryMode() {
    return caller == null ? null : caller.getDeliveryMode();
  }

  @Override
  public Integer getPriority() {
    return priority;
  }

  @Override
  public String getCorrelationId() {
    return caller == null ? null : caller.getCorrelationId();
  }

  @Override
  public String getReplyTo() {
    return caller == null ? null : caller.getReplyTo();
  }

  @Override
  public String getExpiration() {
    return caller == null ? null : caller.getExpiration();
  }

  @Override
  public String getMessageId() {
    return caller == null ? null : caller.getMessageId();
  }

  @Override
  public Date getTimestamp() {
    return caller == null ? null : caller.getTimestamp();
  }

  @Override
  public String getType() {
    return caller == null ? null : caller.getType();
  }

  @Override
  public String getUserId() {
    return userId;
  }

  @Override
  public String getAppId() {
    return appId != null ? appId : caller == null ? null : caller.getAppId();
  }

  @Override
  public String getClusterId() {
    return caller == null ? null : caller.getClusterId();
  }

  @Override
  public void writePropertiesTo(ContentHeaderPropertyWriter writer) throws IOException {
    String contentType = getContentType();
    String contentEncoding = getContentEncoding();
    Integer deliveryMode = getDeliveryMode();
    String correlationId = getCorrelationId();
    String replyTo = getReplyTo();
    String expiration = getExpiration();
    String messageId = getMessageId();
    Date timestamp = getTimestamp();
    String type = getType();
    String app = getAppId();
    String clusterId = getClusterId();
    writer.writePresence(contentType != null);
    writer.writePresence(contentEncoding != null);
    writer.writePresence(true);
    writer.writePresence(deliveryMode != null);
    writer.writePresence(priority != null);
    writer.writePresence(correlationId != null);
    writer.writePresence(replyTo != null);
    writer.writePresence(expiration != null);
    writer.writePresence(messageId != null);
    writer.writePresence(timestamp != null);
    writer.writePresence(type != null);
    writer.writePresence(userId != null);
    writer.writePresence(app != null);
    writer.writePresence(clusterId != null);
    writer.finishPresence();
    if (contentType != null) {
      writer.writeShortstr(contentType);
    }
    if (contentEncoding != null) {
      writer.writeShortstr(contentEncoding);
    }
    writer.writeTable(headers);
    if (deliveryMode != null) {
      writer.writeOctet(deliveryMode);
    }
    if (priority != null) {
      writer.writeOctet(priority);
    }
    if (correlationId != null) {
      writer.writeShortstr(correlationId);
    }
    if (replyTo != null) {
      writer.writeShortstr(replyTo);
    }
    if (expiration != null) {
      writer.writeShortstr(expiration);
    }
    if (messageId != null) {
      writer.writeShortstr(messageId);
    }
    if (timestamp != null) {
      writer.writeTimestamp(timestamp);
    }
    if (type != null) {
      writer.writeShortstr(type);
    }
    if (userId != null) {
      writer.writeShortstr(userId);
    }
    if (app != null) {
      writer.writeShortstr(app);
    }
    if (clusterId != null) {
      writer.writeShortstr(clusterId);
    }
  }

  /** A builder of plain properties with these values; the headers are a copy, stamp included. */
  @Override
  public Builder builder() {
    Map<String, Object> copy = new HashMap<>(headers.size() * 2);
    if (callerHeaders != null) {
      copy.putAll(callerHeaders);
    }
    copy.put(HarbingerHeaders.STAMP, stamp.clone());
    return new Builder()
        .contentType(getContentType())
        .contentEncoding(getContentEncoding())
        .headers(copy)
        .deliveryMode(getDeliveryMode())
        .priority(priority)
        .correlationId(getCorrelationId())
        .replyTo(getReplyTo())
        .expiration(getExpiration())
        .messageId(getMessageId())
        .timestamp(getTimestamp())
        .type(getType())
        .userId(userId)
        .appId(getAppId())
        .clusterId(getClusterId());
  }

  @Override
  public void appendPropertyDebugStringTo(StringBuilder acc) {
    snapshot().appendPropertyDebugStringTo(acc);
  }

  @Override
  public boolean equals(Object o) {
    return this == o;
  }

  @Override
  public int hashCode() {
    return System.identityHashCode(this);
  }

  /**
   * The headers: the caller's, read through, and the stamp. Iterating allocates nothing beyond the
   * caller's own map's iterator: the entry set, its iterator and the stamp's entry are this view's
   * own, reused, since the client's encoder walks a table twice per publish (size, then bytes).
   */
  private final class Headers extends AbstractMap<String, Object> {
    private final Entries entries = new Entries();

    @Override
    public int size() {
      if (callerHeaders == null) {
        return 1;
      }
      return callerHeaders.containsKey(HarbingerHeaders.STAMP)
          ? callerHeaders.size()
          : callerHeaders.size() + 1;
    }

    @Override
    public Object get(Object name) {
      if (HarbingerHeaders.STAMP.equals(name)) {
        return stamp;
      }
      return callerHeaders == null ? null : callerHeaders.get(name);
    }

    @Override
    public boolean containsKey(Object name) {
      return HarbingerHeaders.STAMP.equals(name)
          || (callerHeaders != null && callerHeaders.containsKey(name));
    }

    @Override
    public Set<Entry<String, Object>> entrySet() {
      return entries;
    }
  }

  private final class Entries extends AbstractSet<Map.Entry<String, Object>> {
    private final Walk walk = new Walk();

    @Override
    public Iterator<Map.Entry<String, Object>> iterator() {
      walk.start();
      return walk;
    }

    @Override
    public int size() {
      return headers.size();
    }
  }

  /** One walk over the headers; restarted by each {@code iterator()} call. */
  private final class Walk
      implements Iterator<Map.Entry<String, Object>>, Map.Entry<String, Object> {
    private Iterator<Map.Entry<String, Object>> callerEntries;
    private Map.Entry<String, Object> next;
    private boolean stampDone;

    void start() {
      callerEntries = callerHeaders == null ? null : callerHeaders.entrySet().iterator();
      next = null;
      stampDone = false;
    }

    @Override
    public boolean hasNext() {
      if (next != null) {
        return true;
      }
      while (callerEntries != null && callerEntries.hasNext()) {
        Map.Entry<String, Object> e = callerEntries.next();
        if (!HarbingerHeaders.STAMP.equals(e.getKey())) {
          next = e;
          return true;
        }
      }
      if (stampDone) {
        return false;
      }
      stampDone = true;
      next = this;
      return true;
    }

    @Override
    public Map.Entry<String, Object> next() {
      if (!hasNext()) {
        throw new NoSuchElementException();
      }
      Map.Entry<String, Object> e = next;
      next = null;
      return e;
    }

    @Override
    public String getKey() {
      return HarbingerHeaders.STAMP;
    }

    @Override
    public Object getValue() {
      return stamp;
    }

    @Override
    public Object setValue(Object value) {
      throw new UnsupportedOperationException("the stamped headers are read-only");
    }

    /** As {@link Map.Entry#hashCode}, for the stamp's entry. */
    @Override
    public int hashCode() {
      return HarbingerHeaders.STAMP.hashCode() ^ java.util.Objects.hashCode(stamp);
    }

    /** As {@link Map.Entry#equals}, for the stamp's entry. */
    @Override
    public boolean equals(Object o) {
      return o instanceof Map.Entry<?, ?> e
          && HarbingerHeaders.STAMP.equals(e.getKey())
          && java.util.Objects.equals(stamp, e.getValue());
    }
  }
}
