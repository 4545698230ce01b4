package io.harbinger.sidecar;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.DefaultConsumer;
import com.rabbitmq.client.Envelope;
import io.harbinger.predictor.Predictor;
import io.harbinger.predictor.Ticker;
import io.harbinger.proto.v1.DurationReport;
import io.harbinger.rabbit.ReportIngestor;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.time.Clock;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
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
 * Deliveries are acknowledged after they are ingested (garbage included: it is counted and dropped,
 * never redelivered forever). The first connection is retried while RabbitMQ is not yet reachable
 * ({@link StartupRetry}, {@code rabbitmq.startup-retry}); after it, amqp-client's automatic
 * recovery redeclares the queue, binding and consumer after a network failure.
 *
 * <p>Assumptions and guarantees: one consumer thread delivers reports in order; {@link #close()}
 * waits for the delivery in progress.
 */
final class ReportSubscriber implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(ReportSubscriber.class);

  private final ReportIngestor ingestor;
  private final Clock clock;
  private final AtomicLong newestPublishedMicros = new AtomicLong();
  private final AtomicLong deliveries = new AtomicLong();
  private final ExecutorService consumerThread;
  private Connection connection;
  private Channel channel;

  ReportSubscriber(Predictor predictor, RouteTable routes, Clock clock) {
    this.clock = clock;
    this.ingestor =
        new ReportIngestor(
            predictor,
            (key, report) -> {
              routes.touched(key);
              notePublished(report);
            });
    this.consumerThread =
        Executors.newSingleThreadExecutor(
            r -> {
              Thread t = new Thread(r, "harbinger-report-consumer");
              t.setDaemon(true);
              return t;
            });
  }

  private void notePublished(DurationReport report) {
    long published = report.getPublishedAtMicros();
    if (published > 0) {
      newestPublishedMicros.accumulateAndGet(published, Math::max);
    }
  }

  /** Connects, declares the exchange and this replica's queue, and starts consuming. */
  void start(SidecarConfig config) throws IOException, TimeoutException {
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
    // Added to the client's own properties, not in their place: those carry the capabilities
    // (authentication_failure_close among them, without which a refused login is only a reset
    // connection, and consumer_cancel_notify).
    Map<String, Object> properties = new HashMap<>(factory.getClientProperties());
    properties.put("connection_name", "harbinger-sidecar " + config.replicaId());
    properties.put("product", "harbinger-sidecar");
    factory.setClientProperties(properties);
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
    channel = connection.createChannel();
    String exchange = config.rabbit().reportsExchange();
    channel.exchangeDeclare(exchange, "fanout", true);
    String queue = config.reportQueue();
    channel.queueDeclare(queue, true, false, false, null);
    channel.queueBind(queue, exchange, "");
    channel.basicQos(config.rabbit().prefetch());
    channel.basicConsume(
        queue,
        false,
        "harbinger-sidecar-" + config.replicaId(),
        new DefaultConsumer(channel) {
          @Override
          public void handleDelivery(
              String tag, Envelope envelope, AMQP.BasicProperties properties, byte[] body)
              throws IOException {
            try {
              ingestor.ingest(body);
              deliveries.incrementAndGet();
            } finally {
              getChannel().basicAck(envelope.getDeliveryTag(), false);
            }
          }
        });
    LOG.info("consuming reports from queue {} bound to {}", queue, exchange);
  }

  /**
   * Feeds one message body as if it had been delivered: for tests and benchmarks without a broker.
   */
  void ingest(byte[] body) {
    ingestor.ingest(body);
    deliveries.incrementAndGet();
  }

  ReportIngestor.Stats stats() {
    return ingestor.stats();
  }

  /** Seconds between now and the publish time of the newest report learned, or -1 before any. */
  double lagSeconds() {
    long newest = newestPublishedMicros.get();
    return newest <= 0 ? -1 : Math.max(0, clock.millis() * 1000 - newest) / 1e6;
  }

  void registerMetrics(MeterRegistry registry) {
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
    counter(
        registry,
        "harbinger_reports_dropped_by_reporters",
        "Reports the consumers' bounded buffers dropped, as they declared.",
        s -> s.reporterDrops());
    Gauge.builder("harbinger_report_lag_seconds", this, ReportSubscriber::lagSeconds)
        .description("Now minus the publish time of the newest report learned (-1 before any).")
        .register(registry);
  }

  private void rejected(
      MeterRegistry registry, String reason, ToDoubleFunction<ReportIngestor.Stats> f) {
    FunctionCounter.builder("harbinger_reports_rejected", this, s -> f.applyAsDouble(s.stats()))
        .description("Reports or batches refused, by reason.")
        .tag("reason", reason)
        .register(registry);
  }

  private void counter(
      MeterRegistry registry, String name, String help, ToDoubleFunction<ReportIngestor.Stats> f) {
    FunctionCounter.builder(name, this, s -> f.applyAsDouble(s.stats()))
        .description(help)
        .register(registry);
  }

  @Override
  public void close() {
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
