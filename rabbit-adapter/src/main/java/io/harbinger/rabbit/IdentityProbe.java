package io.harbinger.rabbit;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ShutdownSignalException;
import java.io.IOException;
import java.util.Collections;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.WeakHashMap;

/**
 * Checks once per connection and user that RabbitMQ accepts a {@code user-id}: before a wrapped
 * channel publishes anything, so that a wrong identity fails the wrap instead of a message.
 *
 * <p>Implementation notes. On a channel of its own, the probe publishes an empty, transient message
 * with the {@code user-id} to the default exchange under a routing key no queue has (it is dropped
 * unrouted), then makes a synchronous call ({@code basic.qos}); RabbitMQ handles a channel's
 * commands in order and checks {@code user-id} before routing (after the write permission), so the
 * call either returns (accepted) or fails with the 406 that closes the channel (refused). A probe
 * that cannot decide (no channel, no write permission on the default exchange, the connection down)
 * answers {@link Verdict#UNKNOWN}; the wrapped channel then recognises the first 406 instead
 * (rabbitmq-facts section 1.3 and summary item 17: {@code user-id} is validated by the broker).
 *
 * <p>Thread-safe; a probe costs three round trips, once per connection and user.
 */
final class IdentityProbe {

  /** What the probe found. */
  enum Verdict {
    /** RabbitMQ accepted the {@code user-id}. */
    ACCEPTED,
    /** RabbitMQ refused the {@code user-id} with 406: it is not the connection's user. */
    REFUSED,
    /** The probe could not decide. */
    UNKNOWN
  }

  /**
   * The probe's answer.
   *
   * @param verdict what it found
   * @param detail RabbitMQ's words when refused or undecided, or empty
   */
  record Result(Verdict verdict, String detail) {}

  /** The text of RabbitMQ's 406 for a {@code user-id} other than the connection's user. */
  static final String REFUSAL = "user_id property set to";

  private static final Map<Connection, Set<String>> ACCEPTED = new WeakHashMap<>();

  private IdentityProbe() {}

  /**
   * Checks a user on a channel's connection.
   *
   * @param channel the application's channel (not used for the probe itself)
   * @param user the {@code user-id} to check
   * @return the verdict
   */
  static Result check(Channel channel, String user) {
    Connection connection = channel.getConnection();
    if (connection == null) {
      return new Result(Verdict.UNKNOWN, "no connection");
    }
    synchronized (ACCEPTED) {
      if (ACCEPTED.getOrDefault(connection, Set.of()).contains(user)) {
        return new Result(Verdict.ACCEPTED, "");
      }
    }
    Channel probe;
    try {
      probe = connection.createChannel();
    } catch (IOException | RuntimeException e) {
      return new Result(Verdict.UNKNOWN, String.valueOf(e.getMessage()));
    }
    if (probe == null) {
      return new Result(Verdict.UNKNOWN, "no channel available");
    }
    try {
      probe.basicPublish(
          "",
          "harbinger.identity-probe",
          new AMQP.BasicProperties.Builder().userId(user).deliveryMode(1).build(),
          new byte[0]);
      probe.basicQos(0);
      synchronized (ACCEPTED) {
        ACCEPTED.computeIfAbsent(connection, c -> Collections.synchronizedSet(new HashSet<>()));
        ACCEPTED.get(connection).add(user);
      }
      return new Result(Verdict.ACCEPTED, "");
    } catch (IOException | ShutdownSignalException e) {
      String reason = reasonOf(e);
      return new Result(reason.contains(REFUSAL) ? Verdict.REFUSED : Verdict.UNKNOWN, reason);
    } catch (RuntimeException e) {
      return new Result(Verdict.UNKNOWN, String.valueOf(e.getMessage()));
    } finally {
      try {
        probe.abort();
      } catch (IOException | RuntimeException e) {
        // Closed by the broker already.
      }
    }
  }

  /** Returns RabbitMQ's reason from an exception that a channel close caused. */
  static String reasonOf(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof ShutdownSignalException s && s.getReason() instanceof AMQP.Channel.Close c) {
        return c.getReplyText();
      }
    }
    return String.valueOf(e.getMessage());
  }

  /**
   * Returns the error of a wrapped channel whose user RabbitMQ refused.
   *
   * @param user the user the channel was wrapped with
   * @param detail RabbitMQ's words
   * @return the message, naming the user, the rule and the fix
   */
  static String refusal(String user, String detail) {
    return "user '"
        + user
        + "' is not the user this connection authenticated as: RabbitMQ refuses messages with"
        + " user-id '"
        + user
        + "' ("
        + detail
        + "). Pass the authenticated user to ChannelOptions.builder(...) (under x509/EXTERNAL or"
        + " OAuth 2 it is not ConnectionFactory.getUsername()), or, where it cannot be known,"
        + " .producerProperty(ProducerProperty.APP_ID)";
  }
}
