package io.harbinger.experiments.bench;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.AlreadyClosedException;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse;
import io.grpc.health.v1.HealthGrpc;
import io.harbinger.broker.ArmDefinition;
import io.harbinger.broker.Policy;
import io.harbinger.broker.QueueLayout;
import io.harbinger.broker.RunsOn;
import io.harbinger.experiments.levels.DecisionLog;
import io.harbinger.experiments.levels.Placement;
import io.harbinger.experiments.workload.Job;
import io.harbinger.experiments.workload.JobType;
import io.harbinger.experiments.workload.Service;
import io.harbinger.experiments.workload.Workload;
import io.harbinger.predictor.HistogramPredictor;
import io.harbinger.predictor.Keys;
import io.harbinger.predictor.Mode;
import io.harbinger.predictor.Prediction;
import io.harbinger.predictor.PredictorConfig;
import io.harbinger.predictor.Router;
import io.harbinger.predictor.Ticker;
import io.harbinger.rabbit.AdapterStats;
import io.harbinger.rabbit.ChannelOptions;
import io.harbinger.rabbit.EmbeddedRouter;
import io.harbinger.rabbit.HarbingerHeaders;
import io.harbinger.rabbit.LaneFetch;
import io.harbinger.rabbit.LaneLayout;
import io.harbinger.rabbit.LaneOptions;
import io.harbinger.rabbit.Lanes;
import io.harbinger.rabbit.PredictiveChannels;
import io.harbinger.rabbit.PriorityQueues;
import io.harbinger.rabbit.QueueType;
import io.harbinger.rabbit.ReportPublisher;
import io.harbinger.rabbit.ReportSink;
import io.harbinger.sidecar.ConfigException;
import io.harbinger.sidecar.ConfigLoader;
import io.harbinger.sidecar.Sidecar;
import io.harbinger.sidecar.SidecarConfig;
import io.harbinger.sidecar.client.SidecarRouter;
import java.net.URLEncoder;
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
 * The RabbitMQ arms: the producer takes each message's level from the arm's {@link Policy}: none
 * (FIFO), the hand-tuned job-type map, the oracle, or Harbinger's predictor with the product's
 * defaults, embedded or through a sidecar, routing through the wrapped channel.
 *
 * <p>Implementation notes: the consumer executor of docs/adopting.md. Each run declares a fresh
 * classic queue with a unique name (with {@code x-max-priority} for every arm but FIFO) and deletes
 * it afterwards. The four consumers share one connection whose consumer executor has four threads
 * (amqp-client's default pool has one thread per core, which would serialise the workers on a
 * 2-core machine); each has its own channel with {@code basicQos(1)} and manual acks; a failed
 * attempt is {@code basicNack(tag, false, true)}, which requeues it. Producers publish
 * non-persistent messages on one channel per service of a second connection. The predictive arms
 * wrap the producer channels with an {@link EmbeddedRouter} that learns from a reports exchange
 * unique to the run, and the consumer channels with a {@link ReportPublisher} to that exchange, so
 * runs in parallel never share a predictor. The sidecar arm starts a sidecar in this process for
 * the run (free gRPC port, no metrics endpoint, no snapshot, its own report queue on the run's
 * exchange, deleted afterwards) and routes the producers through a {@link SidecarRouter} watching
 * it over a real gRPC connection on the loopback interface; the consumers report as in the
 * predictive arm. Given a running sidecar ({@link Endpoints#sidecar()}, as in compose), the sidecar
 * arm watches that one instead and its consumers report to the exchange it learns from: that
 * sidecar keeps what it learned across runs (the warm-up and earlier seeds teach it), like a
 * deployed one. Every arm with a router records the level each job type routes to at the end of the
 * run ({@code levels_at_end}). The oracle arm sets the priority itself from a {@link Placement}:
 * each job's planned cost at the tertiles of the run's planned costs. Every arm but FIFO records
 * each message's level and reason in a {@link DecisionLog} (predictive arms through a router that
 * remembers, per publishing thread, the verdict the wrapped channel just asked for), with the
 * boundaries where the arm has them.
 */
final class RabbitArm implements BenchArm {

  /** The name of the arm that learns through a sidecar. */
  static final String SIDECAR_ARM = "rabbitmq-sidecar";

  /**
   * Returns the predictor configuration of a predictive arm: the product's defaults at its levels.
   *
   * @param levels the levels, in [2, 10]
   * @return the configuration
   */
  static PredictorConfig predictorConfig(int levels) {
    return PredictorConfig.builder().levels(levels).build();
  }

  private final String name;
  private final Policy policy;
  private final int levels;
  private final Map<String, Integer> map;
  private final QueueLayout layout;
  private final LaneOptions laneOptions;
  private volatile DecisionLog lastDecisions;

  /**
   * Creates an arm.
   *
   * @param name the arm name
   * @param policy where the producer takes the level from: {@link Policy#FIFO} (a plain classic
   *     queue), {@link Policy#STATIC_TUNED} (the hand-tuned map), {@link Policy#ORACLE} (the job's
   *     planned-cost tertile), {@link Policy#PREDICTIVE} (an embedded router with the product's
   *     defaults) or {@link Policy#SIDECAR} (a sidecar's route table: the deployment docs/design.md
   *     describes)
   * @param levels the levels, in [2, 10]; 3 for the static maps
   * @param map the job-type map of a static policy, else null
   */
  RabbitArm(String name, Policy policy, int levels, Map<String, Integer> map) {
    this(name, policy, levels, map, QueueLayout.PRIORITY_QUEUE, LaneOptions.defaults());
  }

  /**
   * Creates an arm on a queue layout.
   *
   * @param name the arm name
   * @param policy as for {@link #RabbitArm(String, Policy, int, Map)}
   * @param levels the levels, in [2, 10]
   * @param map the job-type map of a static policy, else null
   * @param layout a priority queue, or classic or quorum lanes
   * @param laneOptions how the lanes consumers serve the lanes (ignored without lanes)
   */
  RabbitArm(
      String name,
      Policy policy,
      int levels,
      Map<String, Integer> map,
      QueueLayout layout,
      LaneOptions laneOptions) {
    this.layout = Objects.requireNonNull(layout, "layout");
    this.laneOptions = Objects.requireNonNull(laneOptions, "laneOptions");
    if (layout.isLanes() && policy == Policy.FIFO) {
      throw new IllegalArgumentException("a FIFO arm has one queue, classic or quorum, not lanes");
    }
    this.name = Objects.requireNonNull(name, "name");
    this.policy = Objects.requireNonNull(policy, "policy");
    PredictorConfig.checkLevels(levels);
    if (!RunsOn.RABBITMQ.supports(policy)) {
      throw new IllegalArgumentException("policy " + policy.label() + " does not run on RabbitMQ");
    }
    if (isStatic(policy) != (map != null)) {
      throw new IllegalArgumentException("a static map is needed for, and only for, static arms");
    }
    this.levels = levels;
    this.map = map == null ? null : Map.copyOf(map);
  }

  /**
   * Creates the arm of a registry definition.
   *
   * @param arm an arm that runs on RabbitMQ
   * @return the arm
   */
  static RabbitArm of(ArmDefinition arm) {
    LaneOptions lanes =
        LaneOptions.defaults()
            .withSelection(arm.selection())
            .withAging(arm.aging())
            .withWeights(arm.weights())
            .withLanePrefetch(arm.lanePrefetch())
            .withFetch(arm.pullLanes() ? LaneFetch.PULL : LaneFetch.PUSH);
    return new RabbitArm(
        arm.name(),
        arm.policy(),
        arm.levels(),
        isStatic(arm.policy()) ? arm.policy().staticMap() : null,
        arm.layout(),
        lanes);
  }

  private static boolean isStatic(Policy policy) {
    return policy == Policy.STATIC_TUNED;
  }

  /**
   * Returns the level a static arm's producer sets itself.
   *
   * @param job the job
   * @return the level in [0, levels), or -1 when the arm is not static
   */
  int fixedLevel(Job job) {
    return isStatic(policy) ? map.getOrDefault(job.type().wireName(), levels / 2) : -1;
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
    if (policy == Policy.ORACLE) {
      throw new IllegalStateException(
          name + " places jobs by the run's planned costs: open it with the workload");
    }
    return start(endpoints, null, worker);
  }

  @Override
  public Session open(Endpoints endpoints, Workload workload, Worker worker) throws Exception {
    return start(endpoints, Objects.requireNonNull(workload, "workload"), worker);
  }

  @Override
  public Optional<DecisionLog> decisions() {
    return Optional.ofNullable(lastDecisions);
  }

  private Session start(Endpoints endpoints, Workload workload, Worker worker) throws Exception {
    ConnectionFactory factory = endpoints.rabbitFactory();
    String unique = UUID.randomUUID().toString().substring(0, 8);
    String queue = "harbinger.bench." + name + "." + unique;
    // A running sidecar learns from its own exchange, which outlives the run; otherwise the run has
    // an exchange of its own, deleted afterwards, so that no run inherits another's learning.
    Optional<String> externalSidecar =
        policy == Policy.SIDECAR ? endpoints.sidecar() : Optional.empty();
    String exchange =
        externalSidecar.isPresent()
            ? endpoints.sidecarReportsExchange()
            : "harbinger.bench.reports." + unique;
    AtomicInteger threads = new AtomicInteger();
    ExecutorService consumerExecutor =
        Executors.newFixedThreadPool(
            BenchRunner.WORKERS,
            r -> {
              Thread t = new Thread(r, "bench-rabbit-consumer-" + threads.incrementAndGet());
              t.setDaemon(true);
              return t;
            });
    RabbitSession session =
        new RabbitSession(queue, exchange, externalSidecar.isEmpty(), consumerExecutor);
    try {
      session.consumers = factory.newConnection(consumerExecutor, "harbinger-bench-consumers");
      session.producers = factory.newConnection("harbinger-bench-producers");
      session.user = factory.getUsername();
      session.attributes.put(
          "broker",
          "rabbitmq " + session.producers.getServerProperties().getOrDefault("version", "unknown"));
      session.attributes.put("queue", queue);
      session.attributes.put("levels", Integer.toString(policy == Policy.FIFO ? 1 : levels));
      session.attributes.put("layout", layout.name().toLowerCase(java.util.Locale.ROOT));
      Map<String, Object> queueType = Map.of();
      try (Channel admin = session.producers.createChannel()) {
        if (policy == Policy.FIFO) {
          admin.queueDeclare(queue, true, false, false, queueType);
        } else if (layout.isLanes()) {
          session.lanes =
              Lanes.declare(
                  admin,
                  queue,
                  levels,
                  Map.of(
                      QueueType.ARGUMENT,
                      layout == QueueLayout.QUORUM_LANES ? "quorum" : "classic"));
          session.attributes.put(
              "lanes",
              laneOptions.selection().label()
                  + " "
                  + laneOptions.weightsFor(levels)
                  + ", "
                  + laneOptions.aging().label()
                  + (laneOptions.fetch() == LaneFetch.PULL
                      ? " aging, pulled when a worker is free"
                      : " aging, lane prefetch "
                          + (laneOptions.lanePrefetch() == 0
                              ? "the application's plus one"
                              : Integer.toString(laneOptions.lanePrefetch()))));
        } else {
          PriorityQueues.declare(admin, queue, levels, queueType);
        }
      }
      session.declared = true;
      if (workload != null && policy != Policy.FIFO) {
        session.decisions = new DecisionLog(workload.jobs(), levels);
        lastDecisions = session.decisions;
      }
      if (policy == Policy.ORACLE) {
        session.placement = Placement.oracle(workload, levels);
      } else if (policy == Policy.PREDICTIVE) {
        HistogramPredictor predictor =
            new HistogramPredictor(predictorConfig(levels), Ticker.SYSTEM, Mode.PREDICTIVE);
        session.predictor = predictor;
        session.embedded = EmbeddedRouter.builder(factory, predictor).exchange(exchange).start();
        session.router = session.embedded;
      } else if (policy == Policy.SIDECAR) {
        String target;
        if (externalSidecar.isPresent()) {
          target = externalSidecar.get();
          session.attributes.put(
              "sidecar", "running at " + target + ", learning from exchange " + exchange);
        } else {
          SidecarConfig config = sidecarConfig(factory, exchange, unique);
          session.sidecarQueue = config.reportQueue();
          session.sidecar = Sidecar.start(config);
          target = "127.0.0.1:" + session.sidecar.grpcPort();
          session.attributes.put("sidecar", "started for the run");
        }
        session.sidecarChannel =
            Grpc.newChannelBuilder(target, InsecureChannelCredentials.create()).build();
        session.sidecarRouter =
            SidecarRouter.watch(session.sidecarChannel, levels, Duration.ofSeconds(30), null);
        session.router = session.sidecarRouter;
      }
      if (session.router != null) {
        session.reports = ReportPublisher.builder(factory).exchange(exchange).start();
        if (session.decisions != null) {
          session.recorder = new RecordingRouter(session.router);
          session.router = session.recorder;
        }
      }
      for (int i = 0; i < BenchRunner.WORKERS; i++) {
        Channel raw = session.consumers.createChannel();
        Channel channel =
            session.reports == null && session.lanes == null
                ? raw
                : PredictiveChannels.wrap(
                    raw,
                    ChannelOptions.builder(session.user)
                        .levels(levels)
                        .reports(session.reports == null ? ReportSink.NO_OP : session.reports)
                        .lanes(laneOptions)
                        .stats(session.consumerStats)
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
              try {
                if (ok) {
                  channel.basicAck(deliveryTag, false);
                } else {
                  channel.basicNack(deliveryTag, false, true);
                }
              } catch (AlreadyClosedException e) {
                // The run ended while this delivery was handled: the channel closed under it and
                // RabbitMQ requeues the unacknowledged message, which is what closing means.
              }
            },
            tag -> {});
        session.channels.add(channel);
      }
      return session;
    } catch (Exception | Error e) {
      // An Error too (a class missing from the classpath): open connections would keep the JVM up.
      session.close();
      throw e;
    }
  }

  /** The configuration of the run's sidecar: defaults but for ports, exchange and snapshot. */
  private SidecarConfig sidecarConfig(ConnectionFactory factory, String exchange, String unique)
      throws ConfigException {
    Properties p = new Properties();
    p.setProperty("harbinger.replica-id", "bench-" + unique);
    p.setProperty(
        "harbinger.rabbitmq.uri",
        (factory.isSSL() ? "amqps" : "amqp")
            + "://"
            + factory.getHost()
            + ":"
            + factory.getPort()
            + "/"
            + URLEncoder.encode(factory.getVirtualHost(), StandardCharsets.UTF_8));
    p.setProperty("harbinger.rabbitmq.username", factory.getUsername());
    p.setProperty("harbinger.rabbitmq.reports-exchange", exchange);
    p.setProperty("harbinger.rabbitmq.startup-retry", "0s");
    p.setProperty("harbinger.grpc.port", "0");
    p.setProperty("harbinger.grpc.bind-address", "127.0.0.1");
    p.setProperty("harbinger.metrics.port", "-1");
    p.setProperty("harbinger.snapshot.path", "");
    p.setProperty("harbinger.predictor.levels", Integer.toString(levels));
    return new ConfigLoader(Map.of("HARBINGER_RABBITMQ_PASSWORD", factory.getPassword()), p)
        .load(Optional.empty());
  }

  /**
   * Checks that a sidecar serves at an address: its gRPC health service answers SERVING.
   *
   * @param address {@code host:port}
   * @return null when it serves, else what went wrong
   */
  static String probeSidecar(String address) {
    ManagedChannel channel =
        Grpc.newChannelBuilder(address, InsecureChannelCredentials.create()).build();
    try {
      HealthCheckResponse.ServingStatus status =
          HealthGrpc.newBlockingStub(channel)
              .withDeadlineAfter(5, TimeUnit.SECONDS)
              .check(HealthCheckRequest.getDefaultInstance())
              .getStatus();
      return status == HealthCheckResponse.ServingStatus.SERVING
          ? null
          : "its health service says " + status;
    } catch (RuntimeException e) {
      return e.getMessage();
    } finally {
      channel.shutdownNow();
    }
  }

  /**
   * Returns the level the router gives each job type of a producer, such as {@code
   * reserve_inventory=0, export_report=2}, with the reason for a default level.
   */
  private static String levelsOf(Router router, String user) {
    StringBuilder b = new StringBuilder();
    for (JobType type : JobType.values()) {
      Prediction p = router.route(Keys.of(user, type.wireName()));
      if (b.length() > 0) {
        b.append(", ");
      }
      b.append(type.wireName()).append('=').append(p.level());
      if (!p.isPredicted()) {
        b.append(" (").append(p.outcome().name().toLowerCase(java.util.Locale.ROOT)).append(')');
      }
    }
    return b.toString();
  }

  /** A running RabbitMQ arm. */
  private final class RabbitSession implements Session {
    private final String queue;
    private final String exchange;
    private final boolean ownsExchange;
    private final ExecutorService consumerExecutor;
    private final Map<String, String> attributes = new LinkedHashMap<>();
    private final List<Channel> channels = new ArrayList<>();
    private Connection consumers;
    private Connection producers;
    private String user;
    private boolean declared;
    private LaneLayout lanes;
    private final AdapterStats consumerStats = new AdapterStats();
    private Router router;
    private EmbeddedRouter embedded;
    private HistogramPredictor predictor;
    private Sidecar sidecar;
    private String sidecarQueue;
    private ManagedChannel sidecarChannel;
    private SidecarRouter sidecarRouter;
    private ReportPublisher reports;
    private DecisionLog decisions;
    private Placement placement;
    private RecordingRouter recorder;

    RabbitSession(
        String queue, String exchange, boolean ownsExchange, ExecutorService consumerExecutor) {
      this.queue = queue;
      this.exchange = exchange;
      this.ownsExchange = ownsExchange;
      this.consumerExecutor = consumerExecutor;
    }

    @Override
    public Publisher publisher(Service service) throws Exception {
      Channel raw = producers.createChannel();
      Channel channel =
          router == null
              ? raw
              : PredictiveChannels.wrap(raw, ChannelOptions.builder(user).router(router).build());
      synchronized (channels) {
        channels.add(channel);
      }
      return job -> {
        Placement.Decision d = decide(job);
        String target = lanes != null && d != null ? lanes.laneName(d.level()) : queue;
        channel.basicPublish("", target, properties(job, d), body(job));
        record(job, d);
      };
    }

    /** The level the arm itself sets, or null when the wrapped channel (or nobody) sets it. */
    private Placement.Decision decide(Job job) {
      if (placement != null) {
        return placement.place(job, Ticker.SYSTEM.nanos());
      }
      int level = fixedLevel(job);
      return level < 0 ? null : new Placement.Decision(level, "static", Double.NaN);
    }

    private void record(Job job, Placement.Decision own) {
      if (decisions == null) {
        return;
      }
      long now = Ticker.SYSTEM.nanos();
      if (own != null) {
        decisions.record(job.seq(), now, own.level(), own.reason(), own.estimateMillis());
        if (placement != null) {
          placement.boundariesMillis().ifPresent(b -> decisions.boundaries(now, b));
        }
        return;
      }
      Prediction p = recorder == null ? null : recorder.last();
      if (p == null) {
        return;
      }
      Placement.Decision d = Placement.decision(p);
      decisions.record(job.seq(), now, p.level(), d.reason(), d.estimateMillis());
      if (predictor != null) {
        predictor.boundaries().ifPresent(b -> decisions.boundaries(now, Placement.millis(b)));
      }
    }

    private AMQP.BasicProperties properties(Job job, Placement.Decision own) {
      String jobType = job.type().wireName();
      AMQP.BasicProperties.Builder props =
          new AMQP.BasicProperties.Builder()
              .deliveryMode(1)
              .headers(Map.of(HarbingerHeaders.DEFAULT_JOB_TYPE, jobType));
      if (own != null && lanes == null) {
        props.priority(levels - 1 - own.level());
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
      if (router != null) {
        out.put("levels_at_end", levelsOf(router, user));
      }
      if (reports != null) {
        out.put("reports_sent", Long.toString(reports.sent()));
        out.put("reports_dropped", Long.toString(reports.dropped()));
      }
      if (decisions != null) {
        out.putAll(decisions.summary());
      }
      if (lanes != null) {
        out.put("lane_handoffs", Long.toString(consumerStats.laneHandoffs()));
        out.put("lane_held_max", Long.toString(consumerStats.laneHeldMax()));
        out.put("lane_gets", Long.toString(consumerStats.laneGets()));
        out.put("lane_empty_gets", Long.toString(consumerStats.laneEmptyGets()));
        out.put("lane_taken_ahead", Long.toString(consumerStats.laneTakenAhead()));
        out.put(
            "lane_held_mean_ms",
            String.format(java.util.Locale.ROOT, "%.3f", consumerStats.laneHeldMeanMillis()));
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
                if (lanes != null) {
                  for (String lane : lanes.laneNames()) {
                    admin.queueDelete(lane);
                  }
                } else if (declared) {
                  admin.queueDelete(queue);
                }
                if (sidecarQueue != null) {
                  admin.queueDelete(sidecarQueue);
                }
                if (ownsExchange) {
                  admin.exchangeDelete(exchange);
                }
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

  /**
   * A router that remembers, per calling thread, the last verdict it returned: the wrapped channel
   * asks it during {@code basicPublish}, and the publisher reads the verdict right after.
   */
  private static final class RecordingRouter implements Router {
    private final Router delegate;
    private final ThreadLocal<Prediction> last = new ThreadLocal<>();

    RecordingRouter(Router delegate) {
      this.delegate = delegate;
    }

    @Override
    public Prediction route(String key) {
      Prediction p = delegate.route(key);
      last.set(p);
      return p;
    }

    @Override
    public Prediction route(String key, long sizeHint) {
      Prediction p = delegate.route(key, sizeHint);
      last.set(p);
      return p;
    }

    @Override
    public int levels() {
      return delegate.levels();
    }

    @Override
    public int defaultLevel() {
      return delegate.defaultLevel();
    }

    Prediction last() {
      Prediction p = last.get();
      last.remove();
      return p;
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
