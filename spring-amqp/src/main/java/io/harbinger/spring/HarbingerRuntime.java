package io.harbinger.spring;

import io.harbinger.rabbit.AdapterStats;
import io.harbinger.rabbit.ChannelOptions;
import io.harbinger.rabbit.EmbeddedRouter;
import io.harbinger.rabbit.MessageStamper;
import io.harbinger.rabbit.ReportPublisher;
import io.harbinger.rabbit.ReportSink;
import io.harbinger.spring.HarbingerProperties.Mode;
import java.io.IOException;
import java.util.Map;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.amqp.rabbit.connection.AbstractConnectionFactory;
import org.springframework.amqp.rabbit.connection.Connection;
import org.springframework.amqp.rabbit.connection.ConnectionFactory;
import org.springframework.amqp.rabbit.connection.ConnectionListener;
import org.springframework.beans.factory.DisposableBean;

/**
 * Harbinger's state in one Spring application: the options every stamp and report uses, and the
 * report publisher and embedded router that live on the application's RabbitMQ connection.
 *
 * <p>Implementation notes. Spring's {@code ConnectionFactory} owns the application's connection and
 * re-creates it after a failure; the runtime listens to it, and on each new connection reads the
 * broker's version (so that stamps use the priorities each queue type understands on it: quorum
 * queue priorities differ between RabbitMQ versions). At the first connection it starts a {@link
 * ReportPublisher} and, for the embedded router, an {@link EmbeddedRouter} that teaches the
 * in-process predictor, each on a connection of its own made from the same RabbitMQ settings (never
 * on the application's: a resource alarm blocks a connection that publishes, and a blocked
 * connection stops carrying the application's acknowledgements); they recover by themselves and are
 * closed with the application context. Until they run, reports are dropped and counted ({@link
 * #reportsWithoutPublisher()}), and stamps use the mapping of an unknown broker version. Nothing
 * here runs on the publish path but a volatile read.
 *
 * <p>Thread-safe: connection events are serialised on this object's lock; readers see volatile
 * fields.
 */
public final class HarbingerRuntime implements ConnectionListener, DisposableBean {

  private static final Logger LOG = LoggerFactory.getLogger(HarbingerRuntime.class);

  private final HarbingerProperties properties;
  private final ConnectionFactory connectionFactory;
  private final RouterSource routerSource;
  private final AdapterStats stats = new AdapterStats();
  private final LongAdder reportsWithoutPublisher = new LongAdder();
  private final ChannelOptions options;
  private volatile MessageStamper stamper;
  private volatile ReportPublisher publisher;
  private volatile EmbeddedRouter learner;
  private volatile String brokerVersion;
  private volatile ReportSink observer = ReportSink.NO_OP;
  private Connection connection;

  HarbingerRuntime(
      HarbingerProperties properties,
      ConnectionFactory connectionFactory,
      RouterSource routerSource) {
    this.properties = properties;
    this.connectionFactory = connectionFactory;
    this.routerSource = routerSource;
    if (routerSource.router() != null && routerSource.router().levels() != properties.levels()) {
      throw new IllegalStateException(
          "harbinger.levels is "
              + properties.levels()
              + " but the router routes to "
              + routerSource.router().levels()
              + " levels: make them equal (the queues' x-max-priority follows harbinger.levels)");
    }
    ReportSink sink =
        report -> {
          observer.accept(report);
          ReportPublisher p = publisher;
          if (p == null) {
            reportsWithoutPublisher.increment();
          } else {
            p.accept(report);
          }
        };
    options =
        ChannelOptions.builder(connectionFactory.getUsername())
            .router(routerSource.router())
            .levels(properties.levels())
            .jobTypeHeader(properties.jobTypeHeader())
            .shadow(properties.mode() == Mode.SHADOW)
            .reports(sink)
            .stats(stats)
            .build();
    stamper = MessageStamper.create(options, null);
    connectionFactory.addConnectionListener(this);
  }

  /**
   * Returns the options every stamp and report of the application uses.
   *
   * @return the options
   */
  public ChannelOptions options() {
    return options;
  }

  /**
   * Returns the stamper for the current broker.
   *
   * @return the stamper
   */
  public MessageStamper stamper() {
    return stamper;
  }

  /**
   * Returns the settings.
   *
   * @return the bound {@code harbinger.*} properties
   */
  public HarbingerProperties properties() {
    return properties;
  }

