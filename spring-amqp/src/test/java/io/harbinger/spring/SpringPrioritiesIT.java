package io.harbinger.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.GetResponse;
import io.harbinger.predictor.HistogramPredictor;
import io.harbinger.predictor.Keys;
import io.harbinger.predictor.Mode;
import io.harbinger.predictor.Predictor;
import io.harbinger.predictor.PredictorConfig;
import io.harbinger.predictor.PredictorTuning;
import io.harbinger.predictor.Ticker;
import io.harbinger.testing.BrokerKind;
import io.harbinger.testing.EachBroker;
import io.harbinger.testing.ProgressWait;
import io.harbinger.testing.Quietly;
import io.harbinger.testing.TestBroker;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.springframework.amqp.core.Message;
import org.springframework.amqp.core.Queue;
import org.springframework.amqp.rabbit.annotation.RabbitListener;
import org.springframework.amqp.rabbit.core.RabbitTemplate;
import org.springframework.amqp.rabbit.listener.RabbitListenerEndpointRegistry;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

/**
 * A Boot application with a {@code RabbitTemplate} and {@code @RabbitListener}s, 2 listener threads
 * and prefetch 1, learning a 2 ms and a 200 ms job type through the embedded router.
 */
class SpringPrioritiesIT {

  private static final int PER_TYPE = 10;

  private final List<ConfigurableApplicationContext> contexts = new ArrayList<>();
  private final List<String> queues = new ArrayList<>();
  private String run;
  private String reportsExchange;

  @AfterEach
  void tearDown(TestBroker broker) throws Exception {
    contexts.forEach(ConfigurableApplicationContext::close);
    try (Connection c = broker.newConnection("harbinger-it-cleanup")) {
      queues.forEach(q -> Quietly.deleteQueue(c, q));
      Quietly.deleteExchange(c, reportsExchange);
    }
  }

  /** One completed job: its type, and its publish-to-completion latency. */
  record Done(String jobType, long latencyMillis) {}

  /** The listeners: each sleeps for its job type's time and records the completion. */
  static final class Jobs {
    final Map<String, Long> millis;
    final List<Done> learn = new CopyOnWriteArrayList<>();
    final List<Done> fifo = new CopyOnWriteArrayList<>();
    final List<Done> prio = new CopyOnWriteArrayList<>();

    Jobs(Map<String, Long> millis) {
      this.millis = millis;
    }

    private void handle(Message m, List<Done> done) throws InterruptedException {
      Map<String, Object> h = m.getMessageProperties().getHeaders();
      String type = h.get("x-job-type").toString();
      Thread.sleep(millis.get(type));
      long sent = ((Number) h.get("x-test-sent-nanos")).longValue();
      done.add(new Done(type, (System.nanoTime() - sent) / 1_000_000));
    }

    @RabbitListener(id = "learn", queues = "${test.learn}")
    void learn(Message m) throws InterruptedException {
      handle(m, learn);
    }

    @RabbitListener(id = "fifo", queues = "${test.fifo}", autoStartup = "false")
    void fifo(Message m) throws InterruptedException {
      handle(m, fifo);
    }

    @RabbitListener(id = "prio", queues = "${test.prio}", autoStartup = "false")
    void prio(Message m) throws InterruptedException {
      handle(m, prio);
    }
  }

  @SpringBootConfiguration
  @EnableAutoConfiguration
  static class JobsApp {

    /** The embedded router's predictor, tuned to trust a key after a few observations. */
    @Bean
    Predictor predictor() {
      return new HistogramPredictor(
          PredictorConfig.builder().minObservations(5).keyDecay(0.8).build(),
          // The lab's hooks, so that boundaries exist after a few reports.
          PredictorTuning.builder().boundaryMinObservations(10).boundaryRefreshEvery(5).build(),
          Ticker.SYSTEM,
          Mode.PREDICTIVE);
    }

    @Bean
    Queue learnQueue(HarbingerQueues queues, @Value("${test.learn}") String name) {
      return queues.queue(name);
    }

    @Bean
    Queue prioQueue(HarbingerQueues queues, @Value("${test.prio}") String name) {
      return queues.queue(name);
    }

    /** A plain queue: no priorities, so FIFO whatever the messages carry. */
    @Bean
    Queue fifoQueue(@Value("${test.fifo}") String name) {
      return new Queue(name, true);
    }

    @Bean
    @ConditionalOnProperty("test.quorum")
    Queue quorumQueue(HarbingerQueues queues, @Value("${test.quorum}") String name) {
      return queues.queue(name, Map.of("x-queue-type", "quorum"));
    }

    @Bean
    Jobs jobs(
        @Value("${test.short-type}") String shortType,
        @Value("${test.long-type}") String longType) {
      return new Jobs(Map.of(shortType, 2L, longType, 200L));
    }
  }

  private String queue(String what) {
    String q = TestBroker.unique("spring." + what);
    queues.add(q);
    return q;
  }

