package io.harbinger.rabbit;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.DefaultConsumer;
import com.rabbitmq.client.Envelope;
import com.rabbitmq.client.Recoverable;
import com.rabbitmq.client.RecoveryListener;
import com.rabbitmq.client.ShutdownSignalException;
import io.harbinger.predictor.Outcome;
import io.harbinger.predictor.Prediction;
import io.harbinger.predictor.Predictor;
import io.harbinger.predictor.Router;
import java.io.IOException;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link Router} with the predictor in-process, learning from the reports exchange: Harbinger in
 * one application, with no sidecar.
 *
 * <p>It opens a connection of its own from the application's {@link ConnectionFactory} (the factory
 * is copied, not changed), binds a queue of its own (server-named, exclusive, at most {@value
 * #QUEUE_MAX_LENGTH} messages, new ones refused beyond that so that a flood of junk cannot push out
 * the reports queued: their publishers' confirms are nacks) to the reports exchange and feeds every
 * batch through a {@link ReportIngestor}; every process with an embedded router learns from every
 * reporter. Reports are acknowledged after they are ingested (garbage included), never with
 * automatic acknowledgement, and the connection accepts message bodies up to {@link
 * Builder#maxInboundMessageBytes} (128 MiB by default, RabbitMQ 3.x's own limit), so that no
 * message on the reports exchange can close a connection: an oversized one is acknowledged and
 * counted. Only batches from {@link Builder#trustedReporters} are learned (by default the user the
 * factory authenticates as); others are counted and ignored ({@link ReportIngestor}).
 *
 * <p>A lookup is a call into the local predictor; if it throws, the message goes out at the default
 * level and {@link #failures()} counts it (fail-open: Harbinger never blocks, drops or delays a
 * publish).
 *
 * <p>Example:
 *
 * <pre>{@code
 * EmbeddedRouter router = EmbeddedRouter.start(factory, new HistogramPredictor(config));
 * Channel producer = PredictiveChannels.wrap(connection.createChannel(), user, router);
 * }</pre>
 *
 * <p>Thread-safe. Reports are ingested on the router connection's consumer thread.
 */
public final class EmbeddedRouter implements Router, AutoCloseable {

  /**
   * Most report batches waiting in the router's queue; RabbitMQ refuses more ({@code x-overflow:
   * reject-publish}), and a {@link ReportPublisher} counts a refused batch as dropped.
   */
  public static final int QUEUE_MAX_LENGTH = 10_000;

  /** The largest message body the router's connection accepts by default: 128 MiB. */
  public static final int DEFAULT_MAX_INBOUND_MESSAGE_BYTES = 128 << 20;

  /** Report batches delivered to the router before it acknowledges them. */
  static final int PREFETCH = 64;

  private static final Logger LOG = LoggerFactory.getLogger(EmbeddedRouter.class);

  private final Predictor predictor;
  private final ReportIngestor ingestor;
  private final Connection connection;
  private final Channel channel;
  private final ReportBinding binding;
  private final LongAdder failures = new LongAdder();
  private final int levels;
  private final int defaultLevel;
  private volatile boolean consuming;

  private EmbeddedRouter(Builder b) throws IOException, TimeoutException {
    this.predictor = b.predictor;
    this.levels = predictor.levels();
    this.defaultLevel = predictor.defaultLevel();
    TrustedReporters reporters =
        b.reporters != null ? b.reporters : TrustedReporters.of(b.factory.getUsername());
    this.ingestor = b.ingest.reporters(reporters).build();
    ConnectionFactory own = b.factory.clone();
    own.setAutomaticRecoveryEnabled(true);
    own.setTopologyRecoveryEnabled(true);
    own.setMaxInboundMessageBodySize(b.maxInboundMessageBytes);
    this.connection = own.newConnection("harbinger-embedded-router");
    ReportBinding checks = null;
    try {
      this.channel = connection.createChannel();
      ReportBinding.declareExchange(channel, b.exchange);
      String queue =
          channel
              .queueDeclare(
                  "",
                  false,
                  true,
                  true,
                  Map.of("x-max-length", QUEUE_MAX_LENGTH, "x-overflow", "reject-publish"))
              .getQueue();
      channel.queueBind(queue, b.exchange, "");
      checks =
          ReportBinding.builder(own, connection, b.exchange, queue)
              .name("harbinger-embedded-router")
              .interval(b.checkInterval)
              .consuming(() -> consuming && connection.isOpen())
              .start();
      binding = checks;
      channel.basicQos(PREFETCH);
      channel.basicConsume(
          queue,
          false,
          new DefaultConsumer(channel) {
            @Override
            public void handleConsumeOk(String consumerTag) {
              consuming = true;
            }

            @Override
            public void handleRecoverOk(String consumerTag) {
              consuming = true;
            }

            @Override
            public void handleCancel(String consumerTag) {
              consuming = false;
            }

            @Override
            public void handleShutdownSignal(String consumerTag, ShutdownSignalException sig) {
              consuming = false;
            }

            @Override
            public void handleDelivery(
                String tag, Envelope envelope, AMQP.BasicProperties props, byte[] body)
                throws IOException {
              try {
                if (!binding.isProbe(envelope, props)) {
                  ingestor.ingest(props == null ? null : props.getUserId(), body);
                }
              } finally {
                getChannel().basicAck(envelope.getDeliveryTag(), false);
              }
            }
          });
      connection.addShutdownListener(cause -> consuming = false);
      ((Recoverable) connection)
          .addRecoveryListener(
              new RecoveryListener() {
                @Override
                public void handleRecovery(Recoverable recoverable) {
                  consuming = channel.isOpen();
                }

                @Override
                public void handleRecoveryStarted(Recoverable recoverable) {}
              });
    } catch (IOException | RuntimeException e) {
      if (checks != null) {
        checks.close();
      }
      connection.abort(1_000);
      throw e;
    }
  }

  /**
   * Starts a router learning from {@code harbinger.reports} on a connection of its own, trusting
   * reports published by the factory's user.
   *
   * @param factory the application's connection factory (copied)
   * @param predictor the predictor to route with and teach
   * @return the running router
   * @throws IOException if the connection, queue, binding or consumer cannot be set up
   * @throws TimeoutException if RabbitMQ does not answer in time
   */
  public static EmbeddedRouter start(ConnectionFactory factory, Predictor predictor)
      throws IOException, TimeoutException {
    return builder(factory, predictor).start();
  }

  /**
   * Starts configuring a router.
   *
   * @param factory the application's connection factory (copied)
   * @param predictor the predictor to route with and teach
   * @return a builder with the defaults
   */
  public static Builder builder(ConnectionFactory factory, Predictor predictor) {
    AmqpClientVersion.require();
    return new Builder(factory, predictor);
  }

  @Override
  public Prediction route(String key) {
    try {
      return predictor.predict(key);
    } catch (RuntimeException e) {
      return fallback();
    }
  }

  @Override
  public Prediction route(String key, long sizeHint) {
    try {
      return predictor.predict(key, sizeHint);
    } catch (RuntimeException e) {
      return fallback();
    }
  }

  private Prediction fallback() {
    failures.increment();
    return Prediction.fallback(defaultLevel, Outcome.UNREADY, predictor.mode());
  }

  @Override
  public int levels() {
    return levels;
  }

  @Override
  public int defaultLevel() {
    return defaultLevel;
  }

  /**
   * Returns the predictor this router routes with.
   *
   * @return the predictor
   */
  public Predictor predictor() {
    return predictor;
  }

  /**
   * Returns the counters of the reports ingested.
   *
   * @return a snapshot
   */
  public IngestStats ingestStats() {
    return ingestor.stats();
  }

  /**
   * Returns the lookups that failed and went to the default level.
   *
   * @return the count
   */
  public long failures() {
    return failures.sum();
  }

  /**
   * Returns the name of the router's report queue.
   *
   * @return the server-named queue; after a connection recovery, the name RabbitMQ gave it then
   */
  public String queue() {
    return binding.queue();
  }

  /**
   * Returns whether the router learns from the reports exchange: its report consumer registered,
   * its connection open, and its queue bound to the exchange ({@link ReportBinding}).
   *
   * @return false while RabbitMQ is unreachable, the connection recovers, the consumer was
   *     cancelled, or the queue's binding was found lost or the exchange of another type; {@link
   *     #problem()} says which
   */
  public boolean consuming() {
    return problem().isEmpty();
  }

  /**
   * Returns why the router does not learn from the reports exchange now, or empty while it does.
   *
   * @return the reason, such as "the reports exchange 'harbinger.reports' is a direct exchange, not
   *     fanout: ..."
   */
  public Optional<String> problem() {
    if (!connection.isOpen()) {
      return Optional.of("the router's connection is closed or recovering");
    }
    if (!consuming) {
      return Optional.of("the router's report consumer is not registered (cancelled?)");
    }
    return binding.problem();
  }

  /**
   * Returns the times the router found its queue's binding lost, or the exchange missing, and bound
   * the queue again.
   *
   * @return the count
   */
  public long bindingRepairs() {
    return binding.exchangesMissing() + binding.probesLost();
  }

  /** Stops consuming reports and closes the router's connection (its queue goes with it). */
  @Override
  public void close() {
    consuming = false;
    binding.close();
    try {
      connection.close(5_000);
    } catch (IOException | RuntimeException e) {
      LOG.debug("closing the router connection failed", e);
    }
  }

  /** Configures an {@link EmbeddedRouter}; not thread-safe. */
  public static final class Builder {
    private final ConnectionFactory factory;
    private final Predictor predictor;
    private String exchange = HarbingerHeaders.REPORTS_EXCHANGE;
    private TrustedReporters reporters;
    private final ReportIngestor.Builder ingest;
    private int maxInboundMessageBytes = DEFAULT_MAX_INBOUND_MESSAGE_BYTES;
    private Duration checkInterval = ReportBinding.DEFAULT_INTERVAL;

    private Builder(ConnectionFactory factory, Predictor predictor) {
      this.factory = Objects.requireNonNull(factory, "factory");
      this.predictor = Objects.requireNonNull(predictor, "predictor");
      this.ingest = ReportIngestor.builder(predictor);
    }

    /**
     * Sets the fanout exchange reports are published to, {@code harbinger.reports} by default.
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
     * Sets the reporters whose batches are learned; by default the factory's user alone.
     *
     * @param value the trusted reporters
     * @return this builder
     */
    public Builder trustedReporters(TrustedReporters value) {
      reporters = Objects.requireNonNull(value, "trustedReporters");
      return this;
    }

    /**
     * Sets the most distinct keys one reporter may bring in (see {@link ReportIngestor}).
     *
     * @param value at least 1
     * @return this builder
     */
    public Builder maxKeysPerReporter(int value) {
      ingest.maxKeysPerReporter(value);
      return this;
    }

    /**
     * Sets the largest message body the router's connection accepts; a larger message closes the
     * connection (amqp-client's rule), so keep it at least RabbitMQ's {@code max_message_size}.
     *
     * @param value in [1 MiB, 512 MiB]
     * @return this builder
     */
    public Builder maxInboundMessageBytes(int value) {
      if (value < (1 << 20) || value > (512 << 20)) {
        throw new IllegalArgumentException(
            "maxInboundMessageBytes must be in [1 MiB, 512 MiB]: " + value);
      }
      maxInboundMessageBytes = value;
      return this;
    }

    /** Sets how often the queue's binding is checked ({@link ReportBinding}), for tests. */
    Builder checkInterval(Duration value) {
      checkInterval = Objects.requireNonNull(value, "checkInterval");
      return this;
    }

    /**
     * Opens the router's connection, declares and binds its queue and starts consuming.
     *
     * @return the running router
     * @throws IOException if the connection, queue, binding or consumer cannot be set up
     * @throws TimeoutException if RabbitMQ does not answer in time
     */
    public EmbeddedRouter start() throws IOException, TimeoutException {
      return new EmbeddedRouter(this);
    }
  }
}
