package io.harbinger.broker;

import com.google.protobuf.ByteString;
import java.util.Map;

/**
 * A message in the dead-letter queue.
 *
 * @param messageId the message id
 * @param payload the body
 * @param headers the headers
 * @param reason why it was dead-lettered
 * @param details a human-readable explanation
 * @param deadAtNanos the broker ticker reading when it was dead-lettered
 * @param failures how many deliveries failed
 */
public record DeadLetter(
    String messageId,
    ByteString payload,
    Map<String, String> headers,
    Reason reason,
    String details,
    long deadAtNanos,
    int failures) {

  /** Why a message was dead-lettered. */
  public enum Reason {
    /** Its deliveries failed max-retries times. */
    MAX_RETRIES_EXCEEDED,
    /** Its TTL ran out before an Ack. */
    TTL_EXPIRED
  }
}
