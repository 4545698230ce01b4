package io.harbinger.rabbit;

import static org.assertj.core.api.Assertions.assertThat;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.DeliverCallback;
import io.harbinger.predictor.HistogramPredictor;
import io.harbinger.predictor.Keys;
import io.harbinger.predictor.Mode;
import io.harbinger.predictor.Prediction;
import io.harbinger.predictor.PredictorConfig;
import io.harbinger.predictor.PredictorTuning;
import io.harbinger.predictor.Ticker;
import io.harbinger.testing.BrokerKind;
import io.harbinger.testing.EachBroker;
import io.harbinger.testing.ProgressWait;
import io.harbinger.testing.Quietly;
import io.harbinger.testing.TestBroker;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * Two job types, 2 ms and 200 ms, through the wrapper into a priority queue drained by two
 * consumers with prefetch 1, learned by an embedded router from the consumers' reports.
 */
class EndToEndIT {

  private static final int CONSUMERS = 2;
  private static final int PER_TYPE = 10;

  private final List<AutoCloseable> closeables = new ArrayList<>();
  private final List<String> queues = new ArrayList<>();
  private final Map<String, Long> handlerMillis = new ConcurrentHashMap<>();
  private ConnectionFactory factory;
  private Connection producerConnection;
  private Connection consumerConnection;
  private ExecutorService consumerThreads;
  private String exchange;
  private String user;
  private String shortType;
  private String longType;
  private EmbeddedRouter router;
  private ReportPublisher reports;

  @BeforeEach
  void setUp(TestBroker broker) throws Exception {
    factory = broker.factory();
    user = factory.getUsername();
    exchange = TestBroker.unique("reports");
    String run = exchange.substring(exchange.lastIndexOf('.') + 1);
    shortType = "reserve-" + run;
    longType = "export-" + run;
    handlerMillis.put(shortType, 2L);
    handlerMillis.put(longType, 200L);
    producerConnection = factory.newConnection("harbinger-it-producer-" + run);
    consumerThreads = Executors.newFixedThreadPool(CONSUMERS);
    consumerConnection = factory.newConnection(consumerThreads, "harbinger-it-consumer-" + run);
    PredictorConfig config = PredictorConfig.builder().minObservations(5).keyDecay(0.8).build();
    // The lab's hooks, so that boundaries exist after a few reports.
    PredictorTuning tuning =
        PredictorTuning.builder().boundaryMinObservations(10).boundaryRefreshEvery(5).build();
    router =
        EmbeddedRouter.builder(
                factory, new HistogramPredictor(config, tuning, Ticker.SYSTEM, Mode.PREDICTIVE))
            .exchange(exchange)
            .start();
    reports = ReportPublisher.builder(factory).exchange(exchange).start();
    closeables.add(reports);
    closeables.add(router);
  }

  @AfterEach
  void tearDown() throws Exception {
    Collections.reverse(closeables);
    closeables.forEach(Quietly::close);
    for (String q : queues) {
      Quietly.deleteQueue(producerConnection, q);
    }
    Quietly.deleteExchange(producerConnection, exchange);
    Quietly.close(consumerConnection);
    Quietly.close(producerConnection);
    Quietly.shutdown(consumerThreads);
  }

  private String priorityQueue(String name) throws Exception {
    String q = TestBroker.unique(name);
    queues.add(q);
    try (Channel ch = producerConnection.createChannel()) {
      PriorityQueues.declare(ch, q, router.levels());
    }
    return q;
  }

  private String plainQueue(String name) throws Exception {
    String q = TestBroker.unique(name);
    queues.add(q);
    try (Channel ch = producerConnection.createChannel()) {
      ch.queueDeclare(q, true, false, false, null);
    }
    return q;
  }

  /** One completed message: its type, and publish-to-completion latency. */
  record Done(String jobType, long latencyMillis) {}

  private static AMQP.BasicProperties message(String jobType, long sentNanos) {
    return new AMQP.BasicProperties.Builder()
        .headers(Map.of("x-job-type", jobType, "x-test-sent-nanos", sentNanos))
        .build();
  }

  /** Publishes {@code rounds} of (long, short) pairs, long first, through a channel. */
  private void publishPairs(Channel channel, String queue, int rounds) throws Exception {
    for (int i = 0; i < rounds; i++) {
      channel.basicPublish("", queue, message(longType, System.nanoTime()), new byte[0]);
      channel.basicPublish("", queue, message(shortType, System.nanoTime()), new byte[0]);
    }
  }

