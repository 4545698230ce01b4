package io.harbinger.rabbit;

import java.util.Map;
import java.util.Objects;

/**
 * What Harbinger puts on one outgoing message: its level, the AMQP priority and {@code user-id} to
 * publish with, and the headers to add.
 *
 * <p>A {@link MessageStamper} computes it; the wrapped channel and framework integrations apply it
 * to their own message types, so every integration stamps the same way. Example, for a trained key
 * at level 0 of 3 on a classic priority queue: level 0, priority 2, the connection's user, and the
 * one header {@code x-harbinger = v1;l=0;m=p;t=...} carrying the publish time in epoch
 * microseconds, the level and the mode.
 *
 * <p>Immutable and thread-safe.
 */
public final class Stamp {

  private final Integer level;
  private final Integer priority;
  private final String userId;
  private final String appId;
  private final long publishedAtMicros;
  private final String mode;
  private final String header;

  /**
   * Creates a stamp.
   *
   * @param level the level chosen, in [0, 10) (in shadow mode, the level that would have been
   *     chosen)
   * @param priority the AMQP priority to publish with, or null to send none
   * @param userId the {@code user-id} to publish with, non-null
   * @param publishedAtMicros the publish time, in epoch microseconds, positive
   * @param mode {@code predictive}, {@code shadow} or {@code off}
   */
  public Stamp(int level, Integer priority, String userId, long publishedAtMicros, String mode) {
    this(
        null,
        level,
        priority,
        Objects.requireNonNull(userId, "userId"),
        null,
        publishedAtMicros,
        mode);
  }

  /** Creates a stamp from a {@link MessageStamper}'s values; the context is unused. */
  Stamp(
      Object context,
      int level,
      Integer priority,
      String userId,
      String appId,
      long publishedAtMicros,
      String mode) {
    // Checks the level, the time and the mode, each with its rule.
    this.header = StampHeader.encode(publishedAtMicros, level, mode);
    this.level = level;
    this.priority = priority;
    this.userId = userId;
    this.appId = appId;
    this.publishedAtMicros = publishedAtMicros;
    this.mode = mode;
  }

  /**
   * Returns the level chosen, 0 served first.
   *
   * @return the level
   */
  public int level() {
    return level;
  }

  /**
   * Returns the AMQP priority to publish with: the level's priority on the queue's type, or the
   * caller's own in shadow mode and on queues without priorities.
   *
   * @return the priority, or null for none
   */
  public Integer priority() {
    return priority;
  }

  /**
   * Returns the {@code user-id} to publish with: the connection's user, or with {@link
   * ProducerProperty#APP_ID} the caller's own.
   *
   * @return the user, or null for none
   */
  public String userId() {
    return userId;
  }

  /**
   * Returns the {@code app-id} to publish with: null (keep the caller's), or with {@link
   * ProducerProperty#APP_ID} the producer identity.
   *
   * @return the producer identity, or null
   */
  public String appId() {
    return appId;
  }

  /**
   * Returns the publish time carried by the {@code x-harbinger} header.
   *
   * @return epoch microseconds
   */
  public long publishedAtMicros() {
    return publishedAtMicros;
  }

  /**
   * Returns the mode the level was chosen in.
   *
   * @return {@code predictive}, {@code shadow} or {@code off}
   */
  public String mode() {
    return mode;
  }

  /**
   * Returns the value of the {@link HarbingerHeaders#STAMP} header this stamp adds.
   *
   * <p>Format: {@code v1;l=LEVEL;m=MODE;t=MICROS}, with the mode as one letter ({@code p}
   * predictive, {@code s} shadow, {@code o} off) and the publish time in epoch microseconds. Level
   * 0, predictive, published at 2026-12-01T12:00:00.000001Z: {@code v1;l=0;m=p;t=1796126400000001}.
   *
   * @return the header's value, 29 characters for any time before the year 2286
   */
  public String headerValue() {
    return header;
  }

  /**
   * Returns the value of the {@link HarbingerHeaders#STAMP} header of a stamp given by its values:
   * the one definition of the header's format ({@link #headerValue()}).
   *
   * @param publishedAtMicros the publish time, epoch microseconds, positive
   * @param level the level, in [0, 10)
   * @param mode {@code predictive}, {@code shadow} or {@code off}
   * @return the header's value
   * @throws IllegalArgumentException if a value is out of its range
   */
  public static String headerValue(long publishedAtMicros, int level, String mode) {
    return StampHeader.encode(publishedAtMicros, level, mode);
  }

  /**
   * Puts this stamp's header into a mutable headers map, replacing any value of the same name.
   *
   * @param headers the message's headers
   */
  public void putHeaders(Map<String, Object> headers) {
    headers.put(HarbingerHeaders.STAMP, headerValue());
  }

  @Override
  public String toString() {
    return "Stamp[level="
        + level
        + ", priority="
        + priority
        + ", userId="
        + userId
        + ", publishedAtMicros="
        + publishedAtMicros
        + ", mode="
        + mode
        + "]";
  }
}
