package io.harbinger.rabbit;

import com.rabbitmq.client.LongString;
import java.util.Map;

/**
 * Reads a message's size hint (seed paper section 3.8, size bins): the producer's {@value
 * ChannelOptions#SIZE_HINT_HEADER} header when it holds a non-negative integer, else the body
 * length. Producer and consumer read it the same way, so the size a report carries is the size the
 * message was routed by.
 *
 * <p>The header may be an AMQP integer of any width or decimal text (as other clients and
 * Harbinger's broker send it), for example {@code 1200} or {@code "1200"}. A header that holds
 * anything else ({@code -3}, {@code "lots"}, {@code 2.5}) never fails a publish or a delivery: the
 * body length is used instead and {@link AdapterStats#invalidSizeHints()} counts it.
 *
 * <p>Stateless and thread-safe.
 */
final class SizeHints {

  /** Decimal digits of the largest value read from text; longer text is refused. */
  private static final int MAX_DIGITS = 18;

  private SizeHints() {}

  /**
   * Returns a message's size hint.
   *
   * @param headers the message's headers, or null
   * @param bodyLength the body length in bytes
   * @param stats counts a header that holds no non-negative integer
   * @return the header's value, or the body length when the header is absent or unreadable
   */
  static long of(Map<String, ?> headers, long bodyLength, AdapterStats stats) {
    Object value = headers == null ? null : headers.get(ChannelOptions.SIZE_HINT_HEADER);
    if (value == null) {
      return bodyLength;
    }
    long size = parse(value);
    if (size < 0) {
      stats.increment(Counter.INVALID_SIZE_HINT);
      return bodyLength;
    }
    return size;
  }

  /**
   * Returns a header value's size.
   *
   * @param value an AMQP header value
   * @return the non-negative integer it holds, or -1 when it holds none
   */
  static long parse(Object value) {
    if (value instanceof Long
        || value instanceof Integer
        || value instanceof Short
        || value instanceof Byte) {
      long size = ((Number) value).longValue();
      return size >= 0 ? size : -1;
    }
    if (value instanceof String || value instanceof LongString) {
      String text = value.toString();
      if (text.isEmpty() || text.length() > MAX_DIGITS) {
        return -1;
      }
      long size = 0;
      for (int i = 0; i < text.length(); i++) {
        char c = text.charAt(i);
        if (c < '0' || c > '9') {
          return -1;
        }
        size = size * 10 + (c - '0');
      }
      return size;
    }
    return -1;
  }
}
