package io.harbinger.rabbit;

import com.rabbitmq.client.BuiltinExchangeType;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import io.harbinger.predictor.Outcome;
import io.harbinger.predictor.Prediction;
import io.harbinger.predictor.Predictor;
import io.harbinger.predictor.Router;
import java.io.IOException;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link Router} with the predictor in-process, learning from the reports exchange: Harbinger in
 * one application, with no sidecar.
 *
 * <p>It binds a queue of its own (server-named, exclusive, auto-delete, at most {@value
 * #QUEUE_MAX_LENGTH} messages, oldest dropped first) to the reports exchange and feeds every batch
 * through a {@link ReportIngestor}; every process with an embedded router learns from every
 * reporter. A lookup is a call into the local predictor; if it throws, the message goes out at the
 * default level and {@link #failures()} counts it (fail-open, DESIGN.md).
 *
 * <p>Example:
 *
 * <pre>{@code
 * EmbeddedRouter router = EmbeddedRouter.start(connection, new HistogramPredictor(config));
 * Channel producer = PredictiveChannels.wrap(connection.createChannel(), user, router);
 * }</pre>
 *
 * <p>Thread-safe. Reports are ingested on the connection's consumer threads.
 */
public final class EmbeddedRouter implements Router, AutoCloseable {

  /** Most report batches waiting in the router's queue before the oldest are dropped. */
  public static final int QUEUE_MAX_LENGTH = 10_000;

  private static final Logger LOG = LoggerFactory.getLogger(EmbeddedRouter.class);

  private final Predictor predictor;
  private final ReportIngestor ingestor;
  private final Channel channel;
  private final String queue;
  private final LongAdder failures = new LongAdder();
  private final int levels;
  private final int defaultLevel;

  private EmbeddedRouter(Predictor predictor, Connection connection, String exchange)
      throws IOException {
    this.predictor = predictor;
    this.levels = predictor.levels();
    this.defaultLevel = predictor.defaultLevel();
    this.ingestor = new ReportIngestor(predictor);
    this.channel = connection.createChannel();
    channel.exchangeDeclare(exchange, BuiltinExchangeType.FANOUT, true);
    queue =
        channel
            .queueDeclare(
                "",
                false,
                true,
                true,
                Map.of("x-max-length", QUEUE_MAX_LENGTH, "x-overflow", "drop-head"))
            .getQueue();
    channel.queueBind(queue, exchange, "");
    channel.basicConsume(
        queue, true, (tag, delivery) -> ingestor.ingest(delivery.getBody()), tag -> {});
  }

  /**
   * Starts a router learning from {@code harbinger.reports}.
   *
   * @param connection the connection to consume reports on
   * @param predictor the predictor to route with and teach
   * @return the running router
   * @throws IOException if the queue cannot be declared, bound or consumed
   */
  public static EmbeddedRouter start(Connection connection, Predictor predictor)
      throws IOException {
    return start(connection, predictor, HarbingerHeaders.REPORTS_EXCHANGE);
  }

  /**
   * Starts a router learning from a given reports exchange.
   *
   * @param connection the connection to consume reports on
   * @param predictor the predictor to route with and teach
   * @param exchange the fanout exchange reports are published to
   * @return the running router
   * @throws IOException if the queue cannot be declared, bound or consumed
   */
  public static EmbeddedRouter start(Connection connection, Predictor predictor, String exchange)
      throws IOException {
    Objects.requireNonNull(connection, "connection");
    Objects.requireNonNull(predictor, "predictor");
    if (exchange == null || exchange.isEmpty()) {
      throw new IllegalArgumentException("exchange must be non-empty: " + exchange);
    }
    return new EmbeddedRouter(predictor, connection, exchange);
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
  public ReportIngestor.Stats ingestStats() {
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
   * @return the server-named queue
   */
  public String queue() {
    return queue;
  }

  /** Stops consuming reports and closes the router's channel (its queue goes with it). */
  @Override
  public void close() {
    try {
      if (channel.isOpen()) {
        channel.close();
      }
    } catch (IOException | TimeoutException | RuntimeException e) {
      LOG.debug("closing the router channel failed", e);
    }
  }
}
