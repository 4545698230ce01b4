package io.harbinger.rabbit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.GetResponse;
import io.harbinger.predictor.HistogramPredictor;
import io.harbinger.predictor.Keys;
import io.harbinger.predictor.Mode;
import io.harbinger.predictor.Prediction;
import io.harbinger.predictor.PredictorConfig;
import io.harbinger.predictor.PredictorTuning;
import io.harbinger.predictor.Router;
import io.harbinger.testing.EachBroker;
import io.harbinger.testing.ProgressWait;
import io.harbinger.testing.Quietly;
import io.harbinger.testing.TestBroker;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * Publishing through the wrapper to the real broker: shadow mode, router failure, user-id, queues.
 */
class PublishIT {

  private final List<String> queues = new ArrayList<>();
  private ConnectionFactory factory;
  private Connection connection;
  private String user;

  @BeforeEach
  void setUp(TestBroker broker) throws Exception {
    factory = broker.factory();
    user = factory.getUsername();
    connection = factory.newConnection("harbinger-it-publish");
  }

  @AfterEach
  void tearDown() {
    queues.forEach(q -> Quietly.deleteQueue(connection, q));
    Quietly.close(connection);
  }

  private String priorityQueue() throws IOException {
    String q = TestBroker.unique("pub");
    queues.add(q);
    try (Channel ch = connection.createChannel()) {
      PriorityQueues.declare(ch, q, 3);
    } catch (java.util.concurrent.TimeoutException e) {
      throw new IOException(e);
    }
    return q;
  }

  private static AMQP.BasicProperties job(String type, int seq) {
    return new AMQP.BasicProperties.Builder()
        .headers(Map.of("x-job-type", type))
        .messageId(Integer.toString(seq))
        .build();
  }

  /** Drains a queue with basic.get (no prefetch), in delivery order. */
  private static List<GetResponse> drain(Channel ch, String q, int expected)
      throws IOException, InterruptedException {
    List<GetResponse> got = new ArrayList<>();
    ProgressWait.on("messages drained", got::size)
        .until(
            expected + " messages drained",
            () -> {
              GetResponse r;
              while ((r = ch.basicGet(q, true)) != null) {
                got.add(r);
              }
              return got.size() >= expected;
            });
    return got;
  }

  /** A predictor that has learned "fast" at 1 ms and "slow" at 1 s. */
  private HistogramPredictor trained(String fast, String slow, Mode mode) {
    AtomicLong nanos = new AtomicLong();
    HistogramPredictor p =
        new HistogramPredictor(
            PredictorConfig.builder().minObservations(5).build(),
            PredictorTuning.builder().boundaryMinObservations(10).build(),
            nanos::get,
            mode);
    for (int i = 0; i < 30; i++) {
      p.observe(Keys.of(user, fast), 1_000_000 + i * 1_000);
      p.observe(Keys.of(user, slow), 1_000_000_000 + i * 1_000_000);
    }
    return p;
  }

  private List<String> publishAndDrain(Router router, boolean shadow, String expectedMode)
      throws Exception {
    String q = priorityQueue();
    String run = q.substring(q.lastIndexOf('.') + 1);
    try (Channel raw = connection.createChannel()) {
      Channel ch =
          PredictiveChannels.wrap(
              raw, ChannelOptions.builder(user).router(router).shadow(shadow).build());
      for (int i = 0; i < 10; i++) {
        ch.basicPublish("", q, job((i % 2 == 0 ? "slow-" : "fast-") + run, i), new byte[0]);
      }
      List<String> order = new ArrayList<>();
      for (GetResponse r : drain(raw, q, 10)) {
        order.add(r.getProps().getMessageId());
        Map<String, Object> h = r.getProps().getHeaders();
        // One compact header, as the broker delivers it (a byte array of its text), and none of the
        // old three.
        assertThat(h.get(HarbingerHeaders.STAMP)).isInstanceOf(byte[].class);
        assertThat(StampHeader.text(h.get(HarbingerHeaders.STAMP)))
            .matches("v1;l=[0-2];m=" + expectedMode.charAt(0) + ";t=[0-9]{16}");
        assertThat(h)
            .doesNotContainKeys(
                HarbingerHeaders.PUBLISHED_AT, HarbingerHeaders.LEVEL, HarbingerHeaders.MODE);
        assertThat(r.getProps().getUserId()).isEqualTo(user);
      }
      return order;
    }
  }

