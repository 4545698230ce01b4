package io.harbinger.rabbit;

import io.harbinger.predictor.PredictorConfig;

/**
 * How Harbinger's levels become AMQP message priorities on one type of queue and one broker
 * version, after RabbitMQ's documentation on classic queue priorities and on quorum queue
 * priorities by version.
 *
 * <p>Level 0 is served first. A message published without the wrapper carries no priority and must
 * land in the lowest level, so each scheme puts the lowest level where an unset priority lands:
 *
 * <table>
 *   <caption>Priorities for 3 levels</caption>
 *   <tr><th>scheme</th><th>level 0</th><th>level 1</th><th>level 2</th><th>unset</th></tr>
 *   <tr><td>{@link #CLASSIC}</td><td>2</td><td>1</td><td>0</td><td>0</td></tr>
 *   <tr><td>{@link #QUORUM_FAIR_SHARE}</td><td>5</td><td>4</td><td>4</td><td>normal</td></tr>
 *   <tr><td>{@link #QUORUM_STRICT}</td><td>6</td><td>5</td><td>4</td><td>4</td></tr>
 * </table>
 */
public enum PriorityScheme {
  /**
   * A classic queue with {@code x-max-priority = L - 1}: level {@code l} is priority {@code L - 1 -
   * l}, strictly served highest first on every version.
   */
  CLASSIC,
  /**
   * A quorum queue on RabbitMQ 4.0 to 4.2: a priority above 4 is "high", anything else "normal",
   * and when both have messages consumers get two high for one normal. Level 0, the keys predicted
   * shortest, goes high (5); every other level gets an explicit normal 4, the priority an unset one
   * has on 4.3, so the order stays the same after an upgrade.
   */
  QUORUM_FAIR_SHARE,
  /**
   * A quorum queue on RabbitMQ 4.3 and later: 32 strict levels, 0 to 31, where an unset priority
   * counts as 4. Level {@code l} is priority {@code 4 + L - 1 - l}, so the lowest level is 4, where
   * messages published without the wrapper land, and the priority is always set explicitly.
   */
  QUORUM_STRICT,
  /**
   * A queue without message priorities (a quorum queue on 3.x, a stream): the wrapper leaves the
   * caller's priority alone. Reordering such a queue needs one queue per level.
   */
  NONE;

  /** The priority of an unset priority on a 4.3 quorum queue, and of "normal" on 4.0 to 4.2. */
  static final int QUORUM_NORMAL = 4;

  /**
   * Returns the AMQP priority of a level, or null for {@link #NONE}.
   *
   * @param level the level, in [0, levels)
   * @param levels the number of levels, in [2, 10]
   * @return the priority to stamp
   * @throws IllegalArgumentException when levels or level is out of range
   */
  public Integer priority(int level, int levels) {
    PredictorConfig.checkLevels(levels);
    if (level < 0 || level >= levels) {
      throw new IllegalArgumentException("level must be in [0, " + (levels - 1) + "]: " + level);
    }
    return switch (this) {
      case CLASSIC -> levels - 1 - level;
      case QUORUM_FAIR_SHARE -> level == 0 ? QUORUM_NORMAL + 1 : QUORUM_NORMAL;
      case QUORUM_STRICT -> QUORUM_NORMAL + levels - 1 - level;
      case NONE -> null;
    };
  }

  /**
   * Returns the scheme for a queue type on a broker version.
   *
   * @param type the queue's type, or null when unknown (treated as classic)
   * @param version the broker version, such as {@code 4.0.5}; null or unparsable when unknown
   * @return the scheme; a quorum queue on an unknown version gets {@link #QUORUM_FAIR_SHARE}, which
   *     every 4.x broker honours
   */
  public static PriorityScheme of(QueueType type, String version) {
    if (type == null || type == QueueType.CLASSIC) {
      return CLASSIC;
    }
    if (type == QueueType.STREAM) {
      return NONE;
    }
    BrokerVersion v = BrokerVersion.parse(version);
    if (v == null) {
      return QUORUM_FAIR_SHARE;
    }
    if (v.major() < 4) {
      return NONE;
    }
    return v.major() == 4 && v.minor() < 3 ? QUORUM_FAIR_SHARE : QUORUM_STRICT;
  }

  /** A broker's major and minor version, from the {@code version} of its server properties. */
  record BrokerVersion(int major, int minor) {

    /** Returns the version of strings such as {@code 4.0.5} or {@code 4.1.0-rc.1}, or null. */
    static BrokerVersion parse(String version) {
      if (version == null) {
        return null;
      }
      String[] parts = version.trim().split("[.\\-+]", 3);
      if (parts.length < 2) {
        return null;
      }
      try {
        return new BrokerVersion(Integer.parseInt(parts[0]), Integer.parseInt(parts[1]));
      } catch (NumberFormatException e) {
        return null;
      }
    }
  }
}