  private ConfigurableApplicationContext start(TestBroker broker, String... extra) {
    reportsExchange = TestBroker.unique("spring.reports");
    run = reportsExchange.substring(reportsExchange.lastIndexOf('.') + 1);
    List<String> props =
        new ArrayList<>(
            List.of(
                "harbinger.reports-exchange=" + reportsExchange,
                "spring.rabbitmq.listener.simple.concurrency=2",
                "spring.rabbitmq.listener.simple.max-concurrency=2",
                "spring.rabbitmq.listener.simple.prefetch=1",
                "test.learn=" + queue("learn"),
                "test.prio=" + queue("prio"),
                "test.fifo=" + queue("fifo"),
                "test.short-type=reserve-" + run,
                "test.long-type=export-" + run));
    props.addAll(List.of(extra));
    ConfigurableApplicationContext context =
        BootApps.start(broker, JobsApp.class, props.toArray(String[]::new));
    contexts.add(context);
    return context;
  }

  private String shortType() {
    return "reserve-" + run;
  }

  private String longType() {
    return "export-" + run;
  }

  private static void publishPairs(
      RabbitTemplate template, String queue, String longType, String shortType, int rounds) {
    for (int i = 0; i < rounds; i++) {
      send(template, queue, longType);
      send(template, queue, shortType);
    }
  }

  private static void send(RabbitTemplate template, String queue, String jobType) {
    template.convertAndSend(
        "",
        queue,
        "job",
        m -> {
          m.getMessageProperties().setHeader("x-job-type", jobType);
          m.getMessageProperties().setHeader("x-test-sent-nanos", System.nanoTime());
          return m;
        });
  }

