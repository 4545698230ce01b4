package io.harbinger.rabbit;

/**
 * How a delivery was settled, as a {@link DurationReport} says it. Each has its number in the
 * report wire format ({@code Outcome} in {@code api/src/main/proto/harbinger/v1/reports.proto}).
 */
public enum Settlement {
  /** Not set: a malformed report, which learners reject. */
  UNSPECIFIED(0),
  /** {@code basic.ack}: the handler succeeded; its duration is learned. */
  ACK(1),
  /** {@code basic.nack}: the handler failed; nothing is learned from its duration. */
  NACK(2),
  /** {@code basic.reject}: the handler refused the message; nothing is learned. */
  REJECT(3),
  /**
   * An earlier delivery of the message was never settled (its consumer died or its connection
   * closed) and it came back redelivered: the attempt overran, a censored observation.
   */
  CENSORED(4),
  /** A number this version does not know, from a newer reporter; learners reject it. */
  UNKNOWN(-1);

  private final int number;

  Settlement(int number) {
    this.number = number;
  }

  /**
   * Returns the number on the wire.
   *
   * @return 0 to 4, or -1 for {@link #UNKNOWN}
   */
  public int number() {
    return number;
  }

  /**
   * Returns the settlement a wire number stands for.
   *
   * @param number the number read
   * @return the settlement, {@link #UNKNOWN} for a number this version does not know
   */
  public static Settlement ofNumber(int number) {
    return switch (number) {
      case 0 -> UNSPECIFIED;
      case 1 -> ACK;
      case 2 -> NACK;
      case 3 -> REJECT;
      case 4 -> CENSORED;
      default -> UNKNOWN;
    };
  }
}