  /**
   * Returns the counters of stamps and reports.
   *
   * @return the counters
   */
  public AdapterStats stats() {
    return stats;
  }

  /**
   * Returns the version of the broker of the current connection.
   *
   * @return the version, or null before the first connection
   */
  public String brokerVersion() {
    return brokerVersion;
  }

  /**
   * Returns the publisher of the current connection.
   *
   * @return the publisher, on its own connection; null before the application's first connection or
   *     when it could not start
   */
  public ReportPublisher reportPublisher() {
    return publisher;
  }

  /**
   * Returns the embedded router learning from the reports exchange.
   *
   * @return the router, on its own connection; null before the application's first connection, when
   *     it could not start, and for other routers
   */
  EmbeddedRouter embeddedRouter() {
    return learner;
  }

  /**
   * Returns the router's source: the router, its description and whether it is connected.
   *
   * @return the source
   */
  RouterSource routerSource() {
    return routerSource;
  }

  /**
   * Returns whether the embedded router is learning from the reports exchange.
   *
   * @return true once it consumes the reports exchange on its own connection; false before, and for
   *     other routers
   */
  public boolean learning() {
    return learner != null;
  }

  /**
   * Shows every duration report to an observer before it is published, such as the queue-wait and
   * handler timers; the observer must return at once and never throw.
   *
   * @param value the observer, replacing any earlier one
   */
  void observeReports(ReportSink value) {
    observer = java.util.Objects.requireNonNull(value, "observer");
  }

  /**
   * Returns the reports dropped because no connection was open to publish them on.
   *
   * @return the count
   */
  public long reportsWithoutPublisher() {
    return reportsWithoutPublisher.sum();
  }

  @Override
  public synchronized void onCreate(Connection created) {
    if (created == null || (connection != null && connection.isOpen())) {
      return;
    }
    connection = created;
    com.rabbitmq.client.Connection rabbit = created.getDelegate();
    Map<String, Object> server = rabbit.getServerProperties();
    Object version = server == null ? null : server.get("version");
    brokerVersion = version == null ? null : version.toString();
    stamper = MessageStamper.create(options, brokerVersion);
    if (publisher == null && learner == null) {
      startReporting();
    }
  }

  /**
   * Starts the report publisher and the embedded router, each on a connection of its own made from
   * the application's RabbitMQ settings: a connection that publishes can be blocked by a resource
   * alarm, and a blocked connection stops carrying the application's acknowledgements too.
   */
  private void startReporting() {
    if (!(connectionFactory instanceof AbstractConnectionFactory spring)) {
      LOG.warn(
          "Harbinger needs a Spring AMQP AbstractConnectionFactory (such as"
              + " CachingConnectionFactory) to open its own report connections, and got {}:"
              + " reports are dropped and counted, and the embedded router does not learn",
          connectionFactory.getClass().getName());
      return;
    }
    com.rabbitmq.client.ConnectionFactory rabbitFactory = spring.getRabbitConnectionFactory();
    try {
      publisher =
          ReportPublisher.builder(rabbitFactory).exchange(properties.reportsExchange()).start();
    } catch (IOException | TimeoutException | RuntimeException e) {
      LOG.warn(
          "Harbinger cannot publish reports to '{}' ({}); reports are dropped and counted until"
              + " the next connection",
          properties.reportsExchange(),
          e.toString());
    }
    if (routerSource.embedded() != null) {
      try {
        learner =
            EmbeddedRouter.builder(rabbitFactory, routerSource.embedded())
                .exchange(properties.reportsExchange())
                .start();
      } catch (IOException | TimeoutException | RuntimeException e) {
        LOG.warn(
            "Harbinger's embedded router cannot consume '{}' ({}); levels stay as learned so far",
            properties.reportsExchange(),
            e.toString());
      }
    }
  }

  @Override
  public synchronized void onClose(Connection closed) {
    if (closed == connection) {
      connection = null;
    }
  }

  private void closeResources() {
    ReportPublisher p = publisher;
    publisher = null;
    if (p != null) {
      p.close();
    }
    EmbeddedRouter r = learner;
    learner = null;
    if (r != null) {
      r.close();
    }
  }

  @Override
  public synchronized void destroy() throws Exception {
    connectionFactory.removeConnectionListener(this);
    closeResources();
    connection = null;
    routerSource.closer().close();
  }
}
