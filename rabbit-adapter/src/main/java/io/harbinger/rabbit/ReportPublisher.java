package io.harbinger.rabbit;

import com.rabbitmq.client.BlockedListener;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.ShutdownListener;
import io.harbinger.predictor.Ticker;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends duration reports to the reports exchange in protobuf batches, from a bounded buffer, on a
 * connection, a channel and a thread of its own.
 *
 * <p>Start it from the application's {@link ConnectionFactory}: {@link #start(ConnectionFactory)}
 * opens a connection just for reports. Never publish reports on a connection that consumes: during
 * a resource alarm RabbitMQ blocks every connection that publishes, and a blocked connection is no
 * longer read, so the consumer's acknowledgements stop too and consumption halts until the alarm
 * clears. {@link #start(Connection)} exists for producer-only connections and is deprecated.
 *
 * <p>Example: with the defaults, a consumer settling 1,000 deliveries a second sends about ten
 * batches a second (one every 100 ms, or sooner once 256 reports wait). If RabbitMQ blocks the
 * report connection for 30 s, the first 8,192 reports wait in the buffer and the rest are dropped
 * and counted; the consumer's handlers and acknowledgements never wait, and {@link #close()}
 * returns within its timeout (5 s by default).
 *
 * <p>Identity: every batch carries the {@code user-id} of the report connection's user, which
 * RabbitMQ checks against the authenticated user, so learners know who reported (they accept
 * reports only from the reporters they trust). The user is {@code factory.getUsername()} unless
 * {@link Builder#userId} names another (under x509/EXTERNAL or OAuth 2 the authenticated identity
 * is not the factory's user name). {@link Builder#start()} publishes one empty batch with publisher
 * confirms and fails at once, naming the problem, when RabbitMQ refuses the identity. It never
 * waits on a blocked connection: when a resource alarm blocks the report connection, {@code start}
 * returns as soon as RabbitMQ says so (within the confirm timeout at most), logs one line saying
 * that reports wait in the buffer and flow when the connection unblocks, and RabbitMQ checks the
 * identity when it reads the batch then (a refusal is logged at ERROR).
 *
 * <p>Counting: every report accepted ends in exactly one count. {@link #sent()} once RabbitMQ
 * confirms its batch and routed it to a queue; {@link #unroutable()} when RabbitMQ confirms a batch
 * that reached no queue (batches are published {@code mandatory}, so RabbitMQ returns them); {@link
 * #dropped()} when the buffer is full, the publisher closed, or its batch was refused or lost with
 * its channel before a confirm. A batch whose confirm is late (a connection blocked just after the
 * batch was written holds it in RabbitMQ until the alarm clears) is not counted until the confirm
 * comes; the sender moves on meanwhile, with at most 64 batches awaiting their confirms.
 *
 * <p>Implementation notes. {@link #accept} appends to a {@link ReportBuffer} under a lock held for
 * one append: it never waits for the network, and a full buffer drops the report and counts it in
 * {@link #dropped()} and in the {@code dropped_since_last} of the batches that follow, at most
 * {@value ReportIngestor#MAX_DECLARED_DROPS} per batch (learners refuse more; while drops are left
 * to declare, a batch goes out every flush interval even without reports). The sender thread takes
 * a batch out of the buffer only when it can publish it: while the connection is blocked by a
 * resource alarm, or closed, reports stay in the buffer (so the sender never sits in a blocked
 * socket write). A blocked connection that closes is no longer blocked: the flag is cleared by the
 * connection's shutdown, since the unblock notification will never come. {@link ReportChannel}
 * opens, replaces and checks the channel and tells what became of each batch, once; a failed
 * batch's reports are added to the next batch's {@code dropped_since_last}.
 *
 * <p>Thread safety: {@link #accept} may be called from any number of threads; {@link #close} waits
 * at most its close timeout.
 */
public final class ReportPublisher implements ReportSink, AutoCloseable {

  /** Reports per batch, at most. */
  public static final int DEFAULT_BATCH_SIZE = 256;

  /** Longest time a report waits for its batch. */
  public static final Duration DEFAULT_FLUSH_INTERVAL = Duration.ofMillis(100);

  /** Reports the buffer holds before it drops. */
  public static final int DEFAULT_CAPACITY = 8192;

  /** Longest wait for RabbitMQ to confirm a batch before the sender moves on to the next. */
  public static final Duration DEFAULT_CONFIRM_TIMEOUT = Duration.ofSeconds(5);

  /** Longest time {@link #close()} takes, even while RabbitMQ blocks the connection. */
  public static final Duration DEFAULT_CLOSE_TIMEOUT = Duration.ofSeconds(5);

  private static final Logger LOG = LoggerFactory.getLogger(ReportPublisher.class);

  private final Connection connection;
  private final boolean ownsConnection;
  private final int batchSize;
  private final long flushIntervalNanos;
  private final long closeTimeoutNanos;
  private final long confirmTimeoutNanos;
  private final String reporterId;
  private final String userId;
  private final ReportChannel reportChannel;
  private final Clock clock;
  private final Ticker ticker;
  private final int capacity;
  private final ReportBuffer buffer;
  private final ReportCounts counts =
      new ReportCounts(this::carryDrops, this::carryDropsWithNextReports);
  private final BlockedListener blockedListener;
  private final ShutdownListener connectionShutdown;
  private final Thread sender;
  private volatile boolean blocked;
  private volatile String blockedReason = "";
  private long sequence;

  private ReportPublisher(Builder b, Connection connection, boolean ownsConnection)
      throws IOException {
    this.connection = connection;
    this.ownsConnection = ownsConnection;
    batchSize = b.batchSize;
    flushIntervalNanos = b.flushInterval.toNanos();
    closeTimeoutNanos = b.closeTimeout.toNanos();
    confirmTimeoutNanos = b.confirmTimeout.toNanos();
    reporterId = b.reporterId;
    userId = b.userId;
    clock = b.clock;
    ticker = b.ticker;
    capacity = b.capacity;
    buffer = new ReportBuffer(capacity, batchSize, flushIntervalNanos, ticker, counts.dropped);
    reportChannel =
        new ReportChannel(connection, b.exchange, userId, b.confirmTimeout.toNanos(), counts);
    blockedListener =
        connection.addBlockedListener(
            reason -> setBlocked(true, reason), () -> setBlocked(false, ""));
    connectionShutdown = cause -> setBlocked(false, "");
    connection.addShutdownListener(connectionShutdown);
    try {
      checkIdentity();
    } catch (IOException | RuntimeException e) {
      detach();
      throw e;
    }
    sender = new Thread(this::run, "harbinger-reports-" + reporterId);
    sender.setDaemon(true);
    sender.start();
  }

  /**
   * Starts a publisher with the defaults on a connection of its own, opened from the application's
   * factory (which is not modified).
   *
   * @param factory the application's connection factory; its user is the reporter identity
   * @return the running publisher
   * @throws IOException if the connection, the channel or the exchange cannot be opened, or
   *     RabbitMQ refuses the reporter identity
   * @throws TimeoutException if RabbitMQ does not answer in time
   */
  public static ReportPublisher start(ConnectionFactory factory)
      throws IOException, TimeoutException {
    return builder(factory).start();
  }

  /**
   * Starts configuring a publisher on a connection of its own.
   *
   * @param factory the application's connection factory, copied; its user is the default {@link
   *     Builder#userId}
   * @return a builder with the defaults
   */
  public static Builder builder(ConnectionFactory factory) {
    AmqpClientVersion.require();
    return new Builder(Objects.requireNonNull(factory, "factory"), null);
  }

  /**
   * Starts a publisher with the defaults on an existing connection.
   *
   * @param connection a connection that never consumes (see the class description)
   * @return the running publisher
   * @throws IOException if the channel or the exchange cannot be opened
   * @deprecated reports published on a consumer's connection stop its acknowledgements during a
   *     resource alarm; use {@link #start(ConnectionFactory)}. This form also cannot know the
   *     connection's user: it fails unless the builder sets {@link Builder#userId}.
   */
  @Deprecated
  public static ReportPublisher start(Connection connection) throws IOException {
    try {
      return builder(connection).start();
    } catch (TimeoutException e) {
      throw new IOException(e);
    }
  }

  /**
   * Starts configuring a publisher on an existing connection.
   *
   * @param connection a connection that never consumes (see the class description)
   * @return a builder with the defaults; {@link Builder#userId} must be set
   * @deprecated use {@link #builder(ConnectionFactory)}; see {@link #start(Connection)}
   */
  @Deprecated
  public static Builder builder(Connection connection) {
    AmqpClientVersion.require();
    return new Builder(null, Objects.requireNonNull(connection, "connection"));
  }

  /** Buffers a report, or drops and counts it when the buffer is full; never blocks. */
  @Override
  public void accept(DurationReport report) {
    buffer.offer(report);
  }

  /**
   * Returns the reports dropped: buffer full, publisher closed, or their batch failed to publish.
   *
   * @return the count
   */
  public long dropped() {
    return counts.dropped.sum();
  }

  /**
   * Returns the reports in batches that RabbitMQ confirmed.
   *
   * @return the count
   */
  public long sent() {
    return counts.sent.sum();
  }

  /**
   * Returns the reports in batches that RabbitMQ confirmed but routed to no queue: nothing was
   * bound to the reports exchange (no sidecar or embedded router consumed it, or the exchange was
   * deleted and declared again without its bindings), or it was declared again with a type that
   * does not route the batches. No learner received them; they are never counted as {@link
   * #sent()}.
   *
   * @return the count
   */
  public long unroutable() {
    return counts.unroutable.sum();
  }

  /**
   * Returns the batches RabbitMQ confirmed and routed to at least one queue.
   *
   * @return the count
   */
  public long batches() {
    return counts.batches.sum();
  }

  /**
   * Returns the batches that failed: refused (nacked), or lost with their channel or connection
   * before RabbitMQ confirmed them. A batch whose confirm is late is not failed: it is counted when
   * the confirm comes.
   *
   * @return the count
   */
  public long failedBatches() {
    return counts.failedBatches.sum();
  }

  /**
   * Returns the reports waiting in the buffer.
   *
   * @return the count
   */
  public int buffered() {
    return buffer.size();
  }

  /**
   * Returns whether RabbitMQ currently blocks the report connection (a resource alarm).
   *
   * @return true while blocked
   */
  public boolean blocked() {
    return blocked;
  }

  /**
   * Returns whether RabbitMQ refused the batches' {@code user-id} since the publisher started.
   *
   * @return true once a batch was closed with 406 for its {@code user-id}
   */
  public boolean identityRefused() {
    return reportChannel.identityRefused();
  }

  /**
   * Returns the reporter identity every batch carries as {@code user-id}.
   *
   * @return the user
   */
  public String userId() {
    return userId;
  }

  /** Returns the channels opened so far, for tests. */
  long channelsOpened() {
    return reportChannel.opened();
  }

  /** Returns the batches published and not yet confirmed, refused or lost, for tests. */
  int unconfirmedBatches() {
    return reportChannel.unconfirmed();
  }

  /**
   * Sends what is buffered while the connection allows it, stops the sender thread and closes the
   * report channel (and the report connection when the publisher opened it), all within the close
   * timeout; later reports are dropped and counted, and so are batches still awaiting their
   * confirm.
   */
  @Override
  public void close() {
    long deadline = System.nanoTime() + closeTimeoutNanos;
    if (!buffer.close()) {
      return;
    }
    joinUntil(sender, deadline);
    if (sender.isAlive()) {
      sender.interrupt();
      joinUntil(sender, deadline + TimeUnit.MILLISECONDS.toNanos(200));
    }
    detach();
    long remainingMillis = Math.max(1, (deadline - System.nanoTime()) / 1_000_000);
    if (ownsConnection) {
      // Closes within the timeout, forcing the socket shut when a blocked broker does not answer.
      connection.abort((int) Math.min(Integer.MAX_VALUE, remainingMillis));
    } else {
      Channel ch = reportChannel.current();
      if (ch != null) {
        Thread closer = new Thread(() -> ReportChannel.abortQuietly(ch), "harbinger-reports-close");
        closer.setDaemon(true);
        closer.start();
        joinUntil(closer, deadline);
      }
    }
    reportChannel.abandon();
    buffer.discard();
  }

  private void detach() {
    connection.removeBlockedListener(blockedListener);
    connection.removeShutdownListener(connectionShutdown);
  }

  private static void joinUntil(Thread t, long deadlineNanos) {
    long remaining = deadlineNanos - System.nanoTime();
    if (remaining <= 0) {
      return;
    }
    try {
      t.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(remaining)));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void setBlocked(boolean value, String reason) {
    blockedReason = reason == null ? "" : reason;
    blocked = value;
    buffer.wake();
    reportChannel.wakeWaiters();
  }

  private boolean canPublish() {
    return !blocked
        && connection.isOpen()
        && reportChannel.unconfirmed() < ReportChannel.MAX_UNCONFIRMED;
  }

  private void run() {
    List<DurationReport> batch = new ArrayList<>(batchSize);
    try {
      for (long drops = buffer.next(batch, this::canPublish);
          drops >= 0;
          drops = buffer.next(batch, this::canPublish)) {
        flush(batch, drops);
      }
      // Closed: send what is left while the connection allows it.
      for (long drops = buffer.drain(batch, this::canPublish);
          drops >= 0;
          drops = buffer.drain(batch, this::canPublish)) {
        flush(batch, drops);
      }
    } catch (InterruptedException e) {
      // close() ran out of time: what is left is dropped and counted by close().
    }
  }

  private void flush(List<DurationReport> batch, long dropsInBatch) {
    ReportBatch message =
        new ReportBatch(reporterId, sequence++, epochMicros(), dropsInBatch, batch);
    try {
      reportChannel.publish(message, batch.size(), dropsInBatch, false, () -> blocked);
    } catch (IOException | RuntimeException e) {
      LOG.debug("publishing a report batch failed; its {} reports are dropped", batch.size(), e);
      lost(batch.size(), dropsInBatch);
    } catch (InterruptedException e) {
      // The batch stays outstanding: close() counts it if no confirm comes first.
      Thread.currentThread().interrupt();
    }
    batch.clear();
  }

  /** Counts a batch that will never be confirmed; the drops it carried are carried again. */
  private void lost(int reports, long carriedDrops) {
    counts.lost(reports, carriedDrops);
  }

  /** Declares drops again in a later batch. */
  private void carryDrops(long drops) {
    buffer.carry(drops);
  }

  /** Declares drops again in the next batch with reports. */
  private void carryDropsWithNextReports(long drops) {
    buffer.carryWithNextReports(drops);
  }

  /**
   * Publishes one empty batch and waits for its confirm, at most the confirm timeout and never
   * while RabbitMQ blocks the connection: a blocked connection reads nothing more, so the batch
   * waits in RabbitMQ until the alarm clears, and RabbitMQ checks its {@code user-id} then.
   */
  private void checkIdentity() throws IOException {
    ReportBatch empty = new ReportBatch(reporterId, sequence++, epochMicros(), 0, List.of());
    ReportChannel.Settled settled = reportChannel.checkIdentity(empty, () -> blocked);
    if (settled != ReportChannel.Settled.PENDING) {
      return;
    }
    if (blocked) {
      LOG.warn(
          "RabbitMQ blocks the report connection ({}): reports wait in the buffer (at most {})"
              + " and flow when it unblocks; RabbitMQ checks the reporter identity '{}' then",
          blockedReason,
          capacity,
          userId);
    } else {
      LOG.warn(
          "RabbitMQ did not confirm the first report batch within {} ms: starting anyway; reports"
              + " count as sent when confirmed, and a refused reporter identity '{}' is logged",
          TimeUnit.NANOSECONDS.toMillis(confirmTimeoutNanos),
          userId);
    }
  }

  private long epochMicros() {
    Instant now = clock.instant();
    return now.getEpochSecond() * 1_000_000L + now.getNano() / 1_000;
  }

  /** Configures a {@link ReportPublisher}; not thread-safe. */
  public static final class Builder {
    private final ConnectionFactory factory;
    private final Connection connection;
    private String exchange = HarbingerHeaders.REPORTS_EXCHANGE;
    private int batchSize = DEFAULT_BATCH_SIZE;
    private Duration flushInterval = DEFAULT_FLUSH_INTERVAL;
    private Duration confirmTimeout = DEFAULT_CONFIRM_TIMEOUT;
    private Duration closeTimeout = DEFAULT_CLOSE_TIMEOUT;
    private int capacity = DEFAULT_CAPACITY;
    private String reporterId;
    private String userId;
    private Clock clock = Clock.systemUTC();
    private Ticker ticker = Ticker.SYSTEM;

    private Builder(ConnectionFactory factory, Connection connection) {
      this.factory = factory;
      this.connection = connection;
      String name = connection == null ? null : connection.getClientProvidedName();
      reporterId = ProcessHandle.current().pid() + (name == null ? "" : "/" + name);
      userId = factory == null ? null : factory.getUsername();
    }

    /**
     * Sets the exchange, {@code harbinger.reports} by default.
     *
     * @param value a non-empty exchange name
     * @return this builder
     */
    public Builder exchange(String value) {
      if (value == null || value.isEmpty()) {
        throw new IllegalArgumentException("exchange must be non-empty: " + value);
      }
      exchange = value;
      return this;
    }

    /**
     * Sets the most reports per batch.
     *
     * @param value in [1, 65536]
     * @return this builder
     */
    public Builder batchSize(int value) {
      if (value < 1 || value > 65_536) {
        throw new IllegalArgumentException("batchSize must be in [1, 65536]: " + value);
      }
      batchSize = value;
      return this;
    }

    /**
     * Sets the longest time a report waits for its batch.
     *
     * @param value positive
     * @return this builder
     */
    public Builder flushInterval(Duration value) {
      flushInterval = positive("flushInterval", value);
      return this;
    }

    /**
     * Sets the longest time the sender waits for a batch's publisher confirm before it sends the
     * next; the batch is counted when its confirm, its refusal or its channel's end comes.
     *
     * @param value positive
     * @return this builder
     */
    public Builder confirmTimeout(Duration value) {
      confirmTimeout = positive("confirmTimeout", value);
      return this;
    }

    /**
     * Sets the longest time {@link ReportPublisher#close()} takes.
     *
     * @param value positive
     * @return this builder
     */
    public Builder closeTimeout(Duration value) {
      closeTimeout = positive("closeTimeout", value);
      return this;
    }

    /**
     * Sets the number of reports the buffer holds before dropping.
     *
     * @param value at least 1
     * @return this builder
     */
    public Builder capacity(int value) {
      if (value < 1) {
        throw new IllegalArgumentException("capacity must be at least 1: " + value);
      }
      capacity = value;
      return this;
    }

    /**
     * Sets the reporter id carried by every batch, for diagnostics (it is not an identity).
     *
     * @param value non-null
     * @return this builder
     */
    public Builder reporterId(String value) {
      reporterId = Objects.requireNonNull(value, "reporterId");
      return this;
    }

    /**
     * Sets the reporter identity, the {@code user-id} of every batch: the user the report
     * connection authenticates as; the factory's user name by default.
     *
     * @param value a non-empty user name
     * @return this builder
     */
    public Builder userId(String value) {
      if (value == null || value.isEmpty()) {
        throw new IllegalArgumentException("userId must be a non-empty user name: " + value);
      }
      userId = value;
      return this;
    }

    /**
     * Sets the wall clock of batch timestamps.
     *
     * @param value the clock
     * @return this builder
     */
    public Builder clock(Clock value) {
      clock = Objects.requireNonNull(value, "clock");
      return this;
    }

    /**
     * Sets the monotonic clock of flush deadlines.
     *
     * @param value the ticker
     * @return this builder
     */
    public Builder ticker(Ticker value) {
      ticker = Objects.requireNonNull(value, "ticker");
      return this;
    }

    /**
     * Opens the report connection (unless the builder was given one), the channel, declares the
     * exchange, checks the reporter identity with one empty confirmed batch, and starts the sender
     * thread. While a resource alarm blocks the report connection it does not wait for that batch's
     * confirm: it logs one line and returns (see the class description).
     *
     * @return the running publisher
     * @throws IOException if the connection, the channel or the exchange cannot be opened, or
     *     RabbitMQ refuses the reporter identity (the message says what to set)
     * @throws TimeoutException if RabbitMQ does not answer in time
     * @throws IllegalStateException if the builder was given a connection but no {@link #userId}
     */
    public ReportPublisher start() throws IOException, TimeoutException {
      if (userId == null || userId.isEmpty()) {
        throw new IllegalStateException(
            "userId must be set: a Connection does not say which user it authenticated as;"
                + " use ReportPublisher.builder(connectionFactory), or .userId(user)");
      }
      if (connection != null) {
        return new ReportPublisher(this, connection, false);
      }
      ConnectionFactory own = factory.clone();
      own.setAutomaticRecoveryEnabled(true);
      Connection c = own.newConnection("harbinger-reports " + reporterId);
      try {
        return new ReportPublisher(this, c, true);
      } catch (IOException | RuntimeException e) {
        c.abort(1_000);
        throw e;
      }
    }

    private static Duration positive(String name, Duration value) {
      if (value == null || value.isNegative() || value.isZero()) {
        throw new IllegalArgumentException(name + " must be positive: " + value);
      }
      return value;
    }
  }
}