  private void learn(ConfigurableApplicationContext context) throws InterruptedException {
    RabbitTemplate template = context.getBean(RabbitTemplate.class);
    Predictor predictor = context.getBean(Predictor.class);
    Jobs jobs = context.getBean(Jobs.class);
    String learnQueue = context.getEnvironment().getProperty("test.learn");
    publishPairs(template, learnQueue, longType(), shortType(), 8);
    ProgressWait.on("learning messages handled", jobs.learn::size)
        .until(
            "both job types learned, or 16 messages handled",
            () -> learned(predictor) || jobs.learn.size() >= 16);
    if (!learned(predictor)) {
      publishPairs(template, learnQueue, longType(), shortType(), 8);
    }
    ProgressWait.on("observations accepted", () -> predictor.stats().accepted())
        .until("both job types learned", () -> learned(predictor));
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> learning(HealthIndicator health) {
    return (Map<String, Object>) health.health().getDetails().get("learning");
  }

  private boolean learned(Predictor predictor) {
    return predictor.peek(key(shortType())).isPredicted()
        && predictor.peek(key(longType())).isPredicted();
  }

  private static String key(String jobType) {
    return Keys.of("guest", jobType);
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
  void learnedPriorities_shortJobsOvertakeALongBacklog_andCutTheirMedianLatencyAgainstFifo(
      TestBroker broker) throws InterruptedException {
    ConfigurableApplicationContext context = start(broker);
    HealthIndicator health = context.getBean("harbingerHealthIndicator", HealthIndicator.class);
    assertThat(learning(health))
        .containsEntry("reordering", false)
        .containsEntry("trustedKeys", 0L);
    learn(context);
    Predictor predictor = context.getBean(Predictor.class);
    assertThat(predictor.peek(key(shortType())).level())
        .isLessThan(predictor.peek(key(longType())).level());
    assertThat(learning(health))
        .as("the health endpoint says that learned levels now reorder")
        .containsEntry("reordering", true)
        .containsEntry("trustedKeys", 2L)
        .containsEntry("levelsPublished", true);
    RabbitTemplate template = context.getBean(RabbitTemplate.class);
    RabbitListenerEndpointRegistry registry = context.getBean(RabbitListenerEndpointRegistry.class);
    Jobs jobs = context.getBean(Jobs.class);

    // FIFO: the same messages through the same template, into a queue without priorities.
    publishPairs(
        template,
        context.getEnvironment().getProperty("test.fifo"),
        longType(),
        shortType(),
        PER_TYPE);
    registry.getListenerContainer("fifo").start();
    ProgressWait.on("FIFO messages handled", jobs.fifo::size).untilAtLeast(2 * PER_TYPE);
    assertThat(jobs.fifo).hasSize(2 * PER_TYPE);

    // Harbinger: into the priority queue made by HarbingerQueues.
    publishPairs(
        template,
        context.getEnvironment().getProperty("test.prio"),
        longType(),
        shortType(),
        PER_TYPE);
    registry.getListenerContainer("prio").start();
    ProgressWait.on("Harbinger messages handled", jobs.prio::size).untilAtLeast(2 * PER_TYPE);
    assertThat(jobs.prio).hasSize(2 * PER_TYPE);

    // With two listener threads the last short job may finish after the first long one began.
    assertThat(jobs.prio.subList(0, PER_TYPE - 1))
        .allSatisfy(d -> assertThat(d.jobType()).isEqualTo(shortType()));
    long fifoMedian = medianMillis(jobs.fifo, shortType());
    long harbingerMedian = medianMillis(jobs.prio, shortType());
    System.out.printf(
        "Spring, %s: short-job median latency FIFO %d ms, Harbinger %d ms%n",
        broker.label(), fifoMedian, harbingerMedian);
    assertThat(harbingerMedian).isLessThan(fifoMedian / 4);
    assertThat(medianMillis(jobs.prio, longType())).isGreaterThan(harbingerMedian);

    // The application's own meters show it per level: the queue wait and handler time of every
    // job, at the level it was published at.
    MeterRegistry meters = context.getBean(MeterRegistry.class);
    String shortLevel = Integer.toString(predictor.peek(key(shortType())).level());
    String longLevel = Integer.toString(predictor.peek(key(longType())).level());
    ProgressWait.on(
            "jobs timed",
            () ->
                meters.get("harbinger.client.queue.wait").timers().stream()
                    .mapToLong(t -> t.count())
                    .sum())
        .untilAtLeast(jobs.learn.size() + 4L * PER_TYPE);
    Timer shortHandler =
        meters
            .get("harbinger.client.handler")
            .tag("level", shortLevel)
            .tag("result", "ack")
            .timer();
    Timer longHandler =
        meters.get("harbinger.client.handler").tag("level", longLevel).tag("result", "ack").timer();
    assertThat(shortHandler.count()).isGreaterThanOrEqualTo(PER_TYPE);
    assertThat(longHandler.count()).isGreaterThanOrEqualTo(PER_TYPE);
    assertThat(longHandler.mean(TimeUnit.MILLISECONDS))
        .isGreaterThan(10 * shortHandler.mean(TimeUnit.MILLISECONDS));
  }

  /** Drains a queue with basic.get and returns the job types and priorities in delivery order. */
  private static List<GetResponse> drain(TestBroker broker, String queue, int expected)
      throws Exception {
    List<GetResponse> got = new ArrayList<>();
    try (Connection c = broker.newConnection("harbinger-it-drain")) {
      Channel ch = c.createChannel();
      ProgressWait.on("messages drained", got::size)
          .until(
              expected + " messages drained",
              () -> {
                GetResponse r;
                while ((r = ch.basicGet(queue, true)) != null) {
                  got.add(r);
                }
                return got.size() >= expected;
              });
    }
    return got;
  }

  /**
   * On RabbitMQ 4.0 a quorum queue made by HarbingerQueues has two priorities: learned-short keys
   * go high (5), everything else an explicit normal (4), and the high ones take two of every three
   * deliveries.
   */
  @EachBroker(BrokerKind.RABBITMQ_4)
  void quorumQueueOn4_getsTheTwoLevelMapping_andShortJobsTakeTwoInThree(TestBroker broker)
      throws Exception {
    String quorum = queue("quorum");
    ConfigurableApplicationContext context = start(broker, "test.quorum=" + quorum);
    // Only level 0 is "high" here. With two job types in equal numbers the lower tertile can fall
    // inside the short type's own durations, which may then sit at level 1; a third job type of
    // another producer, in between, puts the boundaries between the classes as a real mix does.
    Predictor predictor = context.getBean(Predictor.class);
    for (int i = 0; i < 30; i++) {
      predictor.observe(Keys.of("other-producer", "mid-" + run), 40_000_000 + i * 10_000);
    }
    learn(context);
    RabbitTemplate template = context.getBean(RabbitTemplate.class);
    for (int i = 0; i < 2 * PER_TYPE; i++) {
      send(template, quorum, longType());
    }
    for (int i = 0; i < PER_TYPE; i++) {
      send(template, quorum, shortType());
    }

    List<GetResponse> order = drain(broker, quorum, 3 * PER_TYPE);
    List<String> types =
        order.stream().map(r -> r.getProps().getHeaders().get("x-job-type").toString()).toList();
    System.out.println("Spring, quorum queue on " + broker.label() + ": " + types);
    assertThat(order)
        .allSatisfy(
            r ->
                assertThat(r.getProps().getPriority())
                    .isEqualTo(
                        r.getProps().getHeaders().get("x-job-type").toString().equals(shortType())
                            ? 5
                            : 4));
    assertThat(types.subList(0, 3 * PER_TYPE / 2))
        .filteredOn(shortType()::equals)
        .hasSize(PER_TYPE);
  }

  @EachBroker(BrokerKind.RABBITMQ_3)
  void quorumQueueOn3_failsTheStartWithTheAdaptersMessage(TestBroker broker) {
    String quorum = queue("quorum");
    assertThatThrownBy(() -> start(broker, "test.quorum=" + quorum))
        .rootCause()
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(
            "queue '"
                + quorum
                + "' cannot be a quorum queue with priorities: quorum queues have no"
                + " message priorities on RabbitMQ 3.10.8")
        .hasMessageContaining("'" + quorum + ".prio'");
  }
}
