package io.harbinger.rabbit;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.BuiltinExchangeType;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.ConfirmListener;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ShutdownListener;
import com.rabbitmq.client.ShutdownSignalException;
import io.harbinger.proto.v1.ReportBatch;
import java.io.IOException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The channel a {@link ReportPublisher} publishes its batches on, with publisher confirms: one
 * batch outstanding at a time.
 *
 * <p>Implementation notes. A channel closed by an error (for example the exchange deleted) is
 * replaced by a new one at the next batch, which checks the exchange again: passively, so that a
 * reporter needs only write permission on it, and declaring it (durable fanout) only when it is
 * missing. A batch counts as confirmed only once RabbitMQ acks it; a nack, a confirm that does not
 * arrive within the confirm timeout, or the channel closing under it fails the batch. A channel
 * closed with 406 for the batches' {@code user-id} marks the identity refused, logged once at
 * ERROR, under the publisher's logger.
 *
 * <p>Thread safety: used by one thread at a time (the publisher's constructor, then its sender
 * thread); {@link #current} and {@link #identityRefused} may be read from any thread.
 */
final class ReportChannel {

  private static final Logger LOG = LoggerFactory.getLogger(ReportPublisher.class);

  private final Connection connection;
  private final String exchange;
  private final String userId;
  private final AMQP.BasicProperties batchProps;
  private final long confirmTimeoutNanos;
  private final LongAdder channelsOpened = new LongAdder();
  private volatile Channel channel;
  private Confirms confirms;
  private volatile boolean identityRefused;

  /**
   * Creates the report channel of a publisher; it opens nothing until the first batch.
   *
   * @param connection the report connection
   * @param exchange the reports exchange
   * @param userId the reporter identity, every batch's {@code user-id}
   * @param confirmTimeoutNanos how long a batch waits for its confirm
   */
  ReportChannel(Connection connection, String exchange, String userId, long confirmTimeoutNanos) {
    this.connection = connection;
    this.exchange = exchange;
    this.userId = userId;
    this.confirmTimeoutNanos = confirmTimeoutNanos;
    this.batchProps =
        new AMQP.BasicProperties.Builder()
            .contentType("application/x-protobuf")
            .type("harbinger.v1.ReportBatch")
            .deliveryMode(1)
            .userId(userId)
            .build();
  }

  /** Returns the channel now, or null before the first batch. */
  Channel current() {
    return channel;
  }

  /** Returns the channels opened so far. */
  long opened() {
    return channelsOpened.sum();
  }

  /** Returns whether RabbitMQ refused the batches' {@code user-id}. */
  boolean identityRefused() {
    return identityRefused;
  }

  /**
   * Publishes one batch and waits for its confirm, opening the channel first when it has none or a
   * channel error closed it.
   *
   * @param message the batch
   * @return true when RabbitMQ confirmed it; false when it refused it or no confirm came in time
   * @throws IOException when the channel cannot be opened or the publish fails
   * @throws InterruptedException when interrupted while waiting for the confirm
   */
  boolean publish(ReportBatch message) throws IOException, InterruptedException {
    Channel ch = channel();
    Confirms c = confirms;
    long seq = ch.getNextPublishSeqNo();
    c.expect(seq);
    ch.basicPublish(exchange, "", batchProps, message.toByteArray());
    return c.await(seq, confirmTimeoutNanos);
  }

  private Channel channel() throws IOException {
    Channel ch = channel;
    if (ch != null && ch.isOpen()) {
      return ch;
    }
    if (ch != null) {
      // Unregisters a recovering channel that a channel error closed, so that it is not reopened.
      abortQuietly(ch);
      channel = null;
    }
    Channel fresh = declareExchange(connection.createChannel());
    try {
      Confirms c = new Confirms();
      fresh.addConfirmListener(c);
      fresh.addShutdownListener(c);
      fresh.confirmSelect();
      channelsOpened.increment();
      channel = fresh;
      confirms = c;
      return fresh;
    } catch (IOException | RuntimeException e) {
      abortQuietly(fresh);
      throw e;
    }
  }

  /**
   * Makes sure the exchange exists: passively first, which needs no permission, so that a reporter
   * needs only write on the exchange; actively (configure permission) only when it is missing.
   * Returns the channel to use, a new one when the passive check closed the first.
   */
  private Channel declareExchange(Channel ch) throws IOException {
    if (ch == null) {
      throw new IOException("no channel available on the report connection");
    }
    try {
      ch.exchangeDeclarePassive(exchange);
      return ch;
    } catch (IOException e) {
      abortQuietly(ch);
    }
    Channel fresh = connection.createChannel();
    if (fresh == null) {
      throw new IOException("no channel available on the report connection");
    }
    try {
      fresh.exchangeDeclare(exchange, BuiltinExchangeType.FANOUT, true);
      return fresh;
    } catch (IOException | RuntimeException e) {
      abortQuietly(fresh);
      throw e;
    }
  }

  /**
   * Publishes an empty batch to check that RabbitMQ accepts the batches' {@code user-id}.
   *
   * @param empty a batch without reports
   * @return whether RabbitMQ confirmed it; false when no confirm came in time (for example during a
   *     resource alarm): the identity is then checked again at every batch, and a refusal is logged
   *     then
   * @throws IOException naming the problem and the fix when RabbitMQ refused the identity, or when
   *     the channel cannot be opened or the publish fails
   */
  boolean checkIdentity(ReportBatch empty) throws IOException {
    boolean confirmed;
    try {
      confirmed = publish(empty);
    } catch (IOException | RuntimeException e) {
      if (identityRefused) {
        throw new IOException(identityProblem(), e);
      }
      throw e;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while checking the report connection", e);
    }
    if (!confirmed && identityRefused) {
      throw new IOException(identityProblem());
    }
    return confirmed;
  }

  /** Says what RabbitMQ refused and how to fix it, when it refused the batches' user-id. */
  private String identityProblem() {
    return "RabbitMQ refused report batches with user-id '"
        + userId
        + "' (406 PRECONDITION_FAILED): user-id must be the user the report connection"
        + " authenticated as. Set ReportPublisher.builder(...).userId(...) to that user (under"
        + " x509/EXTERNAL or OAuth 2 it is not ConnectionFactory.getUsername())";
  }

  private void noteChannelClosed(ShutdownSignalException cause) {
    if (cause != null
        && !cause.isInitiatedByApplication()
        && String.valueOf(cause.getMessage()).contains("user_id property set to")) {
      if (!identityRefused) {
        identityRefused = true;
        LOG.error("{}", identityProblem());
      }
    }
  }

  /** Aborts a channel, logging a failure at DEBUG. */
  static void abortQuietly(Channel ch) {
    try {
      ch.abort();
    } catch (IOException | RuntimeException e) {
      LOG.debug("aborting the report channel failed", e);
    }
  }

  /**
   * The outcome of the batch awaiting its confirm on one channel: one batch is outstanding at a
   * time, so one sequence number is tracked.
   */
  private final class Confirms implements ConfirmListener, ShutdownListener {
    private static final int PENDING = 0;
    private static final int ACKED = 1;
    private static final int REFUSED = 2;

    private long awaited = -1;
    private int state;

    synchronized void expect(long seq) {
      awaited = seq;
      state = PENDING;
    }

    synchronized boolean await(long seq, long timeoutNanos) throws InterruptedException {
      long deadline = System.nanoTime() + timeoutNanos;
      while (awaited == seq && state == PENDING) {
        long remaining = deadline - System.nanoTime();
        if (remaining <= 0) {
          return false;
        }
        TimeUnit.NANOSECONDS.timedWait(this, remaining);
      }
      return awaited == seq && state == ACKED;
    }

    private synchronized void settle(long tag, boolean multiple, int outcome) {
      if (state == PENDING && (tag == awaited || (multiple && tag >= awaited))) {
        state = outcome;
        notifyAll();
      }
    }

    @Override
    public void handleAck(long deliveryTag, boolean multiple) {
      settle(deliveryTag, multiple, ACKED);
    }

    @Override
    public void handleNack(long deliveryTag, boolean multiple) {
      settle(deliveryTag, multiple, REFUSED);
    }

    @Override
    public void shutdownCompleted(ShutdownSignalException cause) {
      noteChannelClosed(cause);
      synchronized (this) {
        if (state == PENDING) {
          state = REFUSED;
          notifyAll();
        }
      }
    }
  }
}
