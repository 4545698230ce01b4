package io.harbinger.experiments.bench;

import com.google.protobuf.ByteString;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.harbinger.broker.ArmDefinition;
import io.harbinger.broker.BrokerConfig;
import io.harbinger.broker.BrokerServer;
import io.harbinger.broker.DeadLetter;
import io.harbinger.broker.MessageBroker;
import io.harbinger.broker.Policy;
import io.harbinger.broker.RunsOn;
import io.harbinger.broker.client.BrokerConsumer;
import io.harbinger.broker.client.BrokerProducer;
import io.harbinger.experiments.workload.Job;
import io.harbinger.experiments.workload.Service;
import io.harbinger.predictor.HistogramPredictor;
import io.harbinger.predictor.Mode;
import io.harbinger.predictor.PredictorConfig;
import io.harbinger.predictor.Ticker;
import io.harbinger.proto.v1.BrokerGrpc;
import io.harbinger.proto.v1.DlqEntry;
import io.harbinger.proto.v1.InspectDlqRequest;
import io.harbinger.scheduler.AgingMode;
import io.harbinger.scheduler.SchedulerConfig;
import io.harbinger.scheduler.Selection;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * The arms on Harbinger's own broker: FIFO, predictive, weighted with pausing aging, aging off,
 * per-job-type fair queueing and the oracle.
 *
 * <p>Implementation notes: as the original implementation's production-flow benchmark runs its
 * broker (workers pull with a 200 ms timeout; aging 5000/500 ms, lease 30 s). Each run starts a
 * broker in this JVM on a free loopback port with the arm's policy; the aging threshold and
 * interval are divided by the time scale so that aging acts at the same point of a compressed run.
 * Each of the four workers is a {@link BrokerConsumer} pulling on its own thread (one delivery at a
 * time: prefetch 1) and acking or nacking with the handler's time; a nacked message is retried by
 * the broker. Each service registers its own {@link BrokerProducer}. Every message carries the job
 * type, the size hint and the oracle tier header (which only the oracle policy reads).
 *
 * <p>Given a running broker ({@link Endpoints#broker()}, as in compose), the arm uses that one
 * instead, with the policy and aging it was started with, which the arm cannot see: the run records
 * the address, and the broker's state (its predictor, its dead letters) carries over from run to
 * run. Only the dead letters added during the run are counted.
 */
final class BrokerArm implements BenchArm {

  /** What every broker arm's name starts with. */
  static final String NAME_PREFIX = "broker-";

  private static final Duration PULL_TIMEOUT = Duration.ofMillis(200);
  private static final int DLQ_PAGE = 100;

  private final String name;
  private final Policy policy;
  private final Selection selection;
  private final AgingMode aging;

  /**
   * Creates an arm.
   *
   * @param arm the registry's definition of an arm that runs on the broker: its policy, strict or
   *     weighted (8, 3, 1) level selection and aging mode
   */
  BrokerArm(ArmDefinition arm) {
    Objects.requireNonNull(arm, "arm");
    if (arm.runsOn() != RunsOn.BROKER) {
      throw new IllegalArgumentException("arm " + arm.name() + " does not run on the broker");
    }
    this.name = arm.name();
    this.policy = arm.policy();
    this.selection = arm.selection();
    this.aging = arm.aging();
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public Backend backend() {
    return Backend.NONE;
  }

  @Override
  public Session open(Endpoints endpoints, double timeScale, Worker worker) throws Exception {
    if (endpoints.broker().isPresent()) {
      String address = endpoints.broker().get();
      ManagedChannel channel =
          Grpc.newChannelBuilder(address, InsecureChannelCredentials.create()).build();
      BrokerGrpc.BrokerBlockingStub admin = BrokerGrpc.newBlockingStub(channel);
      long dlqBefore;
      try {
        dlqBefore = dlqSize(admin);
      } catch (RuntimeException e) {
        channel.shutdownNow();
        throw e;
      }
      BrokerSession session = new BrokerSession(null, null, channel, null, admin, dlqBefore);
      session.attributes.put(
          "broker",
          "harbinger-broker running at " + address + ", with the policy it was started with");
      return startConsumers(session, worker);
    }
    SchedulerConfig defaults = SchedulerConfig.defaults();
    SchedulerConfig scheduler =
        new SchedulerConfig(
            defaults.levels(),
            selection,
            aging,
            defaults.weights(),
            scale(defaults.agingThreshold(), timeScale),
            scale(defaults.agingInterval(), timeScale));
    BrokerConfig config = BrokerConfig.defaults().withPolicy(policy, scheduler);
    HistogramPredictor predictor =
        policy.needsPredictor()
            ? new HistogramPredictor(
                PredictorConfig.builder().levels(scheduler.levels()).build(),
                Ticker.SYSTEM,
                Mode.PREDICTIVE)
            : null;
    MessageBroker broker = new MessageBroker(config, predictor, Ticker.SYSTEM);
    BrokerServer server =
        new BrokerServer(
                NettyServerBuilder.forAddress(
                        new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
                    .directExecutor(),
                broker)
            .start();
    ManagedChannel channel =
        NettyChannelBuilder.forAddress(
                InetAddress.getLoopbackAddress().getHostAddress(), server.port())
            .usePlaintext()
            .build();
    BrokerSession session = new BrokerSession(broker, server, channel, predictor, null, 0);
    session.attributes.put(
        "broker",
        "harbinger-broker policy "
            + policy.label()
            + ", "
            + selection.label()
            + " selection, "
            + aging.label()
            + " aging");
    session.attributes.put("levels", Integer.toString(scheduler.levels()));
    session.attributes.put(
        "aging_threshold_ms", Long.toString(scheduler.agingThreshold().toMillis()));
    return startConsumers(session, worker);
  }

  private static Session startConsumers(BrokerSession session, Worker worker) {
    ManagedChannel channel = session.channel;
    try {
      for (int i = 0; i < BenchRunner.WORKERS; i++) {
        BrokerConsumer consumer = BrokerConsumer.register(channel);
        session.threads.add(
            Thread.ofPlatform()
                .name("bench-broker-consumer-" + i)
                .daemon()
                .start(
                    () -> {
                      try {
                        consumer.consume(
                            m -> worker.deliver(m.getPayload().toByteArray()),
                            () -> session.running,
                            PULL_TIMEOUT);
                      } catch (RuntimeException e) {
                        if (session.running) {
                          session.consumerErrors.incrementAndGet();
                        }
                      }
                    }));
      }
      return session;
    } catch (RuntimeException e) {
      session.close();
      throw e;
    }
  }

  /**
   * Checks that a Harbinger broker serves at an address: its dead-letter queue can be read.
   *
   * @param address {@code host:port}
   * @return null when it serves, else what went wrong
   */
  static String probe(String address) {
    ManagedChannel channel =
        Grpc.newChannelBuilder(address, InsecureChannelCredentials.create()).build();
    try {
      dlqSize(BrokerGrpc.newBlockingStub(channel));
      return null;
    } catch (RuntimeException e) {
      return e.getMessage();
    } finally {
      channel.shutdownNow();
    }
  }

  private static long dlqSize(BrokerGrpc.BrokerBlockingStub admin) {
    return admin
        .withDeadlineAfter(5, TimeUnit.SECONDS)
        .inspectDlq(InspectDlqRequest.newBuilder().setLimit(1).build())
        .getTotalSize();
  }

  private static Duration scale(Duration value, double timeScale) {
    return Duration.ofNanos(Math.max(1_000_000L, Math.round(value.toNanos() / timeScale)));
  }

  /** A running broker arm. */
  private static final class BrokerSession implements Session {
    private final MessageBroker broker;
    private final BrokerServer server;
    private final ManagedChannel channel;
    private final HistogramPredictor predictor;
    private final BrokerGrpc.BrokerBlockingStub external;
    private final long dlqBefore;
    private final List<Thread> threads = new ArrayList<>();
    private final Map<String, String> attributes = new LinkedHashMap<>();
    private final java.util.concurrent.atomic.AtomicLong consumerErrors =
        new java.util.concurrent.atomic.AtomicLong();
    private volatile boolean running = true;

    /**
     * Creates the session of a broker started for the run (broker and server set, external null) or
     * of a running one (external set, broker, server and predictor null).
     */
    BrokerSession(
        MessageBroker broker,
        BrokerServer server,
        ManagedChannel channel,
        HistogramPredictor predictor,
        BrokerGrpc.BrokerBlockingStub external,
        long dlqBefore) {
      this.broker = broker;
      this.server = server;
      this.channel = channel;
      this.predictor = predictor;
      this.external = external;
      this.dlqBefore = dlqBefore;
    }

    @Override
    public Publisher publisher(Service service) {
      BrokerProducer producer = BrokerProducer.register(channel);
      return job -> producer.submit(ByteString.copyFromUtf8(job.payloadJson()), headers(job));
    }

    private static Map<String, String> headers(Job job) {
      Map<String, String> headers = new HashMap<>();
      headers.put("x-job-type", job.type().wireName());
      headers.put(MessageBroker.ORACLE_TIER_HEADER, Integer.toString(job.oracleTier()));
      if (job.sizeHint() > 0) {
        headers.put(MessageBroker.SIZE_HINT_HEADER, Long.toString(job.sizeHint()));
      }
      return headers;
    }

    @Override
    public List<byte[]> deadLettered() {
      List<byte[]> out = new ArrayList<>();
      if (external != null) {
        while (true) {
          List<DlqEntry> page =
              external
                  .withDeadlineAfter(5, TimeUnit.SECONDS)
                  .inspectDlq(
                      InspectDlqRequest.newBuilder()
                          .setLimit(DLQ_PAGE)
                          .setOffset((int) Math.min(Integer.MAX_VALUE, dlqBefore + out.size()))
                          .build())
                  .getEntriesList();
          page.forEach(d -> out.add(d.getPayload().toByteArray()));
          if (page.size() < DLQ_PAGE) {
            return out;
          }
        }
      }
      while (true) {
        List<DeadLetter> page = broker.inspectDlq(DLQ_PAGE, out.size()).entries();
        for (DeadLetter d : page) {
          out.add(d.payload().toByteArray());
        }
        if (page.size() < DLQ_PAGE) {
          return out;
        }
      }
    }

    @Override
    public Map<String, String> attributes() {
      Map<String, String> out = new LinkedHashMap<>(attributes);
      out.put("consumer_errors", Long.toString(consumerErrors.get()));
      if (broker != null) {
        out.put("broker_stats", String.valueOf(broker.stats()));
      }
      if (predictor != null) {
        out.put("predictor", String.valueOf(predictor.stats()));
      }
      return out;
    }

    @Override
    public void close() {
      running = false;
      for (Thread t : threads) {
        RabbitArm.quietly(() -> t.join(2_000));
      }
      channel.shutdownNow();
      RabbitArm.quietly(() -> channel.awaitTermination(3, TimeUnit.SECONDS));
      if (server != null) {
        server.close();
      }
    }
  }
}