  @EachBroker
  void shadowMode_leavesDeliveryOrderIdenticalToFifo_whilePredictiveReorders() throws Exception {
    Router shadowRouter = new LazyTrained(Mode.SHADOW);
    Router predictiveRouter = new LazyTrained(Mode.PREDICTIVE);
    List<String> fifo = List.of("0", "1", "2", "3", "4", "5", "6", "7", "8", "9");

    List<String> shadowOrder = publishAndDrain(shadowRouter, false, "shadow");
    List<String> shadowOption = publishAndDrain(predictiveRouter, true, "shadow");
    List<String> predictiveOrder = publishAndDrain(predictiveRouter, false, "predictive");

    assertThat(shadowOrder).isEqualTo(fifo);
    assertThat(shadowOption).isEqualTo(fifo);
    assertThat(predictiveOrder).containsExactly("1", "3", "5", "7", "9", "0", "2", "4", "6", "8");
  }

  /**
   * A predictor trained on every job type named "fast-*" (1 ms) or "slow-*" (1 s) it is asked
   * about.
   */
  private final class LazyTrained implements Router {
    private final Mode mode;
    private final Map<String, HistogramPredictor> byRun =
        new java.util.concurrent.ConcurrentHashMap<>();

    LazyTrained(Mode mode) {
      this.mode = mode;
    }

    @Override
    public Prediction route(String key) {
      String type = key.substring(key.indexOf(Keys.SEPARATOR) + 1);
      String run = type.substring(type.indexOf('-') + 1);
      return byRun.computeIfAbsent(run, r -> trained("fast-" + r, "slow-" + r, mode)).route(key);
    }

    @Override
    public int levels() {
      return 3;
    }
  }

  @EachBroker
  void failingOrAbsentRouter_everyPublishGoesOutAtTheDefaultLevel() throws Exception {
    Router broken =
        new Router() {
          @Override
          public Prediction route(String key) {
            throw new IllegalStateException("sidecar unreachable");
          }

          @Override
          public int levels() {
            return 3;
          }
        };
    String q = priorityQueue();
    try (Channel raw1 = connection.createChannel();
        Channel raw2 = connection.createChannel()) {
      Channel failing = PredictiveChannels.wrap(raw1, user, broken);
      Channel absent = PredictiveChannels.wrap(raw2, user, null);
      for (int i = 0; i < 10; i++) {
        failing.basicPublish("", q, job("a", i), new byte[0]);
        absent.basicPublish("", q, job("b", i), new byte[0]);
      }
      List<GetResponse> got = drain(raw1, q, 20);

      assertThat(got).hasSize(20);
      assertThat(got)
          .allSatisfy(
              r -> {
                assertThat(r.getProps().getPriority()).isEqualTo(1);
                assertThat(StampHeader.text(r.getProps().getHeaders().get(HarbingerHeaders.STAMP)))
                    .startsWith("v1;l=1;m=p;t=");
              });
      assertThat(PredictiveChannels.optionsOf(failing).stats().routerFailures()).isEqualTo(10);
      assertThat(PredictiveChannels.optionsOf(absent).stats().routerAbsent()).isEqualTo(10);
    }
  }

