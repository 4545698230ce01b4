package io.harbinger.sidecar;

import com.rabbitmq.client.AuthenticationFailureException;
import io.harbinger.predictor.Ticker;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Opens the sidecar's first RabbitMQ connection, retrying for a bounded time while the broker is
 * not yet reachable.
 *
 * <p>A broker that is still booting or restarting (connection refused, reset or timed out) is
 * retried after 1 s, then 2 s, then every 5 s, until the budget is spent; the last error then ends
 * the start. A refused login is not transient and ends the start at once. Once connected,
 * amqp-client's automatic recovery takes over. Used by one thread; it blocks in {@link Pause}.
 */
final class StartupRetry {

  private static final Logger LOG = LoggerFactory.getLogger(StartupRetry.class);
  private static final long[] BACKOFF_MILLIS = {1_000, 2_000, 5_000};

  /**
   * One attempt at connecting.
   *
   * @param <C> what a successful attempt returns
   */
  @FunctionalInterface
  interface Attempt<C> {
    /**
     * Tries once.
     *
     * @return the open connection
     * @throws IOException when the broker cannot be reached or refuses
     * @throws TimeoutException when the broker does not answer in time
     */
    C connect() throws IOException, TimeoutException;
  }

  /** Waits between attempts; {@link Thread#sleep} outside tests. */
  @FunctionalInterface
  interface Pause {
    /**
     * Waits.
     *
     * @param millis how long, positive
     * @throws InterruptedException when interrupted
     */
    void sleep(long millis) throws InterruptedException;
  }

  private final Duration budget;
  private final Ticker ticker;
  private final Pause pause;

  /**
   * Creates the retry policy of one start.
   *
   * @param budget how long to keep trying; zero for a single attempt
   * @param ticker the clock the budget is measured on
   * @param pause waits between attempts
   */
  StartupRetry(Duration budget, Ticker ticker, Pause pause) {
    if (budget.isNegative()) {
      throw new IllegalArgumentException("startup retry must not be negative: " + budget);
    }
    this.budget = budget;
    this.ticker = ticker;
    this.pause = pause;
  }

  /**
   * Connects, retrying transient failures until the budget is spent.
   *
   * @param <C> what a successful attempt returns, such as a {@link com.rabbitmq.client.Connection}
   * @param attempt one try at connecting
   * @param where the broker's URI, for the messages (without credentials)
   * @param user the user, for the message of a refused login
   * @return the open connection
   * @throws IOException naming the broker and the fix: the refused login at once, or the last
   *     transient error once the budget is spent
   * @throws InterruptedException when interrupted while waiting
   */
  <C> C connect(Attempt<C> attempt, String where, String user)
      throws IOException, InterruptedException {
    long start = ticker.nanos();
    for (int tries = 1; ; tries++) {
      Exception failure;
      try {
        return attempt.connect();
      } catch (AuthenticationFailureException e) {
        throw new IOException(
            "RabbitMQ at "
                + where
                + " refused the login of user '"
                + user
                + "' ("
                + e.getMessage()
                + "): set the user's password in rabbitmq.password-file or"
                + " HARBINGER_RABBITMQ_PASSWORD",
            e);
      } catch (IOException | TimeoutException e) {
        failure = e;
      }
      long elapsedMillis = (ticker.nanos() - start) / 1_000_000;
      long left = budget.toMillis() - elapsedMillis;
      if (left <= 0) {
        throw new IOException(
            "RabbitMQ at "
                + where
                + " cannot be reached after "
                + tries
                + (tries == 1 ? " attempt" : " attempts")
                + " ("
                + describe(failure)
                + "): start it, or point rabbitmq.uri (HARBINGER_RABBITMQ_URI) at it",
            failure);
      }
      long wait = Math.min(left, BACKOFF_MILLIS[Math.min(tries, BACKOFF_MILLIS.length) - 1]);
      LOG.warn(
          "RabbitMQ at {} is not reachable yet ({}); retrying in {} ms, for {} s more",
          where,
          describe(failure),
          wait,
          left / 1000);
      pause.sleep(wait);
    }
  }

  private static String describe(Exception e) {
    Throwable root = e;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    String message = root.getMessage();
    return root.getClass().getSimpleName() + (message == null ? "" : ": " + message);
  }
}
