package io.harbinger.rabbit;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.BlockedListener;
import com.rabbitmq.client.BuiltinExchangeType;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import io.harbinger.predictor.Ticker;
import io.harbinger.proto.v1.DurationReport;
import io.harbinger.proto.v1.ReportBatch;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends duration reports to the reports exchange in protobuf batches, from a bounded buffer, on a
 * channel and a thread of its own.
 *
 * <p>Example: with the defaults, a consumer settling 1,000 deliveries a second sends about ten
 * batches a second (one every 100 ms, or sooner once 256 reports wait); if RabbitMQ blocks the
 * connection for 30 s, the first 8,192 reports wait in the buffer and the rest are dropped and
 * counted, and the consumer's handlers and acknowledgements never wait.
 *
 * <p>Implementation notes. {@link #accept} only offers the report to an {@link ArrayBlockingQueue}:
 * it never waits, and a full buffer drops the report and counts it in {@link #dropped()} and in the
 * next batch's {@code dropped_since_last} (DESIGN.md contracts, reports exchange). The sender
 * thread flushes every {@code flushInterval} or as soon as {@code batchSize} reports wait. While
 * the connection is blocked by a RabbitMQ resource alarm it does not publish, and leaves reports in
 * the buffer, so it does not sit in a blocked socket write; a failed publish (connection down,
 * channel closed) drops the batch and counts its reports. With an automatically recovering
 * connection the channel comes back by itself; with a plain one the sender opens a new channel at
 * its next batch.
 *
 * <p>Thread safety: {@link #accept} may be called from any number of threads; {@link #close} waits
 * at most for one flush.
 */
public final class ReportPublisher implements ReportSink, AutoCloseable {

  /** Reports per batch, at most. */
  public static final int DEFAULT_BATCH_SIZE = 256;

  /** Longest time a report waits for its batch. */
  public static final Duration DEFAULT_FLUSH_INTERVAL = Duration.ofMillis(100);

  /** Reports the buffer holds before it drops. */
  public static final int DEFAULT_CAPACITY = 8192;

  private static final Logger LOG = LoggerFactory.getLogger(ReportPublisher.class);
  private static final AMQP.BasicProperties BATCH_PROPS =
      new AMQP.BasicProperties.Builder()
          .contentType("application/x-protobuf")
          .type("harbinger.v1.ReportBatch")
          .deliveryMode(1)
          .build();

  private final Connection connection;
  private final String exchange;
  private final int batchSize;
  private final long flushIntervalNanos;
  private final String reporterId;
  private final Clock clock;
  private final Ticker ticker;
  private final ArrayBlockingQueue<DurationReport> buffer;
  private final AtomicLong droppedSinceLast = new AtomicLong();
  private final LongAdder dropped = new LongAdder();
  private final LongAdder sent = new LongAdder();
  private final LongAdder batches = new LongAdder();
  private final LongAdder failedBatches = new LongAdder();
  private final BlockedListener blockedListener;
  private final Thread sender;
  private volatile boolean blocked;
  private volatile boolean running = true;
  private Channel channel;
  private long sequence;

  private ReportPublisher(Builder b) throws IOException {
    connection = b.connection;
    exchange = b.exchange;
    batchSize = b.batchSize;
    flushIntervalNanos = b.flushInterval.toNanos();
    reporterId = b.reporterId;
    clock = b.clock;
    ticker = b.ticker;
    buffer = new ArrayBlockingQueue<>(b.capacity);
    channel = connection.createChannel();
    channel.exchangeDeclare(exchange, BuiltinExchangeType.FANOUT, true);
    blockedListener =
        connection.addBlockedListener(reason -> blocked = true, () -> blocked = false);
    sender = new Thread(this::run, "harbinger-reports-" + reporterId);
    sender.setDaemon(true);
    sender.start();
  }

  /**
   * Starts a publisher with the defaults on a connection.
   *
   * @param connection the connection to open the report channel on
   * @return the running publisher
   * @throws IOException if the channel or the exchange cannot be opened
   */
  public static ReportPublisher start(Connection connection) throws IOException {
    return builder(connection).start();
  }

  /**
   * Starts configuring a publisher.
   *
   * @param connection the connection to open the report channel on
   * @return a builder with the defaults
   */
  public static Builder builder(Connection connection) {
    return new Builder(connection);
  }

  /** Buffers a report, or drops and counts it when the buffer is full; never blocks. */
  @Override
  public void accept(DurationReport report) {
    if (report == null || !running || !buffer.offer(report)) {
      dropped.increment();
      droppedSinceLast.incrementAndGet();
    }
  }

  /**
   * Returns the reports dropped: buffer full, publisher closed, or their batch failed to publish.
   *
   * @return the count
   */
  public long dropped() {
    return dropped.sum();
  }

  /**
   * Returns the reports published.
   *
   * @return the count
   */
  public long sent() {
    return sent.sum();
  }

  /**
   * Returns the batches published.
   *
   * @return the count
   */
  public long batches() {
    return batches.sum();
  }

  /**
   * Returns the batches that failed to publish.
   *
   * @return the count
   */
  public long failedBatches() {
    return failedBatches.sum();
  }

  /**
   * Returns the reports waiting in the buffer.
   *
   * @return the count
   */
  public int buffered() {
    return buffer.size();
  }

  /** Sends what is buffered, stops the sender thread and closes the report channel. */
  @Override
  public void close() {
    running = false;
    sender.interrupt();
    try {
      sender.join(TimeUnit.SECONDS.toMillis(5));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    connection.removeBlockedListener(blockedListener);
    try {
      if (channel != null && channel.isOpen()) {
        channel.close();
      }
    } catch (IOException | java.util.concurrent.TimeoutException | RuntimeException e) {
      LOG.debug("closing the report channel failed", e);
    }
  }

  private void run() {
    List<DurationReport> batch = new ArrayList<>(batchSize);
    long deadline = ticker.nanos() + flushIntervalNanos;
    while (running) {
      if (blocked) {
        LockSupport.parkNanos(flushIntervalNanos);
        if (Thread.interrupted()) {
          break;
        }
        continue;
      }
      long remaining = deadline - ticker.nanos();
      if (remaining <= 0 || batch.size() >= batchSize) {
        flush(batch);
        deadline = ticker.nanos() + flushIntervalNanos;
        continue;
      }
      try {
        DurationReport r = buffer.poll(remaining, TimeUnit.NANOSECONDS);
        if (r != null) {
          batch.add(r);
          buffer.drainTo(batch, batchSize - batch.size());
        }
      } catch (InterruptedException e) {
        break;
      }
    }
    buffer.drainTo(batch);
    while (!batch.isEmpty()) {
      List<DurationReport> chunk = batch.subList(0, Math.min(batchSize, batch.size()));
      List<DurationReport> copy = new ArrayList<>(chunk);
      chunk.clear();
      flush(copy);
    }
  }

  private void flush(List<DurationReport> batch) {
    long droppedBefore = droppedSinceLast.get();
    if (batch.isEmpty() && droppedBefore == 0) {
      return;
    }
    ReportBatch message =
        ReportBatch.newBuilder()
            .setReporterId(reporterId)
            .setSequence(sequence)
            .setSentAtMicros(epochMicros())
            .setDroppedSinceLast(droppedBefore)
            .addAllReports(batch)
            .build();
    try {
      Channel ch = channel();
      ch.basicPublish(exchange, "", BATCH_PROPS, message.toByteArray());
      sequence++;
      droppedSinceLast.addAndGet(-droppedBefore);
      sent.add(batch.size());
      batches.increment();
    } catch (IOException | RuntimeException e) {
      failedBatches.increment();
      LOG.debug("publishing a report batch failed; its {} reports are dropped", batch.size(), e);
      dropped.add(batch.size());
      droppedSinceLast.addAndGet(batch.size());
    }
    batch.clear();
  }

  private Channel channel() throws IOException {
    if (!channel.isOpen() && !(channel instanceof com.rabbitmq.client.Recoverable)) {
      channel = connection.createChannel();
    }
    return channel;
  }

  private long epochMicros() {
    java.time.Instant now = clock.instant();
    return now.getEpochSecond() * 1_000_000L + now.getNano() / 1_000;
  }

  /** Configures a {@link ReportPublisher}; not thread-safe. */
  public static final class Builder {
    private final Connection connection;
    private String exchange = HarbingerHeaders.REPORTS_EXCHANGE;
    private int batchSize = DEFAULT_BATCH_SIZE;
    private Duration flushInterval = DEFAULT_FLUSH_INTERVAL;
    private int capacity = DEFAULT_CAPACITY;
    private String reporterId;
    private Clock clock = Clock.systemUTC();
    private Ticker ticker = Ticker.SYSTEM;

    private Builder(Connection connection) {
      this.connection = Objects.requireNonNull(connection, "connection");
      String name = connection.getClientProvidedName();
      reporterId = ProcessHandle.current().pid() + (name == null ? "" : "/" + name);
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
      if (value == null || value.isNegative() || value.isZero()) {
        throw new IllegalArgumentException("flushInterval must be positive: " + value);
      }
      flushInterval = value;
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
     * Sets the reporter id carried by every batch.
     *
     * @param value non-null
     * @return this builder
     */
    public Builder reporterId(String value) {
      reporterId = Objects.requireNonNull(value, "reporterId");
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
     * Opens the report channel, declares the exchange and starts the sender thread.
     *
     * @return the running publisher
     * @throws IOException if the channel or the exchange cannot be opened
     */
    public ReportPublisher start() throws IOException {
      return new ReportPublisher(this);
    }
  }
}
