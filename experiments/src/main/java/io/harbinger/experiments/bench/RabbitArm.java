package io.harbinger.experiments.bench;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.harbinger.experiments.workload.Job;
import io.harbinger.experiments.workload.Service;
import io.harbinger.experiments.workload.StaticMap;
import io.harbinger.predictor.HistogramPredictor;
import io.harbinger.predictor.Mode;
import io.harbinger.predictor.PredictorConfig;
import io.harbinger.predictor.Router;
import io.harbinger.predictor.Ticker;
import io.harbinger.rabbit.ChannelOptions;
import io.harbinger.rabbit.EmbeddedRouter;
import io.harbinger.rabbit.HarbingerHeaders;
import io.harbinger.rabbit.PredictiveChannels;
import io.harbinger.rabbit.PriorityQueues;
import io.harbinger.rabbit.ReportPublisher;
import io.harbinger.sidecar.ConfigException;
import io.harbinger.sidecar.ConfigLoader;
import io.harbinger.sidecar.Sidecar;
import io.harbinger.sidecar.SidecarConfig;
import io.harbinger.sidecar.client.SidecarRouter;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The RabbitMQ arms: FIFO, static priority, and Harbinger predictive or shadow through the wrapped
 * channel.
 *
 * <p>Implementation notes: rabbitmq-facts section 3.1 and rabbit-adapter/README.md. Each run
 * declares a fresh classic queue with a unique name (with {@code x-max-priority} for every arm but
 * FIFO) and deletes it afterwards. The four consumers share one connection whose consumer executor
 * has four threads (amqp-client's default pool has one thread per core, which would serialise the
 * workers on a 2-core machine); each has its own channel with {@code basicQos(1)} and manual acks;
 * a failed attempt is {@code basicNack(tag, false, true)}, which requeues it. Producers publish
 * non-persistent messages on one channel per service of a second connection. The predictive and
 * shadow arms wrap the producer channels with an {@link EmbeddedRouter} that learns from a reports
 * exchange unique to the run, and the consumer channels with a {@link ReportPublisher} to that
 * exchange, so runs in parallel never share a predictor. The sidecar arm starts a sidecar in this
 * process for the run (free gRPC port, no metrics endpoint, no snapshot, its own report queue on
 * the run's exchange, deleted afterwards) and routes the producers through a {@link SidecarRouter}
 * watching it over a real gRPC connection on the loopback interface; the consumers report as in the
 * predictive arm.
 */
final class RabbitArm implements Arm {

  /** How the arm sets priorities. */
  enum Kind {
    /** A plain classic queue, no priorities. */
    FIFO,
    /** A priority queue and a fixed job-type map. */
    STATIC,
    /** A priority queue and Harbinger's learned levels. */
    PREDICTIVE,
    /** A priority queue, Harbinger learning and stamping but never setting the priority. */
    SHADOW,
    /**
     * A priority queue and Harbinger's learned levels from a sidecar: the deployment of DESIGN.md,
     * with the sidecar learning from the reports and pushing route tables over gRPC.
     */
    SIDECAR
  }

  private final String name;
  private final Kind kind;
  private final int levels;
  private final StaticMap map;

  /**
   * Creates an arm.
   *
   * @param name the arm name
   * @param kind how priorities are set
   * @param levels the levels, in [2, 10]; 3 for the static maps
   * @param map the static map for {@link Kind#STATIC}, else null
   */
  RabbitArm(String name, Kind kind, int levels, StaticMap map) {
    this.name = Objects.requireNonNull(name, "name");
    this.kind = Objects.requireNonNull(kind, "kind");
    if (levels < PredictorConfig.MIN_LEVELS || levels > PredictorConfig.MAX_LEVELS) {
      throw new IllegalArgumentException("levels must be in [2, 10]: " + levels);
    }
    if ((kind == Kind.STATIC) != (map != null)) {
      throw new IllegalArgumentException("a static map is needed for, and only for, static arms");
    }
    this.levels = levels;
    this.map = map;
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public Backend backend() {
    return Backend.RABBITMQ;
  }

  @Override
  public Session open(Endpoints endpoints, double timeScale, Worker worker) throws Exception {
    ConnectionFactory factory = new ConnectionFactory();
    factory.setUri(endpoints.rabbitmq());
    factory.setConnectionTimeout(3_000);
    String unique = UUID.randomUUID().toString().substring(0, 8);
    String queue = "harbinger.bench." + name + "." + unique;
    String exchange = "harbinger.bench.reports." + unique;
    AtomicInteger threads = new AtomicInteger();
    ExecutorService consumerExecutor =
        Executors.newFixedThreadPool(
            BenchRunner.WORKERS,
            r -> {
              Thread t = new Thread(r, "bench-rabbit-consumer-" + threads.incrementAndGet());
              t.setDaemon(true);
              return t;
            });
    RabbitSession session = new RabbitSession(queue, exchange, consumerExecutor);
    try {
      session.consumers = factory.newConnection(consumerExecutor, "harbinger-bench-consumers");
      session.producers = factory.newConnection("harbinger-bench-producers");
      session.user = factory.getUsername();
      session.attributes.put(
          "broker",
          "rabbitmq " + session.producers.getServerProperties().getOrDefault("version", "unknown"));
      session.attributes.put("queue", queue);
      session.attributes.put("levels", Integer.toString(kind == Kind.FIFO ? 1 : levels));
      try (Channel admin = session.producers.createChannel()) {
        if (kind == Kind.FIFO) {
          admin.queueDeclare(queue, false, false, false, Map.of());
        } else {
          PriorityQueues.declare(admin, queue, levels);
        }
      }
      session.declared = true;
      if (kind == Kind.PREDICTIVE || kind == Kind.SHADOW) {
        HistogramPredictor predictor =
            new HistogramPredictor(
                PredictorConfig.builder().levels(levels).build(), Ticker.SYSTEM, Mode.PREDICTIVE);
        session.predictor = predictor;
        session.embedded = EmbeddedRouter.builder(factory, predictor).exchange(exchange).start();
        session.router = session.embedded;
      } else if (kind == Kind.SIDECAR) {
        SidecarConfig config = sidecarConfig(endpoints, exchange, unique);
        session.sidecarQueue = config.reportQueue();
        session.sidecar = Sidecar.start(config);
        session.sidecarChannel =
            Grpc.newChannelBuilder(
                    "127.0.0.1:" + session.sidecar.grpcPort(), InsecureChannelCredentials.create())
                .build();
        session.sidecarRouter =
            SidecarRouter.watch(session.sidecarChannel, levels, Duration.ofSeconds(30), null);
        session.router = session.sidecarRouter;
      }
      if (session.router != null) {
        session.reports = ReportPublisher.builder(factory).exchange(exchange).start();
      }
      for (int i = 0; i < BenchRunner.WORKERS; i++) {
        Channel raw = session.consumers.createChannel();
        Channel channel =
            session.reports == null
                ? raw
                : PredictiveChannels.wrap(
                    raw,
                    ChannelOptions.builder(session.user)
                        .levels(levels)
                        .reports(session.reports)
                        .build());
        channel.basicQos(1);
        channel.basicConsume(
            queue,
            false,
            (tag, delivery) -> {
              boolean ok;
              try {
                ok = worker.deliver(delivery.getBody());
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                ok = false;
              }
              long deliveryTag = delivery.getEnvelope().getDeliveryTag();
              if (ok) {
                channel.basicAck(deliveryTag, false);
              } else {
                channel.basicNack(deliveryTag, false, true);
              }
            },
            tag -> {});
        session.channels.add(channel);
      }
      return session;
    } catch (Exception e) {
      session.close();
      throw e;
    }
  }

  /** The configuration of the run's sidecar: defaults but for ports, exchange and snapshot. */
  private SidecarConfig sidecarConfig(Endpoints endpoints, String exchange, String unique)
      throws ConfigException {
    URI uri = endpoints.rabbitmq();
    Properties p = new Properties();
    Map<String, String> env = new LinkedHashMap<>();
    String userInfo = uri.getRawUserInfo();
    String server = uri.toString();
    if (userInfo != null) {
      int colon = userInfo.indexOf(':');
      String user = colon < 0 ? userInfo : userInfo.substring(0, colon);
      p.setProperty("harbinger.rabbitmq.username", decode(user));
      if (colon >= 0) {
        env.put("HARBINGER_RABBITMQ_PASSWORD", decode(userInfo.substring(colon + 1)));
      }
      server = server.replace(userInfo + "@", "");
    }
    p.setProperty("harbinger.replica-id", "bench-" + unique);
    p.setProperty("harbinger.rabbitmq.uri", server);
    p.setProperty("harbinger.rabbitmq.reports-exchange", exchange);
    p.setProperty("harbinger.grpc.port", "0");
    p.setProperty("harbinger.metrics.port", "-1");
    p.setProperty("harbinger.snapshot.path", "");
    p.setProperty("harbinger.predictor.levels", Integer.toString(levels));
    return new ConfigLoader(env, p).load(Optional.empty());
  }

  /** Percent-decodes a URI part; unlike form encoding, a '+' in a URI stays a '+'. */
  private static String decode(String s) {
    return URLDecoder.decode(s.replace("+", "%2B"), StandardCharsets.UTF_8);
  }

  /** A running RabbitMQ arm. */
  private final class RabbitSession implements Session {
    private final String queue;
    private final String exchange;
    private final ExecutorService consumerExecutor;
    private final Map<String, String> attributes = new LinkedHashMap<>();
    private final List<Channel> channels = new ArrayList<>();
    private Connection consumers;
    private Connection producers;
    private String user;
    private boolean declared;
    private Router router;
    private EmbeddedRouter embedded;
    private HistogramPredictor predictor;
    private Sidecar sidecar;
    private String sidecarQueue;
    private ManagedChannel sidecarChannel;
    private SidecarRouter sidecarRouter;
    private ReportPublisher reports;

    RabbitSession(String queue, String exchange, ExecutorService consumerExecutor) {
      this.queue = queue;
      this.exchange = exchange;
      this.consumerExecutor = consumerExecutor;
    }

    @Override
    public Publisher publisher(Service service) throws Exception {
      Channel raw = producers.createChannel();
      Channel channel =
          router == null
              ? raw
              : PredictiveChannels.wrap(
                  raw,
                  ChannelOptions.builder(user).router(router).shadow(kind == Kind.SHADOW).build());
      synchronized (channels) {
        channels.add(channel);
      }
      return job -> channel.basicPublish("", queue, properties(job), body(job));
    }

    private AMQP.BasicProperties properties(Job job) {
      AMQP.BasicProperties.Builder props =
          new AMQP.BasicProperties.Builder()
              .deliveryMode(1)
              .headers(Map.of(HarbingerHeaders.DEFAULT_JOB_TYPE, job.type().wireName()));
      if (kind == Kind.STATIC) {
        props.priority(levels - 1 - map.level(job.type()));
      }
      return props.build();
    }

    @Override
    public Map<String, String> attributes() {
      Map<String, String> out = new LinkedHashMap<>(attributes);
      if (embedded != null) {
        out.put("router_ingest", String.valueOf(embedded.ingestStats()));
        out.put("router_failures", Long.toString(embedded.failures()));
        out.put("predictor", String.valueOf(predictor.stats()));
      }
      if (sidecarRouter != null) {
        out.put("sidecar_table_version", Long.toString(sidecarRouter.version()));
        out.put("sidecar_reconnects", Long.toString(sidecarRouter.reconnects()));
        out.put(
            "sidecar_unavailable_fallbacks", Long.toString(sidecarRouter.unavailableFallbacks()));
      }
      if (reports != null) {
        out.put("reports_sent", Long.toString(reports.sent()));
        out.put("reports_dropped", Long.toString(reports.dropped()));
      }
      return out;
    }

    @Override
    public void close() {
      synchronized (channels) {
        for (Channel c : channels) {
          quietly(() -> c.close());
        }
      }
      if (reports != null) {
        quietly(reports::close);
      }
      if (embedded != null) {
        quietly(embedded::close);
      }
      if (sidecarRouter != null) {
        quietly(sidecarRouter::close);
      }
      if (sidecarChannel != null) {
        quietly(
            () -> {
              sidecarChannel.shutdownNow();
              sidecarChannel.awaitTermination(3, TimeUnit.SECONDS);
            });
      }
      if (sidecar != null) {
        quietly(sidecar::close);
      }
      if (producers != null && producers.isOpen()) {
        quietly(
            () -> {
              try (Channel admin = producers.createChannel()) {
                if (declared) {
                  admin.queueDelete(queue);
                }
                if (sidecarQueue != null) {
                  admin.queueDelete(sidecarQueue);
                }
                admin.exchangeDelete(exchange);
              }
            });
      }
      if (consumers != null) {
        quietly(() -> consumers.close(3_000));
      }
      if (producers != null) {
        quietly(() -> producers.close(3_000));
      }
      consumerExecutor.shutdownNow();
      quietly(() -> consumerExecutor.awaitTermination(3, TimeUnit.SECONDS));
    }
  }

  private static byte[] body(Job job) {
    return job.payloadJson().getBytes(StandardCharsets.UTF_8);
  }

  /** A cleanup step that may fail. */
  @FunctionalInterface
  interface Step {
    /**
     * Runs the step.
     *
     * @throws Exception on failure, which is ignored
     */
    void run() throws Exception;
  }

  /**
   * Runs a cleanup step, ignoring failures: cleanup is best effort and must not hide the result.
   *
   * @param step the step
   */
  static void quietly(Step step) {
    try {
      step.run();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (Exception e) {
      // Best effort: the resource may already be gone.
    }
  }
}
