package io.harbinger.rabbit;

import io.harbinger.predictor.PredictorConfig;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What Harbinger puts on one outgoing message: its level, the AMQP priority and {@code user-id} to
 * publish with, and the headers to add.
 *
 * <p>A {@link MessageStamper} computes it; the wrapped channel and framework integrations apply it
 * to their own message types, so every integration stamps the same way. Example, for a trained key
 * at level 0 of 3 on a classic priority queue: level 0, priority 2, the connection's user, and the
 * headers {@code x-harbinger-published-at} (epoch microseconds), {@code x-harbinger-level = 0} and
 * {@code x-harbinger-mode = predictive}.
 *
 * <p>Immutable and thread-safe.
 */
public final class Stamp {

  /** The names of the headers a stamp adds, in the order {@link #headerValue} indexes them. */
  public static final List<String> HEADER_NAMES =
      List.of(HarbingerHeaders.PUBLISHED_AT, HarbingerHeaders.LEVEL, HarbingerHeaders.MODE);

  private final Integer level;
  private final Integer priority;
  private final String userId;
  private final String appId;
  private final Long publishedAtMicros;
  private final String mode;

  /**
   * Creates a stamp.
   *
   * @param level the level chosen, in [0, 10) (in shadow mode, the level that would have been
   *     chosen)
   * @param priority the AMQP priority to publish with, or null to send none
   * @param userId the {@code user-id} to publish with, non-null
   * @param publishedAtMicros the publish time, in epoch microseconds
   * @param mode {@code predictive}, {@code shadow} or {@code off}
   */
  public Stamp(int level, Integer priority, String userId, long publishedAtMicros, String mode) {
    this(
        null,
        level,
        priority,
        Objects.requireNonNull(userId, "userId"),
        null,
        Long.valueOf(publishedAtMicros),
        mode);
  }

  /** Creates a stamp from a {@link MessageStamper}'s values; the context is unused. */
  Stamp(
      Object context,
      int level,
      Integer priority,
      String userId,
      String appId,
      Long publishedAtMicros,
      String mode) {
    if (level < 0 || level >= PredictorConfig.MAX_LEVELS) {
      throw new IllegalArgumentException(
          "level must be in [0, " + PredictorConfig.MAX_LEVELS + "): " + level);
    }
    this.level = level;
    this.priority = priority;
    this.userId = userId;
    this.appId = appId;
    this.publishedAtMicros = Objects.requireNonNull(publishedAtMicros, "publishedAtMicros");
    this.mode = Objects.requireNonNull(mode, "mode");
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
   * Returns the publish time carried by {@code x-harbinger-published-at}.
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
   * Returns the value of one of the headers this stamp adds.
   *
   * @param index the header's index in {@link #HEADER_NAMES}, in [0, 3)
   * @return a {@code Long} for the publish time, an {@code Integer} for the level, a {@code String}
   *     for the mode
   */
  public Object headerValue(int index) {
    return headerValue(index, publishedAtMicros, level, mode);
  }

  /**
   * Returns the value of one of the headers of a stamp given by its values: the one definition of
   * which value each of {@link #HEADER_NAMES} carries.
   *
   * @param index the header's index in {@link #HEADER_NAMES}, in [0, 3)
   * @param publishedAtMicros the publish time, epoch microseconds
   * @param level the level
   * @param mode the mode
   * @return the value of that header
   */
  public static Object headerValue(int index, Long publishedAtMicros, Integer level, String mode) {
    return switch (index) {
      case 0 -> publishedAtMicros;
      case 1 -> level;
      case 2 -> mode;
      default -> throw new IndexOutOfBoundsException("header index must be in [0, 3): " + index);
    };
  }

  /**
   * Puts this stamp's headers into a mutable headers map, replacing any value of the same name.
   *
   * @param headers the message's headers
   */
  public void putHeaders(Map<String, Object> headers) {
    for (int i = 0; i < HEADER_NAMES.size(); i++) {
      headers.put(HEADER_NAMES.get(i), headerValue(i));
    }
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
