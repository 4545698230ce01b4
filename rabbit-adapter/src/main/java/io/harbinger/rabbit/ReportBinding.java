package io.harbinger.rabbit;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.BuiltinExchangeType;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.ConfirmListener;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.Envelope;
import com.rabbitmq.client.ShutdownSignalException;
import com.rabbitmq.client.impl.recovery.AutorecoveringConnection;
import io.harbinger.predictor.Ticker;
import java.io.IOException;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BooleanSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps a learner's queue bound to the reports exchange, and checks end to end that reports reach
 * it: what the sidecar and the {@link EmbeddedRouter} run beside their report consumer.
 *
 * <p>RabbitMQ tells a consumer nothing when the exchange its queue is bound to is deleted: the
 * binding goes with it, and a reporter that declares the exchange again has its batches confirmed
 * although they reach no learner. So, every {@link Builder#interval} (5 s by default) while the
 * learner consumes, a check runs on a channel of its own on the learner's connection:
 *
 * <ol>
 *   <li>the exchange is checked passively; when it is missing it is declared again (a durable
 *       fanout) and the queue bound to it, counted in {@link #exchangesMissing()};
 *   <li>it is declared as a durable fanout: RabbitMQ refuses that (406) when it was declared again
 *       with another type, and then the queue is not bound to it and {@link #problem()} names the
 *       exchange and its type until it is deleted (the next check then declares it as a fanout);
 *   <li>when nothing came from the exchange during the last interval, a probe is published to it:
 *       an empty message with the {@link HarbingerHeaders#PROBE} header, on a connection of its own
 *       (so that a resource alarm never blocks the learner's connection), with publisher confirms.
 *       It must come back through the queue. When RabbitMQ settled it (at least half an interval
 *       before) but by the next check neither it nor anything else came from the exchange (batches
 *       queued ahead of it would have come), the binding was lost (the exchange deleted and
 *       declared again between two checks): the queue is bound to it again, counted in {@link
 *       #probesLost()}. A probe left unsettled for three intervals (a blocked probe connection) is
 *       given up, and the queue bound again all the same.
 * </ol>
 *
 * <p>A problem found holds until something comes from the exchange again (the next report, or the
 * next probe): {@link #problem()} says what was wrong and what was done, for one interval at least,
 * so that health checks and scrapes see it. Without write permission on the exchange the probe is
 * refused (logged once at WARN): the queue is then bound again at every check instead (binding is
 * idempotent), which repairs a lost binding within an interval but cannot say that it was lost.
 *
 * <p>Probes reach every learner bound to the exchange: a learner hands each delivery to {@link
 * #isProbe} first and ingests only what is not a probe. A probe carries a random nonce, and counts
 * as come back only through the reports exchange (not published straight to the queue).
 *
 * <p>Example: with the default interval, an exchange deleted and declared again by a reporter at
 * once is found within three checks (15 s) of the last report that got through: the first check
 * after a whole silent interval publishes a probe, the next finds it lost and binds the queue
 * again; {@link #problem()} stays set until a check finds that reports arrived again.
 *
 * <p>Thread-safe: the checks run on a thread of their own; {@link #isProbe} is called from the
 * consumer's thread and never blocks; {@link #close()} waits for a check in progress (up to 5 s).
 */
public final class ReportBinding implements AutoCloseable {

  /** How often the binding is checked by default. */
  public static final Duration DEFAULT_INTERVAL = Duration.ofSeconds(5);

  private static final Logger LOG = LoggerFactory.getLogger(ReportBinding.class);

  private static final Pattern INEQUIVALENT =
      Pattern.compile("inequivalent arg '([^']+)'.*current is '([^']*)'");

  /** A probe is useless after a minute; it expires then in the queues of stopped learners. */
  private static final String PROBE_EXPIRATION_MILLIS = "60000";

  private static final int REPLY_ACCESS_REFUSED = 403;
  private static final int REPLY_NOT_FOUND = 404;
  private static final int REPLY_PRECONDITION_FAILED = 406;

  private final ConnectionFactory probeFactory;
  private final Connection connection;
  private final String exchange;
  private volatile String queue;
  private final String name;
  private final BooleanSupplier consuming;
  private final Ticker ticker;
  private final long intervalNanos;
  private final ScheduledExecutorService checker;
  private final LongAdder exchangesMissing = new LongAdder();
  private final LongAdder probesLost = new LongAdder();
  private volatile long lastFromExchangeNanos;
  private volatile String problem;
  private volatile long queueMessages = -1;
  private volatile Probe probe;
  private volatile boolean probeRefused;
  private volatile boolean probeBlocked;
  private volatile boolean closed;
  private long previousCheckNanos;
  private boolean wrongTypeLogged;
  private boolean otherPropertiesLogged;
  private boolean probeConnectionFailureLogged;
  private Channel topology;
  private Connection probeConnection;
  private Channel probeChannel;

  private ReportBinding(Builder b) {
    this.probeFactory = b.factory.clone();
    this.connection = b.connection;
    this.exchange = b.exchange;
    this.queue = b.queue;
    this.name = b.name;
    if (connection instanceof AutorecoveringConnection recovering) {
      // A server-named queue comes back from a connection recovery with a new name.
      recovering.addQueueRecoveryListener(
          (before, after) -> {
            if (before.equals(queue)) {
              queue = after;
            }
          });
    }
    this.consuming = b.consuming;
    this.ticker = b.ticker;
    this.intervalNanos = b.interval.toNanos();
    long now = ticker.nanos();
    this.lastFromExchangeNanos = now;
    this.previousCheckNanos = now;
    this.checker =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "harbinger-binding-" + b.name);
              t.setDaemon(true);
              return t;
            });
    checker.scheduleWithFixedDelay(
        this::checkQuietly, intervalNanos, intervalNanos, TimeUnit.NANOSECONDS);
  }

  /**
   * Starts configuring the checks of a learner's queue.
   *
   * @param factory the learner's connection factory, copied for the probe connection
   * @param connection the learner's connection, on which the queue is consumed
   * @param exchange the reports exchange
   * @param queue the learner's queue, bound to it
   * @return a builder with the defaults
   */
  public static Builder builder(
      ConnectionFactory factory, Connection connection, String exchange, String queue) {
    return new Builder(factory, connection, exchange, queue);
  }

  /**
   * Tells whether a delivered message is a probe, which the learner acknowledges and does not
   * ingest; notes that something came from the exchange. Call it for every delivery, first.
   *
   * @param envelope the delivery's envelope
   * @param properties its properties, possibly null
   * @return true for a probe, this learner's or another's
   */
  public boolean isProbe(Envelope envelope, AMQP.BasicProperties properties) {
    boolean fromExchange = envelope != null && exchange.equals(envelope.getExchange());
    if (fromExchange) {
      lastFromExchangeNanos = ticker.nanos();
    }
    Map<String, Object> headers = properties == null ? null : properties.getHeaders();
    Object nonce = headers == null ? null : headers.get(HarbingerHeaders.PROBE);
    if (nonce == null) {
      return false;
    }
    Probe p = probe;
    if (p != null && fromExchange && p.nonce.equals(nonce.toString())) {
      p.arrived = true;
    }
    return true;
  }

  /**
   * Returns what is wrong with the way from the exchange to the queue, or empty while reports reach
   * it.
   *
   * @return the problem and what was done about it, such as "the reports exchange 'x' is a direct
   *     exchange, not fanout: ..."
   */
  public Optional<String> problem() {
    return Optional.ofNullable(problem);
  }

  /**
   * Returns the times the exchange was found missing and declared again, with the queue bound.
   *
   * @return the count
   */
  public long exchangesMissing() {
    return exchangesMissing.sum();
  }

  /**
   * Returns the probes that did not come back, after each of which the queue was bound again.
   *
   * @return the count
   */
  public long probesLost() {
    return probesLost.sum();
  }

  /**
   * Returns the name of the queue checked: the one given, or the name RabbitMQ gave a server-named
   * queue when the connection recovered.
   *
   * @return the queue's name
   */
  public String queue() {
    return queue;
  }

  /**
   * Returns the messages waiting in the queue at the last check.
   *
   * @return the count, or -1 before the first check
   */
  public long queueMessages() {
    return queueMessages;
  }

  private void checkQuietly() {
    try {
      check();
    } catch (IOException | RuntimeException e) {
      abortQuietly(topology);
      topology = null;
      LOG.debug("checking the binding of {} to {} failed: {}", queue, exchange, e.toString());
    }
  }

  /** One check; runs on the checker thread (tests call it directly). */
  void check() throws IOException {
    long now = ticker.nanos();
    long since = previousCheckNanos;
    previousCheckNanos = now;
    if (closed || !connection.isOpen() || !consuming.getAsBoolean()) {
      probe = null;
      return;
    }
    if (!exchangeExists()) {
      exchangesMissing.increment();
      declareFanout();
      bind();
      raise(
          "the reports exchange '"
              + exchange
              + "' was missing (deleted?): declared it again and bound queue "
              + queue
              + " to it");
      probe = null;
      return;
    }
    String otherType = otherType();
    if (otherType != null) {
      String wrong =
          "the reports exchange '"
              + exchange
              + "' is a "
              + otherType
              + " exchange, not fanout: reports published to it do not reach queue "
              + queue
              + ". Delete it; the next check declares it again as a durable fanout";
      if (!wrongTypeLogged) {
        LOG.error("{}", wrong);
        wrongTypeLogged = true;
      }
      problem = wrong;
      probe = null;
      return;
    }
    wrongTypeLogged = false;
    queueMessages = topology().queueDeclarePassive(queue).getMessageCount();
    if (lastFromExchangeNanos - since >= 0) {
      clear();
      probe = null;
      return;
    }
    if (probeRefused) {
      bind();
      clear();
      return;
    }
    Probe p = probe;
    if (p != null) {
      judge(p, now, now - since);
      return;
    }
    if (probeBlocked || !publishProbe(now)) {
      bind();
    }
  }

  /** Judges the probe in flight; {@code spacing} is the time since the previous check. */
  private void judge(Probe p, long now, long spacing) throws IOException {
    long settled = p.settledNanos;
    if (p.arrived) {
      probe = null;
      clear();
    } else if (settled != Probe.UNSETTLED && now - settled >= spacing / 2) {
      probe = null;
      probesLost.increment();
      bind();
      raise(
          "a probe published to the reports exchange '"
              + exchange
              + "' did not reach queue "
              + queue
              + ": its binding was lost (the exchange deleted and declared again?); bound it"
              + " again");
    } else if (settled == Probe.UNSETTLED && now - p.sentNanos > 3 * spacing) {
      // Not settled in three intervals (a blocked probe connection): start over, binding anyway.
      probe = null;
      bind();
    }
  }

  private void raise(String what) {
    if (!what.equals(problem)) {
      LOG.warn("{}", what);
    }
    problem = what;
  }

  private void clear() {
    String was = problem;
    if (was != null) {
      problem = null;
      LOG.info("reports reach queue {} again", queue);
    }
  }

  private Channel topology() throws IOException {
    Channel ch = topology;
    if (ch == null || !ch.isOpen()) {
      abortQuietly(ch);
      ch = connection.createChannel();
      if (ch == null) {
        throw new IOException("no channel available on the learner's connection");
      }
      topology = ch;
    }
    return ch;
  }

  private boolean exchangeExists() throws IOException {
    try {
      topology().exchangeDeclarePassive(exchange);
      return true;
    } catch (IOException e) {
      if (replyCode(e) != REPLY_NOT_FOUND) {
        throw e;
      }
      topology = null;
      return false;
    }
  }

  private void declareFanout() throws IOException {
    topology().exchangeDeclare(exchange, BuiltinExchangeType.FANOUT, true);
  }

  /**
   * Returns the exchange's type when it is not a fanout, or null when it is. An exchange declared
   * with other properties (not durable, say) still routes to the queue: that is logged once.
   */
  private String otherType() throws IOException {
    try {
      declareFanout();
      otherPropertiesLogged = false;
      return null;
    } catch (IOException e) {
      if (replyCode(e) != REPLY_PRECONDITION_FAILED) {
        throw e;
      }
      topology = null;
      String reason = String.valueOf(e.getCause() == null ? e : e.getCause().getMessage());
      String type = typeNamed(reason);
      if (type == null && !otherPropertiesLogged) {
        LOG.warn(
            "the reports exchange '{}' is declared otherwise than as a durable fanout ({}); queue"
                + " {} stays bound to it",
            exchange,
            reason,
            queue);
        otherPropertiesLogged = true;
      }
      return type;
    }
  }

  private void bind() throws IOException {
    topology().queueBind(queue, exchange, "");
  }

  private boolean publishProbe(long now) {
    if (closed) {
      return false;
    }
    try {
      Channel ch = probeChannel();
      if (ch == null) {
        return false;
      }
      Probe p = new Probe(UUID.randomUUID().toString(), ch.getNextPublishSeqNo(), now);
      probe = p;
      ch.basicPublish(
          exchange,
          "",
          new AMQP.BasicProperties.Builder()
              .headers(Map.of(HarbingerHeaders.PROBE, p.nonce))
              .deliveryMode(1)
              .expiration(PROBE_EXPIRATION_MILLIS)
              .build(),
          new byte[0]);
      return true;
    } catch (IOException | RuntimeException e) {
      probe = null;
      LOG.debug("publishing a probe to {} failed: {}", exchange, e.toString());
      return false;
    }
  }

  /** Returns the probe channel, opening the probe connection first; null when it cannot. */
  private Channel probeChannel() throws IOException {
    Channel ch = probeChannel;
    if (ch != null && ch.isOpen()) {
      return ch;
    }
    abortQuietly(ch);
    probeChannel = null;
    if (probeConnection == null) {
      try {
        Connection c = probeFactory.newConnection(name + " probe");
        c.addBlockedListener(reason -> probeBlocked = true, () -> probeBlocked = false);
        // A blocked connection that closes is no longer blocked: no unblock will come.
        c.addShutdownListener(cause -> probeBlocked = false);
        probeConnection = c;
        probeConnectionFailureLogged = false;
      } catch (IOException | TimeoutException | RuntimeException e) {
        if (!probeConnectionFailureLogged) {
          LOG.warn(
              "the probe connection of queue {} cannot be opened ({}): the queue is bound to {}"
                  + " again at every check instead",
              queue,
              e.toString(),
              exchange);
          probeConnectionFailureLogged = true;
        }
        return null;
      }
    }
    if (!probeConnection.isOpen()) {
      return null;
    }
    ch = probeConnection.createChannel();
    if (ch == null) {
      return null;
    }
    ch.confirmSelect();
    ch.addConfirmListener(
        new ConfirmListener() {
          @Override
          public void handleAck(long tag, boolean multiple) {
            settled(tag, multiple);
          }

          @Override
          public void handleNack(long tag, boolean multiple) {
            settled(tag, multiple);
          }
        });
    ch.addShutdownListener(this::probeChannelClosed);
    probeChannel = ch;
    return ch;
  }

  private void settled(long tag, boolean multiple) {
    Probe p = probe;
    if (p != null && (tag == p.seqNo || (multiple && tag >= p.seqNo))) {
      p.settledNanos = ticker.nanos();
    }
  }

  private void probeChannelClosed(ShutdownSignalException cause) {
    probe = null;
    if (cause.isInitiatedByApplication() || closed) {
      return;
    }
    if (replyCode(cause) == REPLY_ACCESS_REFUSED && !probeRefused) {
      probeRefused = true;
      LOG.warn(
          "RabbitMQ refuses the probe of queue {} ({}): grant the user write on exchange {} to"
              + " have its binding checked end to end; until then it is bound again at every check",
          queue,
          cause.getMessage(),
          exchange);
    }
  }

  /**
   * Declares the reports exchange as every learner does, a durable fanout, and says clearly when it
   * exists with another type.
   *
   * @param channel the channel to declare it on; closed by RabbitMQ when the declaration fails
   * @param exchange the reports exchange
   * @throws IOException naming the exchange, its type and the fix when it is not a fanout, or what
   *     RabbitMQ answered otherwise
   */
  public static void declareExchange(Channel channel, String exchange) throws IOException {
    try {
      channel.exchangeDeclare(exchange, BuiltinExchangeType.FANOUT, true);
    } catch (IOException e) {
      String type = typeNamed(String.valueOf(e.getCause()));
      if (type == null) {
        throw e;
      }
      throw new IOException(
          "the reports exchange '"
              + exchange
              + "' is a "
              + type
              + " exchange, not fanout: reports published to it reach no learner. Delete it (the"
              + " learners and reporters declare it again as a durable fanout)",
          e);
    }
  }

  /** Returns the AMQP reply code of a channel or connection error, or -1. */
  static int replyCode(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof ShutdownSignalException sse
          && sse.getReason() instanceof AMQP.Channel.Close close) {
        return close.getReplyCode();
      }
      if (t instanceof ShutdownSignalException sse
          && sse.getReason() instanceof AMQP.Connection.Close close) {
        return close.getReplyCode();
      }
    }
    return -1;
  }

  /**
   * Returns the exchange type RabbitMQ names in a 406 for a declaration with another type, such as
   * {@code direct} from {@code inequivalent arg 'type' for exchange 'x' in vhost '/': received
   * 'fanout' but current is 'direct'}.
   *
   * @param reason the text of the channel close
   * @return the current type, or null when the text is about another property
   */
  static String typeNamed(String reason) {
    Matcher m = INEQUIVALENT.matcher(String.valueOf(reason));
    return m.find() && m.group(1).equals("type") ? m.group(2) : null;
  }

  private static void abortQuietly(Channel ch) {
    if (ch == null) {
      return;
    }
    try {
      ch.abort();
    } catch (IOException | RuntimeException e) {
      LOG.debug("aborting a channel failed: {}", e.toString());
    }
  }

  /** Stops the checks and closes the probe connection; the learner's connection is left alone. */
  @Override
  public void close() {
    closed = true;
    checker.shutdown();
    try {
      checker.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    checker.shutdownNow();
    abortQuietly(topology);
    Connection c = probeConnection;
    if (c != null) {
      c.abort(1_000);
    }
  }

  /** The probe in flight: published, then settled by RabbitMQ, then (normally) delivered. */
  private static final class Probe {
    static final long UNSETTLED = Long.MIN_VALUE;

    final String nonce;
    final long seqNo;
    final long sentNanos;
    volatile long settledNanos = UNSETTLED;
    volatile boolean arrived;

    Probe(String nonce, long seqNo, long sentNanos) {
      this.nonce = nonce;
      this.seqNo = seqNo;
      this.sentNanos = sentNanos;
    }
  }

  /** Configures a {@link ReportBinding}; not thread-safe. */
  public static final class Builder {
    private final ConnectionFactory factory;
    private final Connection connection;
    private final String exchange;
    private final String queue;
    private Duration interval = DEFAULT_INTERVAL;
    private String name = "harbinger-learner";
    private BooleanSupplier consuming = () -> true;
    private Ticker ticker = Ticker.SYSTEM;

    private Builder(
        ConnectionFactory factory, Connection connection, String exchange, String queue) {
      this.factory = Objects.requireNonNull(factory, "factory");
      this.connection = Objects.requireNonNull(connection, "connection");
      this.exchange = Objects.requireNonNull(exchange, "exchange");
      this.queue = Objects.requireNonNull(queue, "queue");
    }

    /**
     * Sets how often the binding is checked.
     *
     * @param value in [100 ms, 10 min]
     * @return this builder
     */
    public Builder interval(Duration value) {
      if (value == null
          || value.compareTo(Duration.ofMillis(100)) < 0
          || value.compareTo(Duration.ofMinutes(10)) > 0) {
        throw new IllegalArgumentException("interval must be in [100 ms, 10 min]: " + value);
      }
      interval = value;
      return this;
    }

    /**
     * Sets the name of the checker thread and, with " probe" added, of the probe connection.
     *
     * @param value a non-empty name, such as {@code harbinger-sidecar sidecar-1}
     * @return this builder
     */
    public Builder name(String value) {
      if (value == null || value.isEmpty()) {
        throw new IllegalArgumentException("name must be non-empty: " + value);
      }
      name = value;
      return this;
    }

    /**
     * Sets what says whether the learner's consumer is up; the checks pause while it is not.
     *
     * @param value read at every check
     * @return this builder
     */
    public Builder consuming(BooleanSupplier value) {
      consuming = Objects.requireNonNull(value, "consuming");
      return this;
    }

    /** Sets the monotonic clock, for tests. */
    Builder ticker(Ticker value) {
      ticker = Objects.requireNonNull(value, "ticker");
      return this;
    }

    /**
     * Starts the checks: the first one an interval from now.
     *
     * @return the running checks
     */
    public ReportBinding start() {
      return new ReportBinding(this);
    }
  }
}
