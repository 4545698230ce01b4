package io.harbinger.rabbit;

import java.util.Locale;
import java.util.Map;

/**
 * The type of a RabbitMQ queue, as its declaration's {@code x-queue-type} argument names it.
 *
 * <p>A declaration without the argument makes a classic queue unless the virtual host's default
 * queue type says otherwise; the adapter cannot see that default and takes such a queue for a
 * classic one.
 */
public enum QueueType {
  /** A classic queue: priorities when declared with {@code x-max-priority}, on every version. */
  CLASSIC,
  /** A quorum queue: no priorities on 3.x, two levels on 4.0 to 4.2, 32 strict levels on 4.3. */
  QUORUM,
  /** A stream: no message priorities. */
  STREAM;

  /** The queue argument that names a queue's type. */
  public static final String ARGUMENT = "x-queue-type";

  /**
   * Returns the type a declaration's arguments ask for.
   *
   * @param arguments the declaration's arguments, or null
   * @return the type; {@link #CLASSIC} when the arguments name none
   * @throws IllegalArgumentException when {@code x-queue-type} names a type RabbitMQ does not have
   */
  public static QueueType of(Map<String, Object> arguments) {
    Object value = arguments == null ? null : arguments.get(ARGUMENT);
    if (value == null) {
      return CLASSIC;
    }
    return switch (value.toString().toLowerCase(Locale.ROOT)) {
      case "classic" -> CLASSIC;
      case "quorum" -> QUORUM;
      case "stream" -> STREAM;
      default ->
          throw new IllegalArgumentException(
              ARGUMENT + " must be 'classic', 'quorum' or 'stream': '" + value + "'");
    };
  }
}