  @EachBroker
  void foreignUserId_isRefusedByRabbitMq_andTheWrapperNeverSendsOne() throws Exception {
    String q = priorityQueue();
    AMQP.BasicProperties forged =
        new AMQP.BasicProperties.Builder()
            .userId("mallory")
            .headers(Map.of("x-job-type", "a"))
            .build();

    Channel raw = connection.createChannel();
    raw.basicPublish("", q, forged, new byte[0]);
    await().atMost(Duration.ofSeconds(5)).until(() -> !raw.isOpen());
    assertThat(raw.getCloseReason().getMessage())
        .contains("PRECONDITION_FAILED")
        .contains("user_id property set to 'mallory'");

    try (Channel ch = connection.createChannel()) {
      Channel wrapped = PredictiveChannels.wrap(ch, user, null);
      wrapped.basicPublish("", q, forged, new byte[0]);
      List<GetResponse> got = drain(ch, q, 1);
      assertThat(got.get(0).getProps().getUserId()).isEqualTo(user);
      assertThat(ch.isOpen()).isTrue();
      assertThat(PredictiveChannels.optionsOf(wrapped).stats().userIdReplaced()).isEqualTo(1);
    }
  }

  @EachBroker
  void priorityQueueHelper_explainsQuorumAndExistingQueues() throws Exception {
    String quorum = TestBroker.unique("quorum");
    queues.add(quorum);
    try (Channel ch = connection.createChannel()) {
      ch.queueDeclare(quorum, true, false, false, Map.of("x-queue-type", "quorum"));
    }
    Channel ch1 = connection.createChannel();
    assertThatThrownBy(() -> PriorityQueues.declare(ch1, quorum, 3))
        .isInstanceOf(PriorityQueues.PriorityQueueException.class)
        .hasMessageContaining("quorum queue")
        .hasMessageContaining("Fix:");

    String plain = TestBroker.unique("plain");
    queues.add(plain);
    try (Channel ch = connection.createChannel()) {
      ch.queueDeclare(plain, true, false, false, null);
    }
    Channel ch2 = connection.createChannel();
    assertThatThrownBy(() -> PriorityQueues.declare(ch2, plain, 3))
        .isInstanceOf(PriorityQueues.PriorityQueueException.class)
        .hasMessageContaining("already exists")
        .hasMessageContaining("Fix: declare a new queue");

    String fresh = priorityQueue();
    try (Channel ch = connection.createChannel()) {
      assertThat(PriorityQueues.declare(ch, fresh, 3).getQueue()).isEqualTo(fresh);
    }
  }

  /**
   * Declaring a quorum queue through the helper: refused on 3.x with the alternatives, declared
   * without {@code x-max-priority} on 4.x; re-declaring it with other arguments is explained.
   */
  @EachBroker
  void priorityQueueHelper_quorumQueue_refusedOn3DeclaredOn4(TestBroker broker) throws Exception {
    String q = TestBroker.unique("qq");
    queues.add(q);
    Map<String, Object> quorum = Map.of("x-queue-type", "quorum");
    Channel ch1 = connection.createChannel();
    if (broker.majorVersion() < 4) {
      assertThatThrownBy(() -> PriorityQueues.declare(ch1, q, 3, quorum))
          .isInstanceOf(PriorityQueues.PriorityQueueException.class)
          .hasMessageContaining("quorum queues have no message priorities on RabbitMQ 3.")
          .hasMessageContaining("classic priority queue")
          .hasMessageContaining("one quorum queue per level");
      assertThat(ch1.isOpen()).as("refused before anything was sent").isTrue();
      return;
    }
    assertThat(PriorityQueues.declare(ch1, q, 3, quorum).getQueue()).isEqualTo(q);
    assertThat(broker.rabbitmqctl("list_queues", "-q", "name", "type", "arguments"))
        .containsPattern(java.util.regex.Pattern.quote(q) + "\\s+quorum")
        .doesNotContain("x-max-priority");
    Channel ch2 = connection.createChannel();
    assertThatThrownBy(
            () ->
                PriorityQueues.declare(
                    ch2, q, 3, Map.of("x-queue-type", "quorum", "x-delivery-limit", 3)))
        .isInstanceOf(PriorityQueues.PriorityQueueException.class)
        .hasMessageContaining("already exists with other arguments")
        .hasMessageContaining("x-delivery-limit");
  }
}