  /** Starts wrapped consumers with prefetch 1 whose handlers sleep for their type's time. */
  private List<Channel> consume(String queue, List<Done> done) throws Exception {
    List<Channel> channels = new ArrayList<>();
    for (int c = 0; c < CONSUMERS; c++) {
      Channel ch =
          PredictiveChannels.wrap(
              consumerConnection.createChannel(),
              ChannelOptions.builder(user).reports(reports).build());
      ch.basicQos(1);
      DeliverCallback handler =
          (tag, delivery) -> {
            Map<String, Object> h = delivery.getProperties().getHeaders();
            String type = h.get("x-job-type").toString();
            try {
              Thread.sleep(handlerMillis.get(type));
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
            long sent = ((Number) h.get("x-test-sent-nanos")).longValue();
            done.add(new Done(type, (System.nanoTime() - sent) / 1_000_000));
            ch.basicAck(delivery.getEnvelope().getDeliveryTag(), false);
          };
      ch.basicConsume(queue, false, handler, tag -> {});
      channels.add(ch);
      closeables.add(ch);
    }
    return channels;
  }

  private void learn() throws Exception {
    String q = priorityQueue("learn");
    List<Done> done = new CopyOnWriteArrayList<>();
    consume(q, done);
    Channel producer = PredictiveChannels.wrap(producerConnection.createChannel(), user, router);
    closeables.add(producer);
    publishPairs(producer, q, 8);
    ProgressWait.on("learning messages handled", done::size)
        .until(
            "both job types learned, or 16 messages handled", () -> learned() || done.size() >= 16);
    if (!learned()) {
      publishPairs(producer, q, 8);
    }
    ProgressWait.on("reports learned", () -> router.ingestStats().learned())
        .until("both job types learned", this::learned);
  }

  private boolean learned() {
    return isLearned(shortKey()) && isLearned(longKey());
  }

  private boolean isLearned(String key) {
    return router.predictor().peek(key).isPredicted();
  }

  private String shortKey() {
    return Keys.of(user, shortType);
  }

  private String longKey() {
    return Keys.of(user, longType);
  }

  private static long medianMillis(List<Done> done, String type) {
    long[] v =
        done.stream()
            .filter(d -> d.jobType().equals(type))
            .mapToLong(Done::latencyMillis)
            .sorted()
            .toArray();
    return v[v.length / 2];
  }

  @EachBroker
  void learnedPriorities_deliverShortJobsFirst_andCutTheirMedianLatencyAgainstFifo()
      throws Exception {
    learn();
    Prediction s = router.predictor().peek(shortKey());
    Prediction l = router.predictor().peek(longKey());
    assertThat(s.level()).isLessThan(l.level());

    // FIFO: the same messages, published raw into a plain queue.
    String fifoQueue = plainQueue("fifo");
    try (Channel raw = producerConnection.createChannel()) {
      publishPairs(raw, fifoQueue, PER_TYPE);
    }
    List<Done> fifo = new CopyOnWriteArrayList<>();
    consume(fifoQueue, fifo);
    ProgressWait.on("FIFO messages handled", fifo::size).untilAtLeast(2 * PER_TYPE);
    assertThat(fifo).hasSize(2 * PER_TYPE);

    // Harbinger: the same messages through the wrapper into the priority queue.
    String prioQueue = priorityQueue("prio");
    Channel producer = PredictiveChannels.wrap(producerConnection.createChannel(), user, router);
    closeables.add(producer);
    publishPairs(producer, prioQueue, PER_TYPE);
    List<Done> harbinger = new CopyOnWriteArrayList<>();
    consume(prioQueue, harbinger);
    ProgressWait.on("Harbinger messages handled", harbinger::size).untilAtLeast(2 * PER_TYPE);
    assertThat(harbinger).hasSize(2 * PER_TYPE);

    // Completion order: with two consumers the last short may finish after the first long began.
    assertThat(harbinger.subList(0, PER_TYPE - 1))
        .allSatisfy(d -> assertThat(d.jobType()).isEqualTo(shortType));
    long fifoMedian = medianMillis(fifo, shortType);
    long harbingerMedian = medianMillis(harbinger, shortType);
    System.out.printf(
        "short-job median latency: FIFO %d ms, Harbinger %d ms (levels %d vs %d)%n",
        fifoMedian, harbingerMedian, s.level(), l.level());
    assertThat(harbingerMedian).isLessThan(fifoMedian / 4);
    assertThat(medianMillis(harbinger, longType)).isGreaterThan(harbingerMedian);
  }

  @EachBroker
  void keyLevel_followsACostChange() throws Exception {
    learn();
    int before = router.predictor().peek(shortKey()).level();
    int longLevel = router.predictor().peek(longKey()).level();
    assertThat(before).isLessThan(longLevel);

    handlerMillis.put(shortType, 300L);
    String q = priorityQueue("drift");
    List<Done> done = new CopyOnWriteArrayList<>();
    consume(q, done);
    Channel producer = PredictiveChannels.wrap(producerConnection.createChannel(), user, router);
    closeables.add(producer);
    for (int i = 0; i < 12; i++) {
      producer.basicPublish("", q, message(shortType, System.nanoTime()), new byte[0]);
    }

    ProgressWait.on("reports learned", () -> router.ingestStats().learned())
        .until(
            "the short type's level up to the long type's",
            () -> router.predictor().peek(shortKey()).predictedLevel() >= longLevel);
    assertThat(router.predictor().peek(shortKey()).predictedLevel()).isGreaterThan(before);
  }

  /** Drains a queue with basic.get, returning the job types in delivery order. */
  private static List<String> drainTypes(Channel ch, String queue, int expected) throws Exception {
    List<String> types = new ArrayList<>();
    ProgressWait.on("messages drained", types::size)
        .until(
            expected + " messages drained",
            () -> {
              com.rabbitmq.client.GetResponse r;
              while ((r = ch.basicGet(queue, true)) != null) {
                types.add(r.getProps().getHeaders().get("x-job-type").toString());
              }
              return types.size() >= expected;
            });
    return types;
  }

  /**
   * On RabbitMQ 4.0 a quorum queue has two priorities, served two high for one normal: the keys
   * learned shortest go high, so short jobs published behind a backlog of long ones take two of
   * every three deliveries until they run out, where FIFO would deliver every long one first.
   */
  @EachBroker(BrokerKind.RABBITMQ_4)
  void learnedLevels_quorumQueueOn4_shortJobsTakeTheHighTwoToOneShare(TestBroker broker)
      throws Exception {
    // Only level 0 is "high" here. With two job types in equal numbers the lower tertile falls
    // inside the short type's own durations, which may then sit at level 1; a third job type of
    // another producer, in between, puts the boundaries between the classes as a real mix does.
    for (int i = 0; i < 30; i++) {
      router.predictor().observe(Keys.of("other-producer", "mid"), 40_000_000 + i * 10_000);
    }
    learn();
    assertThat(router.predictor().peek(shortKey()).level())
        .as("the short key's learned level")
        .isZero();
    assertThat(router.predictor().peek(longKey()).level()).isPositive();

    String q = TestBroker.unique("quorum");
    queues.add(q);
    try (Channel ch = producerConnection.createChannel()) {
      PriorityQueues.declare(ch, q, router.levels(), Map.of("x-queue-type", "quorum"));
    }
    Channel producer = PredictiveChannels.wrap(producerConnection.createChannel(), user, router);
    closeables.add(producer);
    producer.confirmSelect();
    int longs = 2 * PER_TYPE;
    for (int i = 0; i < longs; i++) {
      producer.basicPublish("", q, message(longType, System.nanoTime()), new byte[0]);
    }
    for (int i = 0; i < PER_TYPE; i++) {
      producer.basicPublish("", q, message(shortType, System.nanoTime()), new byte[0]);
    }
    // Every message in the queue before the first get: otherwise a get may come before the
    // short jobs are enqueued and deliver a long one that was alone there.
    producer.waitForConfirmsOrDie(10_000);

    List<String> order;
    try (Channel ch = producerConnection.createChannel()) {
      order = drainTypes(ch, q, longs + PER_TYPE);
    }
    System.out.println("quorum queue on " + broker.label() + ": " + order);
    // Two high for one normal while both have messages: the 10 short jobs in the first 15.
    assertThat(order.subList(0, 3 * PER_TYPE / 2)).filteredOn(shortType::equals).hasSize(PER_TYPE);
    for (int window = 0; window < PER_TYPE / 2; window++) {
      assertThat(order.subList(3 * window, 3 * window + 3))
          .as("deliveries %d to %d", 3 * window + 1, 3 * window + 3)
          .filteredOn(shortType::equals)
          .hasSize(2);
    }
  }
}
