package io.harbinger.sidecar;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.DefaultConsumer;
import com.rabbitmq.client.Envelope;
import com.rabbitmq.client.ShutdownSignalException;
import io.harbinger.predictor.Predictor;
import io.harbinger.predictor.Ticker;
import io.harbinger.rabbit.DurationReport;
import io.harbinger.rabbit.IngestStats;
import io.harbinger.rabbit.ReportBinding;
import io.harbinger.rabbit.ReportIngestor;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.ToDoubleFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Consumes the duration reports through this replica's own durable queue and feeds them to the
 * predictor.
 *
 * <p>The queue {@code harbinger.reports.<replica-id>} is durable and bound to the fanout exchange,
 * so each replica sees every report and reports published while the sidecar restarts wait for it.
 * It is declared with a length limit ({@code reports.queue-max-length} batches) beyond which
 * RabbitMQ refuses new batches ({@code x-overflow: reject-publish}: the publisher's confirm is a
 * nack, which a {@code ReportPublisher} counts as dropped and declares in a later batch, so the
 * loss shows in {@code harbinger_reports_dropped_by_reporters}), and with an expiry ({@code
 * reports.queue-expiry} without a consumer, after which RabbitMQ deletes it), so the queue of a
 * retired replica neither grows without bound nor stays forever. Refusing new batches rather than
 * dropping the oldest means that whoever floods the exchange with junk cannot push out reports
 * already queued. A queue that an earlier version declared with other bounds is replaced, its
 * waiting batches learned ({@link ReportQueueUpgrade}); one that cannot be replaced is used as it
 * is, with a WARN naming the fix.
 *
 * <p>Deliveries are acknowledged after they are ingested (garbage included: it is counted and
 * dropped, never redelivered forever). The connection accepts message bodies up to {@code
 * rabbitmq.max-inbound-message-bytes}, so that an oversized message on the reports exchange is
 * delivered, counted and acknowledged instead of closing the connection (amqp-client closes the
 * connection on a body over its limit, and the unacknowledged message would come back at every
 * reconnection). Only batches whose {@code user-id} is a trusted reporter are learned ({@link
 * ReportIngestor}). The first connection is retried while RabbitMQ is not yet reachable ({@link
 * StartupRetry}, {@code rabbitmq.startup-retry}); after it, the connection uses amqp-client's
 * automatic recovery, which redeclares the queue, binding and consumer after a network failure; a
 * consumer that RabbitMQ cancels (its queue deleted) is set up again after a second.
 *
 * <p>Automatic recovery does not notice a binding that the broker dropped while the connection
 * stayed up (the exchange deleted, and maybe declared again by a reporter): a {@link ReportBinding}
 * checks the exchange and the binding every {@value #BINDING_CHECK_SECONDS} s, end to end with a
 * probe when no report came, binds the queue again when the binding was lost, and its problem (such
 * as the exchange declared again as a direct exchange) is part of {@link #problem()}, so health
 * says NOT_SERVING while reports do not reach the queue. Probes, this replica's and other
 * learners', are acknowledged and never ingested.
 *
 * <p>Assumptions and guarantees: one consumer thread delivers reports in order; {@link #close()}
 * waits for the delivery in progress. {@link #problem()} may be called from any thread.
 */
final class ReportSubscriber implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(ReportSubscriber.class);

  /** How often the queue's binding to the reports exchange is checked, by default. */
  static final long BINDING_CHECK_SECONDS = 5;

  /** How far in the future a report's publish time may be and still count for the lag. */
  static final long MAX_FUTURE_MICROS = 60_000_000L;

  private final ReportIngestor ingestor;
  private final Clock clock;
  private final AtomicLong newestPublishedMicros = new AtomicLong();
  private final AtomicLong futurePublishTimes = new AtomicLong();
  private final AtomicLong deliveries = new AtomicLong();
  private final AtomicLong resubscriptions = new AtomicLong();
  private final ExecutorService consumerThread;
  private final ScheduledExecutorService resubscriber;
  private volatile boolean consumerUp;
  private volatile boolean started;
  private volatile boolean closed;
  private volatile String consumerProblem = "not started";
  private final SidecarConfig config;
  private final Duration bindingCheck;
  private volatile ReportBinding binding;
  private ConnectionFactory factory;
  private Connection connection;
  private Channel channel;

  ReportSubscriber(
      Predictor predictor,
      RouteTable routes,
      Clock clock,
      SidecarConfig config,
      Duration bindingCheck) {
    this.clock = clock;
    this.config = config;
    this.bindingCheck = bindingCheck;
    this.ingestor =
        ReportIngestor.builder(predictor)
            .reporters(config.trustedReporters())
            .maxKeysPerReporter(config.maxKeysPerReporter())
            .listener(
                (key, report) -> {
                  routes.touched(key);
                  notePublished(report);
                })
            .build();
    this.consumerThread =
        Executors.newSingleThreadExecutor(
            r -> {
              Thread t = new Thread(r, "harbinger-report-consumer");
              t.setDaemon(true);
              return t;
            });
    this.resubscriber =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "harbinger-report-resubscribe");
              t.setDaemon(true);
              return t;
            });
  }

  private void notePublished(DurationReport report) {
    long published = report.publishedAtMicros();
    if (published <= 0) {
      return;
    }
    if (published > clock.millis() * 1000 + MAX_FUTURE_MICROS) {
      futurePublishTimes.incrementAndGet();
      return;
    }
    newestPublishedMicros.accumulateAndGet(published, Math::max);
  }

  /** Connects, declares the exchange and this replica's queue, and starts consuming. */
  void start() throws IOException, TimeoutException {
    ConnectionFactory factory = new ConnectionFactory();
    try {
      factory.setUri(config.rabbit().uri());
    } catch (Exception e) {
      throw new IllegalArgumentException(
          "rabbitmq.uri is not a valid AMQP URI: " + config.rabbit().uri(), e);
    }
    factory.setUsername(config.rabbit().username());
    factory.setPassword(config.rabbit().password());
    factory.setAutomaticRecoveryEnabled(true);
    factory.setTopologyRecoveryEnabled(true);
    factory.setNetworkRecoveryInterval(1000);
    factory.setMaxInboundMessageBodySize(config.rabbit().maxInboundMessageBytes());
    // Added to the client's own properties: replacing them would drop its capabilities table,
    // and RabbitMQ would then send neither consumer cancellations nor blocked notifications.
    Map<String, Object> properties = new HashMap<>(factory.getClientProperties());
    properties.put("connection_name", "harbinger-sidecar " + config.replicaId());
    properties.put("product", "harbinger-sidecar");
    factory.setClientProperties(properties);
    this.factory = factory;
    StartupRetry retry =
        new StartupRetry(config.rabbit().startupRetry(), Ticker.SYSTEM, Thread::sleep);
    try {
      connection =
          retry.connect(
              () ->
                  factory.newConnection(consumerThread, "harbinger-sidecar " + config.replicaId()),
              config.rabbit().uri(),
              config.rabbit().username());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException(
          "interrupted while waiting for RabbitMQ at " + config.rabbit().uri(), e);
    }
    connection.addShutdownListener(
        cause -> {
          if (!closed) {
            LOG.warn("report connection lost: {}", cause.getMessage());
          }
        });
    started = true;
    binding =
        ReportBinding.builder(
                factory, connection, config.rabbit().reportsExchange(), config.reportQueue())
            .name("harbinger-sidecar " + config.replicaId())
            .interval(bindingCheck)
            .consuming(() -> consumerUp && connection.isOpen())
            .start();
    subscribe();
    LOG.info(
        "consuming reports from queue {} bound to {}; trusted reporters: {}",
        config.reportQueue(),
        config.rabbit().reportsExchange(),
        config.trustedReporters());
  }

  private synchronized void subscribe() throws IOException {
    if (closed) {
      return;
    }
    if (channel != null && channel.isOpen()) {
      abortQuietly(channel);
    }
    channel = connection.createChannel();
    String exchange = config.rabbit().reportsExchange();
    ReportBinding.declareExchange(channel, exchange);
    declareQueue();
    channel.queueBind(config.reportQueue(), exchange, "");
    channel.basicQos(config.rabbit().prefetch());
    channel.basicConsume(
        config.reportQueue(),
        false,
        "harbinger-sidecar-" + config.replicaId(),
        new DefaultConsumer(channel) {
          @Override
          public void handleConsumeOk(String tag) {
            consumerUp = true;
            consumerProblem = "";
          }

          @Override
          public void handleCancel(String tag) {
            consumerUp = false;
            consumerProblem = "RabbitMQ cancelled the report consumer (queue deleted?)";
            LOG.warn("{}; subscribing again in 1 s", consumerProblem);
            scheduleResubscribe();
          }

          @Override
          public void handleShutdownSignal(String tag, ShutdownSignalException sig) {
            consumerUp = false;
            consumerProblem = "the report channel closed: " + sig.getMessage();
            if (!closed && !sig.isHardError() && !sig.isInitiatedByApplication()) {
              // A channel error is not recovered by the client: set the channel up again.
              scheduleResubscribe();
            }
          }

          @Override
          public void handleDelivery(
              String tag, Envelope envelope, AMQP.BasicProperties properties, byte[] body)
              throws IOException {
            try {
              deliver(envelope, properties, body);
            } finally {
              getChannel().basicAck(envelope.getDeliveryTag(), false);
            }
          }
        });
    // basicConsume returns once RabbitMQ registered the consumer; handleConsumeOk comes later.
    consumerUp = true;
    consumerProblem = "";
  }

  /** Handles one delivered (or, while a queue is replaced, fetched) message: probes are skipped. */
  private void deliver(Envelope envelope, AMQP.BasicProperties properties, byte[] body) {
    if (binding.isProbe(envelope, properties)) {
      return;
    }
    ingestor.ingest(properties == null ? null : properties.getUserId(), body);
    deliveries.incrementAndGet();
  }

  private void declareQueue() throws IOException {
    String queue = config.reportQueue();
    try {
      channel.queueDeclare(queue, true, false, false, config.reportQueueArguments());
      return;
    } catch (IOException e) {
      String reason = String.valueOf(e.getCause());
      if (!reason.contains("inequivalent arg")) {
        throw e;
      }
      channel = connection.createChannel();
      if (ReportQueueUpgrade.boundNamed(reason) != null
          && ReportQueueUpgrade.run(
              factory,
              config.rabbit().reportsExchange(),
              queue,
              config.reportQueueArguments(),
              this::deliver)) {
        channel.queueDeclare(queue, true, false, false, config.reportQueueArguments());
        return;
      }
      LOG.warn(
          "queue {} exists with other arguments than x-max-length={}, x-overflow=reject-publish,"
              + " x-expires={} ({}); using it as it is. Delete it to have it declared with them"
              + " (rabbitmqctl delete_queue {})",
          queue,
          config.reportQueueMaxLength(),
          config.reportQueueExpiry().toMillis(),
          e.getCause() == null ? e : e.getCause().getMessage(),
          queue);
      channel.queueDeclarePassive(queue);
    }
  }

  private void scheduleResubscribe() {
    if (closed) {
      return;
    }
    try {
      resubscriber.schedule(
          () -> {
            try {
              if (!closed && connection.isOpen()) {
                resubscriptions.incrementAndGet();
                subscribe();
              }
            } catch (IOException | RuntimeException e) {
              LOG.warn("subscribing to the reports again failed: {}", e.toString());
              scheduleResubscribe();
            }
          },
          1,
          TimeUnit.SECONDS);
    } catch (java.util.concurrent.RejectedExecutionException e) {
      // Closed meanwhile.
    }
  }

  /**
   * Returns why reports are not being consumed now, or empty while they are.
   *
   * @return the problem, such as "RabbitMQ is unreachable", or empty
   */
  Optional<String> problem() {
    if (!started) {
      return Optional.of("not consuming reports (not started)");
    }
    if (closed) {
      return Optional.of("shutting down");
    }
    if (connection == null || !connection.isOpen()) {
      return Optional.of("RabbitMQ is unreachable at " + config.rabbit().uri());
    }
    if (!consumerUp) {
      return Optional.of(
          consumerProblem.isEmpty() ? "the report consumer is down" : consumerProblem);
    }
    ReportBinding b = binding;
    return b == null ? Optional.empty() : b.problem();
  }

  long resubscriptions() {
    return resubscriptions.get();
  }

  private static void abortQuietly(Channel ch) {
    try {
      ch.abort();
    } catch (IOException | RuntimeException e) {
      LOG.debug("aborting the report channel: {}", e.toString());
    }
  }

  /**
   * Feeds one message body as if it had been delivered: for tests and benchmarks without a broker.
   */
  void ingest(byte[] body) {
    ingestor.ingest(body);
    deliveries.incrementAndGet();
  }

  IngestStats stats() {
    return ingestor.stats();
  }

  /** Seconds between now and the publish time of the newest report learned, or -1 before any. */
  double lagSeconds() {
    long newest = newestPublishedMicros.get();
    return newest <= 0 ? -1 : Math.max(0, clock.millis() * 1000 - newest) / 1e6;
  }

  void registerMetrics(MeterRegistry registry) {
    repairs(registry, "exchange_missing", ReportBinding::exchangesMissing);
    repairs(registry, "probe_lost", ReportBinding::probesLost);
    Gauge.builder(
            "harbinger_report_queue_messages",
            this,
            r -> {
              ReportBinding b = r.binding;
              return b == null || b.queueMessages() < 0 ? Double.NaN : b.queueMessages();
            })
        .description(
            "Report batches waiting in this replica's queue at the last binding check (NaN"
                + " before it); at reports.queue-max-length RabbitMQ refuses new batches.")
        .register(registry);
    counter(registry, "harbinger_report_batches", "Report batches ingested.", s -> s.batches());
    counter(registry, "harbinger_reports_learned", "Reports learned (acks).", s -> s.learned());
    counter(registry, "harbinger_reports_censored", "Censored reports learned.", s -> s.censored());
    counter(
        registry,
        "harbinger_reports_not_learned",
        "Nacks and rejects (counted, never learned).",
        s -> s.notLearned());
    rejected(registry, "malformed_batch", s -> s.malformedBatches());
    rejected(registry, "oversized_batch", s -> s.oversizedBatches());
    rejected(registry, "bad_outcome", s -> s.rejectedOutcomes());
    rejected(registry, "bad_key", s -> s.rejectedKeys());
    rejected(registry, "bad_duration", s -> s.rejectedDurations());
    rejected(registry, "untracked_key", s -> s.untracked());
    rejected(registry, "untrusted_batch", s -> s.untrustedBatches());
    rejected(registry, "forged_report", s -> s.forgedReports());
    rejected(registry, "reporter_key_limit", s -> s.reporterKeyLimit());
    rejected(registry, "bad_dropped_count", s -> s.rejectedDropCounts());
    FunctionCounter.builder(
            "harbinger_reports_future_published_at", futurePublishTimes, AtomicLong::get)
        .description(
            "Learned reports whose publish time lay over a minute ahead of this clock (left out of"
                + " the lag).")
        .register(registry);
    counter(
        registry,
        "harbinger_reports_dropped_by_reporters",
        "Reports the consumers' bounded buffers dropped, as they declared.",
        s -> s.reporterDrops());
  }

  /** The publish time of the newest report learned, epoch microseconds, or 0 before any. */
  long newestPublishedMicros() {
    return newestPublishedMicros.get();
  }

  private void repairs(MeterRegistry registry, String reason, ToDoubleFunction<ReportBinding> f) {
    FunctionCounter.builder(
            "harbinger_report_binding_repairs",
            this,
            r -> r.binding == null ? 0 : f.applyAsDouble(r.binding))
        .description(
            "Times this replica's queue was found cut off from the reports exchange and bound"
                + " again, by how: the exchange missing, or a probe that did not come back.")
        .tag("reason", reason)
        .register(registry);
  }

  private void rejected(MeterRegistry registry, String reason, ToDoubleFunction<IngestStats> f) {
    FunctionCounter.builder("harbinger_reports_rejected", this, s -> f.applyAsDouble(s.stats()))
        .description("Reports or batches refused, by reason.")
        .tag("reason", reason)
        .register(registry);
  }

  private void counter(
      MeterRegistry registry, String name, String help, ToDoubleFunction<IngestStats> f) {
    FunctionCounter.builder(name, this, s -> f.applyAsDouble(s.stats()))
        .description(help)
        .register(registry);
  }

  @Override
  public void close() {
    closed = true;
    consumerUp = false;
    resubscriber.shutdownNow();
    ReportBinding b = binding;
    if (b != null) {
      b.close();
    }
    try {
      if (connection != null) {
        connection.close(5_000);
      }
    } catch (IOException | RuntimeException e) {
      LOG.debug("closing the report connection: {}", e.toString());
    }
    consumerThread.shutdown();
  }
}
