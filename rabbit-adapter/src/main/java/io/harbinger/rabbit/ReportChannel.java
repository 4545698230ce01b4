package io.harbinger.rabbit;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.BuiltinExchangeType;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.ConfirmListener;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ReturnListener;
import com.rabbitmq.client.ShutdownListener;
import com.rabbitmq.client.ShutdownSignalException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.NavigableMap;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The channel a {@link ReportPublisher} publishes its batches on, with publisher confirms and the
 * {@code mandatory} flag, and the account of every batch published on it.
 *
 * <p>Implementation notes. A channel closed by an error (for example the exchange deleted) is
 * replaced by a new one at the next batch, which checks the exchange again: passively, so that a
 * reporter needs only write permission on it, and declaring it (durable fanout) only when it is
 * missing. Every batch published is settled exactly once, through {@link Settlements}: sent when
 * RabbitMQ acks it; unroutable when it acks a batch it first returned ({@code basic.return} comes
 * before the ack of the same message, on the same channel: publisher confirms in RabbitMQ's
 * confirms guide: "the basic.return is sent to the client before basic.ack"; the return names the
 * batch by the sequence in its body); lost when it nacks it, or the channel closes before the ack
 * (a closed channel is never confirmed, and automatic recovery numbers the recovered channel's
 * publishes from 1 again). A batch whose confirm has not come within the confirm timeout is not
 * declared lost: the broker may still confirm it (a connection blocked by a resource alarm holds a
 * publish half read until the alarm clears), so it stays outstanding, at most {@value
 * #MAX_UNCONFIRMED} batches at once, and is settled when its ack, nack or the channel's end comes.
 * A channel closed with 406 for the batches' {@code user-id} marks the identity refused, logged
 * once at ERROR, under the publisher's logger.
 *
 * <p>Thread safety: {@link #publish} and {@link #checkIdentity} are called by one thread at a time
 * (the publisher's constructor, then its sender thread); the others may be called from any thread.
 * Settlements are told on the thread that learnt the outcome (the connection's, or the caller's),
 * never while a lock of this class is held.
 */
final class ReportChannel {

  /** The most batches awaiting their confirm at once; the sender waits while there are more. */
  static final int MAX_UNCONFIRMED = 64;

  private static final Logger LOG = LoggerFactory.getLogger(ReportPublisher.class);

  /** What became of the batches published: each is told exactly once. */
  interface Settlements {

    /**
     * RabbitMQ confirmed a batch and routed it to at least one queue.
     *
     * @param batch the batch
     */
    void sent(Pending batch);

    /**
     * RabbitMQ confirmed a batch that reached no queue (no queue bound to the exchange).
     *
     * @param batch the batch
     */
    void unroutable(Pending batch);

    /**
     * A batch will never be confirmed: RabbitMQ refused it, or its channel closed first.
     *
     * @param batch the batch
     */
    void lost(Pending batch);
  }

  /** The result of waiting for a batch's confirm. */
  enum Settled {
    /** Confirmed and routed. */
    SENT,
    /** Confirmed, but it reached no queue. */
    UNROUTABLE,
    /** Refused, or its channel closed. */
    LOST,
    /** Not settled yet: it stays outstanding and is settled when RabbitMQ answers. */
    PENDING
  }

  /**
   * One batch published and not yet settled.
   *
   * @param sequence the batch's own sequence (in its body)
   * @param reports the reports it carries
   * @param carriedDrops the drops it declares in {@code dropped_since_last}
   * @param probe whether it is the empty batch that checks the identity
   */
  record Pending(long sequence, int reports, long carriedDrops, boolean probe) {}

  private final Connection connection;
  private final String exchange;
  private final String userId;
  private final AMQP.BasicProperties batchProps;
  private final long confirmTimeoutNanos;
  private final Settlements settlements;
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
   * @param confirmTimeoutNanos how long a batch is waited for before the sender moves on
   * @param settlements told what became of every batch
   */
  ReportChannel(
      Connection connection,
      String exchange,
      String userId,
      long confirmTimeoutNanos,
      Settlements settlements) {
    this.connection = connection;
    this.exchange = exchange;
    this.userId = userId;
    this.confirmTimeoutNanos = confirmTimeoutNanos;
    this.settlements = settlements;
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

  /** Returns the batches published and not yet settled. */
  int unconfirmed() {
    Confirms c = confirms;
    return c == null ? 0 : c.outstanding();
  }

  /**
   * Publishes one batch and waits for its confirm at most the confirm timeout, opening the channel
   * first when it has none or a channel error closed it.
   *
   * @param message the batch
   * @param reports the reports in it
   * @param carriedDrops the drops it declares
   * @param probe whether it is the empty batch that checks the identity
   * @param giveUp asked whenever the wait wakes ({@link #wakeWaiters}): true stops waiting
   * @return what became of it so far; unless it was thrown, the batch is or will be told to the
   *     settlements exactly once
   * @throws IOException when the channel cannot be opened or the publish fails: the batch was not
   *     published, and is not told to the settlements
   * @throws InterruptedException when interrupted while waiting; the batch stays outstanding
   */
  Settled publish(
      ReportBatch message, int reports, long carriedDrops, boolean probe, BooleanSupplier giveUp)
      throws IOException, InterruptedException {
    Channel ch = channel();
    Confirms c = confirms;
    Pending batch = new Pending(message.sequence(), reports, carriedDrops, probe);
    long seq = ch.getNextPublishSeqNo();
    Entry entry = c.expect(seq, batch);
    if (entry == null) {
      throw new IOException("the report channel closed before the batch was published");
    }
    try {
      ch.basicPublish(exchange, "", true, batchProps, ReportWire.encode(message));
    } catch (IOException | RuntimeException e) {
      if (c.forget(seq)) {
        throw e;
      }
      return Settled.LOST; // settled by the channel's end meanwhile
    }
    return c.await(entry, confirmTimeoutNanos, giveUp);
  }

  /** Wakes a caller waiting in {@link #publish}, so that it asks its give-up condition. */
  void wakeWaiters() {
    Confirms c = confirms;
    if (c != null) {
      c.wake();
    }
  }

  /** Settles every outstanding batch as lost: the publisher stops waiting for their confirms. */
  void abandon() {
    Confirms c = confirms;
    if (c != null) {
      c.loseAll(true);
    }
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
      fresh.addReturnListener(c);
      fresh.addShutdownListener(c);
      fresh.confirmSelect();
      channelsOpened.increment();
      Confirms previous = confirms;
      channel = fresh;
      confirms = c;
      if (previous != null) {
        previous.loseAll(true);
      }
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
   * @param giveUp asked whenever the wait wakes: true stops waiting (the connection is blocked)
   * @return what became of it: {@link Settled#PENDING} when no confirm came in time or the wait was
   *     given up (for example during a resource alarm): the identity is then checked by RabbitMQ
   *     when it reads the batch, and a refusal is logged then
   * @throws IOException naming the problem and the fix when RabbitMQ refused the identity, or when
   *     the channel cannot be opened or the publish fails
   */
  Settled checkIdentity(ReportBatch empty, BooleanSupplier giveUp) throws IOException {
    Settled settled;
    try {
      settled = publish(empty, 0, 0, true, giveUp);
    } catch (IOException | RuntimeException e) {
      if (identityRefused) {
        throw new IOException(identityProblem(), e);
      }
      throw e;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while checking the report connection", e);
    }
    if (settled == Settled.LOST && identityRefused) {
      throw new IOException(identityProblem());
    }
    return settled;
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

  /** A batch on its channel: settled once, under the lock of its {@link Confirms}. */
  private static final class Entry {
    final Pending batch;
    boolean returned;
    Settled result;

    Entry(Pending batch) {
      this.batch = batch;
    }
  }

  /**
   * The batches published on one channel and not yet settled, by publish sequence number; a batch
   * is removed, under this object's lock, by whichever outcome comes first, so each is settled
   * once.
   */
  private final class Confirms implements ConfirmListener, ReturnListener, ShutdownListener {
    private final NavigableMap<Long, Entry> outstanding = new TreeMap<>();
    private boolean ended;

    synchronized int outstanding() {
      return outstanding.size();
    }

    /** Registers a batch about to be published; null when the channel was given up. */
    synchronized Entry expect(long seq, Pending batch) {
      if (ended) {
        return null;
      }
      Entry e = new Entry(batch);
      outstanding.put(seq, e);
      return e;
    }

    /** Removes a batch whose publish failed; false when an outcome settled it first. */
    synchronized boolean forget(long seq) {
      return outstanding.remove(seq) != null;
    }

    synchronized void wake() {
      notifyAll();
    }

    synchronized Settled await(Entry e, long timeoutNanos, BooleanSupplier giveUp)
        throws InterruptedException {
      long deadline = System.nanoTime() + timeoutNanos;
      while (e.result == null && !giveUp.getAsBoolean()) {
        long remaining = deadline - System.nanoTime();
        if (remaining <= 0) {
          break;
        }
        TimeUnit.NANOSECONDS.timedWait(this, remaining);
      }
      return e.result == null ? Settled.PENDING : e.result;
    }

    /**
     * Settles every outstanding batch as lost.
     *
     * @param forever true when nothing more will be published on this channel (the publisher
     *     closes, or replaced the channel); false when its connection recovers it
     */
    void loseAll(boolean forever) {
      List<Entry> lost;
      synchronized (this) {
        ended |= forever;
        lost = new ArrayList<>(outstanding.values());
        for (Entry e : lost) {
          e.result = Settled.LOST;
        }
        outstanding.clear();
        notifyAll();
      }
      tell(lost);
    }

    private void settle(long tag, boolean multiple, boolean ack) {
      List<Entry> done;
      synchronized (this) {
        NavigableMap<Long, Entry> range =
            multiple ? outstanding.headMap(tag, true) : outstanding.subMap(tag, true, tag, true);
        done = new ArrayList<>(range.values());
        for (Entry e : done) {
          e.result = !ack ? Settled.LOST : e.returned ? Settled.UNROUTABLE : Settled.SENT;
        }
        range.clear();
        notifyAll();
      }
      tell(done);
    }

    private void tell(List<Entry> entries) {
      for (Entry e : entries) {
        switch (e.result) {
          case SENT -> settlements.sent(e.batch);
          case UNROUTABLE -> settlements.unroutable(e.batch);
          case LOST -> settlements.lost(e.batch);
          case PENDING -> throw new IllegalStateException("a settled batch is never pending");
        }
      }
    }

    @Override
    public void handleAck(long deliveryTag, boolean multiple) {
      settle(deliveryTag, multiple, true);
    }

    @Override
    public void handleNack(long deliveryTag, boolean multiple) {
      settle(deliveryTag, multiple, false);
    }

    @Override
    public void handleReturn(
        int replyCode,
        String replyText,
        String returnedExchange,
        String routingKey,
        AMQP.BasicProperties properties,
        byte[] body) {
      long sequence;
      try {
        sequence = ReportWire.decode(body).sequence();
      } catch (ReportWire.MalformedException e) {
        LOG.debug("a returned message on the report channel is not a report batch", e);
        return;
      }
      synchronized (this) {
        for (Entry e : outstanding.values()) {
          if (e.batch.sequence() == sequence) {
            e.returned = true;
            return;
          }
        }
      }
    }

    @Override
    public void shutdownCompleted(ShutdownSignalException cause) {
      noteChannelClosed(cause);
      // A recovering channel is opened again, with the same listeners: its publishes go on.
      loseAll(false);
    }
  }
}
