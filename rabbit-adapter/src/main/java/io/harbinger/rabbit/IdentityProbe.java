package io.harbinger.rabbit;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.ShutdownSignalException;
import java.io.IOException;
import java.time.Duration;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.WeakHashMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Checks once per connection factory and user that RabbitMQ accepts a {@code user-id}, on a
 * short-lived connection of Harbinger's own opened from (a copy of) the application's factory:
 * before a wrapped channel publishes anything, so that a wrong identity fails the wrap instead of a
 * message. Nothing is ever published on the application's connection.
 *
 * <p>Implementation notes. On its own connection, the probe opens a channel in confirm mode and
 * publishes an empty, transient message with the {@code user-id} to the default exchange under a
 * routing key no queue has (it is dropped unrouted, and confirmed); RabbitMQ checks {@code user-id}
 * before routing (after the write permission), so the probe's channel is either confirmed
 * (accepted) or closed with 406 (refused) (RabbitMQ's documentation on validated user-id). During a
 * resource alarm RabbitMQ blocks a connection at its first publish and reads nothing more from it
 * until the alarm clears (RabbitMQ's documentation on memory and disk alarms and on blocked
 * connection notifications), so the probe gives up as soon as RabbitMQ says its connection is
 * blocked ({@code connection.blocked}), answering {@link Verdict#UNKNOWN}: the application's own
 * connection is never blocked by it. Every step is bounded by {@link #TIMEOUT} (connection,
 * handshake, each call, the wait for the confirm), and the connection is aborted at the end with
 * the same bound. A probe that cannot decide (the factory cannot connect, no write permission on
 * the default exchange, blocked, timed out) answers {@link Verdict#UNKNOWN}; the wrapped channel
 * then recognises the first 406 instead.
 *
 * <p>Thread-safe; a probe opens one connection, once per factory and user accepted.
 */
final class IdentityProbe {

  /** The longest each step of a probe takes: connecting, each call, the confirm. */
  static final Duration TIMEOUT = Duration.ofSeconds(5);

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
   * @param detail RabbitMQ's words when refused, why it could not decide, or empty
   */
  record Result(Verdict verdict, String detail) {}

  /** The text of RabbitMQ's 406 for a {@code user-id} other than the connection's user. */
  static final String REFUSAL = "user_id property set to";

  private static final String BLOCKED = "RabbitMQ blocks publishing connections";

  private static final Result UNDECIDED = new Result(Verdict.UNKNOWN, "");

  private static final Map<ConnectionFactory, Set<String>> ACCEPTED = new WeakHashMap<>();

  private IdentityProbe() {}

  /**
   * Checks a user on a connection of the probe's own, opened from a copy of a factory.
   *
   * @param factory the application's connection factory (not modified)
   * @param user the {@code user-id} to check
   * @return the verdict
   */
  static Result check(ConnectionFactory factory, String user) {
    synchronized (ACCEPTED) {
      if (ACCEPTED.getOrDefault(factory, Set.of()).contains(user)) {
        return new Result(Verdict.ACCEPTED, "");
      }
    }
    int boundMillis = (int) TIMEOUT.toMillis();
    ConnectionFactory own = factory.clone();
    own.setAutomaticRecoveryEnabled(false);
    own.setTopologyRecoveryEnabled(false);
    own.setConnectionTimeout(bounded(factory.getConnectionTimeout(), boundMillis));
    own.setHandshakeTimeout(bounded(factory.getHandshakeTimeout(), boundMillis));
    own.setChannelRpcTimeout(bounded(factory.getChannelRpcTimeout(), boundMillis));
    own.setShutdownTimeout(boundMillis);
    Connection connection;
    try {
      connection = own.newConnection("harbinger-identity-check");
    } catch (IOException | TimeoutException | RuntimeException e) {
      return new Result(Verdict.UNKNOWN, "cannot connect: " + e.getMessage());
    }
    CompletableFuture<Result> outcome = new CompletableFuture<>();
    try {
      connection.addBlockedListener(
          reason -> outcome.complete(new Result(Verdict.UNKNOWN, BLOCKED + " (" + reason + ")")),
          () -> {});
      Channel probe = connection.createChannel();
      if (probe == null) {
        return new Result(Verdict.UNKNOWN, "no channel available");
      }
      probe.addShutdownListener(
          cause -> {
            String reason = reasonOf(cause);
            outcome.complete(
                new Result(reason.contains(REFUSAL) ? Verdict.REFUSED : Verdict.UNKNOWN, reason));
          });
      probe.addConfirmListener(
          (tag, multiple) -> outcome.complete(new Result(Verdict.ACCEPTED, "")),
          (tag, multiple) -> outcome.complete(new Result(Verdict.UNKNOWN, "nacked")));
      probe.confirmSelect();
      probe.basicPublish(
          "",
          "harbinger.identity-probe",
          new AMQP.BasicProperties.Builder().userId(user).deliveryMode(1).build(),
          new byte[0]);
      Result result = outcome.get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
      if (result.verdict() == Verdict.ACCEPTED) {
        synchronized (ACCEPTED) {
          ACCEPTED.computeIfAbsent(factory, f -> new HashSet<>()).add(user);
        }
      }
      return result;
    } catch (TimeoutException e) {
      return new Result(Verdict.UNKNOWN, "no answer within " + TIMEOUT.toMillis() + " ms");
    } catch (ExecutionException e) {
      return new Result(Verdict.UNKNOWN, String.valueOf(e.getCause()));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return new Result(Verdict.UNKNOWN, "interrupted");
    } catch (IOException | ShutdownSignalException e) {
      // The probe's channel closed under a call: its shutdown listener may know why.
      Result known = outcome.getNow(null);
      if (known != null) {
        return known;
      }
      String reason = reasonOf(e);
      return new Result(reason.contains(REFUSAL) ? Verdict.REFUSED : Verdict.UNKNOWN, reason);
    } catch (RuntimeException e) {
      return new Result(Verdict.UNKNOWN, String.valueOf(e.getMessage()));
    } finally {
      if (outcome.getNow(UNDECIDED).detail().startsWith(BLOCKED)) {
        // RabbitMQ reads no close from a blocked connection: abort it without waiting for one.
        Thread closer =
            new Thread(() -> connection.abort(boundMillis), "harbinger-identity-check-close");
        closer.setDaemon(true);
        closer.start();
      } else {
        connection.abort(boundMillis);
      }
    }
  }

  private static int bounded(int configuredMillis, int boundMillis) {
    return configuredMillis <= 0 ? boundMillis : Math.min(configuredMillis, boundMillis);
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
