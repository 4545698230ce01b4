package io.harbinger.spring;

import static org.assertj.core.api.Assertions.assertThat;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import io.harbinger.predictor.HistogramPredictor;
import io.harbinger.predictor.Keys;
import io.harbinger.predictor.Mode;
import io.harbinger.predictor.Predictor;
import io.harbinger.predictor.PredictorConfig;
import io.harbinger.predictor.PredictorTuning;
import io.harbinger.predictor.Ticker;
import io.harbinger.rabbit.LaneLayout;
import io.harbinger.rabbit.Lanes;
import io.harbinger.testing.EachBroker;
import io.harbinger.testing.ProgressWait;
import io.harbinger.testing.Quietly;
import io.harbinger.testing.TestBroker;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.springframework.amqp.core.Declarables;
import org.springframework.amqp.core.Message;
import org.springframework.amqp.core.Queue;
import org.springframework.amqp.rabbit.annotation.RabbitListener;
import org.springframework.amqp.rabbit.connection.CorrelationData;
import org.springframework.amqp.rabbit.core.RabbitTemplate;
import org.springframework.amqp.rabbit.listener.RabbitListenerEndpointRegistry;
import org.springframework.amqp.support.AmqpHeaders;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.messaging.handler.annotation.Header;

/**
 * Lanes in a Boot application: declared with {@code HarbingerQueues.lanes}, published to through
 * the auto-configured {@code RabbitTemplate}, consumed by a {@code @RabbitListener} at prefetch 1,
 * on classic and quorum lanes, with automatic and manual acknowledgements.
 */
class SpringLanesIT {

  private static final int PER_TYPE = 6;

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

  /** One received job: its type and id. */
  record Received(String jobType, String id) {}

  /** The listeners: each sleeps for its job type's time and records what it received. */
  static final class Jobs {
    final Map<String, Long> millis;
    final boolean manualAck;
    final List<Received> learned = new CopyOnWriteArrayList<>();
    final List<Received> lanes = new CopyOnWriteArrayList<>();

    Jobs(Map<String, Long> millis, boolean manualAck) {
      this.millis = millis;
      this.manualAck = manualAck;
    }

    private void handle(Message m, List<Received> into) throws InterruptedException {
      Map<String, Object> h = m.getMessageProperties().getHeaders();
      String type = h.get("x-job-type").toString();
      into.add(new Received(type, String.valueOf(h.get("x-test-id"))));
      Thread.sleep(millis.get(type));
    }

    @RabbitListener(id = "learn", queues = "${test.learn}")
    void learn(Message m) throws InterruptedException {
      handle(m, learned);
    }

    @RabbitListener(
        id = "lanes",
        queues = "${test.lanes}",
        autoStartup = "false",
        ackMode = "${test.ack-mode}")
    void lanes(Message m, Channel channel, @Header(AmqpHeaders.DELIVERY_TAG) long tag)
        throws InterruptedException, IOException {
      handle(m, lanes);
      if (manualAck) {
        channel.basicAck(tag, false);
      }
    }
  }

  @SpringBootConfiguration
  @EnableAutoConfiguration
  static class LanesApp {

    /** The embedded router's predictor, tuned to trust a key after a few observations. */
    @Bean
    Predictor predictor() {
      return new HistogramPredictor(
          PredictorConfig.builder().minObservations(5).keyDecay(0.8).build(),
          PredictorTuning.builder().boundaryMinObservations(10).boundaryRefreshEvery(5).build(),
          Ticker.SYSTEM,
          Mode.PREDICTIVE);
    }

    /** A plain queue to learn from. */
    @Bean
    Queue learnQueue(@Value("${test.learn}") String name) {
      return new Queue(name, true);
    }

    @Bean
    Declarables lanes(
        HarbingerQueues queues,
        @Value("${test.lanes}") String name,
        @Value("${test.queue-type}") String type) {
      return queues.lanes(name, Map.of("x-queue-type", type));
    }

    @Bean
    Jobs jobs(
        @Value("${test.short-type}") String shortType,
        @Value("${test.long-type}") String longType,
        @Value("${test.ack-mode}") String ackMode) {
      return new Jobs(Map.of(shortType, 2L, longType, 150L), "MANUAL".equals(ackMode));
    }
  }

  private String queue(String what) {
    String q = TestBroker.unique("spring." + what);
    queues.add(q);
    return q;
  }

  private ConfigurableApplicationContext start(TestBroker broker, String type, String ackMode) {
    reportsExchange = TestBroker.unique("spring.reports");
    run = reportsExchange.substring(reportsExchange.lastIndexOf('.') + 1);
    String lanes = queue("lanes");
    queues.add(lanes + LaneLayout.LANE_SUFFIX + 0);
    queues.add(lanes + LaneLayout.LANE_SUFFIX + 1);
    ConfigurableApplicationContext context =
        BootApps.start(
            broker,
            LanesApp.class,
            "harbinger.reports-exchange=" + reportsExchange,
            "spring.rabbitmq.listener.simple.concurrency=1",
            "spring.rabbitmq.listener.simple.prefetch=1",
            "spring.rabbitmq.publisher-confirm-type=correlated",
            "spring.rabbitmq.template.mandatory=true",
            "test.learn=" + queue("learn"),
            "test.lanes=" + lanes,
            "test.queue-type=" + type,
            "test.ack-mode=" + ackMode,
            "test.short-type=reserve-" + run,
            "test.long-type=export-" + run);
    contexts.add(context);
    return context;
  }

  private String shortType() {
    return "reserve-" + run;
  }

  private String longType() {
    return "export-" + run;
  }

  private static CorrelationData send(
      RabbitTemplate template, String queue, String jobType, String id) {
    CorrelationData correlation = new CorrelationData(id);
    template.convertAndSend(
        "",
        queue,
        "job",
        m -> {
          m.getMessageProperties().setHeader("x-job-type", jobType);
          m.getMessageProperties().setHeader("x-test-id", id);
          return m;
        },
        correlation);
    return correlation;
  }

  private void learn(ConfigurableApplicationContext context) throws InterruptedException {
    RabbitTemplate template = context.getBean(RabbitTemplate.class);
    Predictor predictor = context.getBean(Predictor.class);
    Jobs jobs = context.getBean(Jobs.class);
    String learnQueue = context.getEnvironment().getProperty("test.learn");
    int sent = 0;
    while (!learned(predictor)) {
      for (int i = 0; i < 8; i++) {
        send(template, learnQueue, longType(), "learn-" + sent++);
        send(template, learnQueue, shortType(), "learn-" + sent++);
      }
      int target = sent;
      ProgressWait.on("observations accepted", () -> predictor.stats().accepted())
          .until(
              "both job types learned, or every learning message handled",
              () -> learned(predictor) || jobs.learned.size() >= target);
    }
    ProgressWait.on("learning messages handled", jobs.learned::size).untilAtLeast(sent);
    // Every learning report reached the predictor, so the levels hold while the lanes fill.
    ProgressWait.on("observations", () -> observations(predictor)).untilAtLeast(sent);
  }

  private static long observations(Predictor predictor) {
    var s = predictor.stats();
    return s.accepted() + s.censored() + s.rejectedKeys() + s.rejectedDurations();
  }

  private boolean learned(Predictor predictor) {
    return predictor.peek(Keys.of("guest", shortType())).isPredicted()
        && predictor.peek(Keys.of("guest", longType())).isPredicted();
  }

  private static long ready(TestBroker broker, String queue) throws Exception {
    try (Connection c = broker.newConnection("harbinger-it-count")) {
      return c.createChannel().queueDeclarePassive(queue).getMessageCount();
    }
  }

  private void shortJobsOvertakeALongBacklog(TestBroker broker, String type, String ackMode)
      throws Exception {
    ConfigurableApplicationContext context = start(broker, type, ackMode);
    learn(context);
    Predictor predictor = context.getBean(Predictor.class);
    int shortLevel = predictor.peek(Keys.of("guest", shortType())).level();
    int longLevel = predictor.peek(Keys.of("guest", longType())).level();
    assertThat(shortLevel).isLessThan(longLevel);
    RabbitTemplate template = context.getBean(RabbitTemplate.class);
    assertThat(template).isInstanceOf(HarbingerRabbitTemplate.class);
    String logical = context.getEnvironment().getProperty("test.lanes");
    LaneLayout layout = Lanes.layoutOf(logical);
    MeterRegistry meters = context.getBean(MeterRegistry.class);
    Jobs jobs = context.getBean(Jobs.class);
    long timedBefore =
        ProgressWait.on("learning jobs timed", () -> timed(meters))
            .untilAtLeast(jobs.learned.size());
    assertThat(timedBefore).isEqualTo(jobs.learned.size());

    // A backlog of long jobs, then short ones, through the application's template, confirmed.
    List<CorrelationData> confirms = new ArrayList<>();
    for (int i = 0; i < PER_TYPE; i++) {
      confirms.add(send(template, logical, longType(), "long-" + i));
    }
    for (int i = 0; i < PER_TYPE; i++) {
      confirms.add(send(template, logical, shortType(), "short-" + i));
    }
    for (CorrelationData c : confirms) {
      assertThat(c.getFuture().get(30, TimeUnit.SECONDS).ack()).isTrue();
      assertThat(c.getReturned()).isNull();
    }
    String shortLane = layout.laneName(shortLevel);
    String longLane = layout.laneName(longLevel);
    ProgressWait.on("messages in the lanes", () -> countQuietly(broker, layout))
        .untilAtLeast(2L * PER_TYPE);
    assertThat(ready(broker, shortLane)).as(shortLane).isEqualTo(PER_TYPE);
    assertThat(ready(broker, longLane)).as(longLane).isEqualTo(PER_TYPE);

    context.getBean(RabbitListenerEndpointRegistry.class).getListenerContainer("lanes").start();
    ProgressWait.on("lanes messages handled", jobs.lanes::size).untilAtLeast(2L * PER_TYPE);
    ProgressWait.on("jobs timed", () -> timed(meters)).untilAtLeast(timedBefore + 2L * PER_TYPE);

    List<String> order = jobs.lanes.stream().map(Received::jobType).toList();
    System.out.printf("Spring lanes, %s, %s %s: %s%n", broker.label(), type, ackMode, order);
    assertThat(jobs.lanes).extracting(Received::id).doesNotHaveDuplicates().hasSize(2 * PER_TYPE);
    // Published after every long job, the short ones overtake most of them: in FIFO order the last
    // short job would be received last, after all six long ones; weighted lanes give the long
    // level its share of the worker, so a few long jobs may come first.
    assertThat(order.lastIndexOf(shortType())).isLessThanOrEqualTo(PER_TYPE + 3);
    assertThat(order.subList(0, PER_TYPE)).filteredOn(shortType()::equals).hasSizeGreaterThan(3);
    // Every delivery was timed once: by the channel that chose it, not again by the advice.
    assertThat(timed(meters)).isEqualTo(timedBefore + 2L * PER_TYPE);

    // A mandatory message whose lane does not exist comes back, naming the lane.
    String missing = TestBroker.unique("spring.lanes.missing");
    Lanes.declared(Lanes.layout(missing, layout.levels(), Map.of()));
    CorrelationData returned = send(template, missing, shortType(), "returned");
    assertThat(returned.getFuture().get(30, TimeUnit.SECONDS).ack()).isTrue();
    assertThat(returned.getReturned()).isNotNull();
    Map<String, Object> headers =
        returned.getReturned().getMessage().getMessageProperties().getHeaders();
    assertThat(headers).containsEntry("x-test-id", "returned");
    java.util.regex.Matcher stamped =
        java.util.regex.Pattern.compile("^v1;l=(\\d);m=p;")
            .matcher(String.valueOf(headers.get("x-harbinger")));
    assertThat(stamped.find()).as("stamp %s", headers.get("x-harbinger")).isTrue();
    int returnedLevel = Integer.parseInt(stamped.group(1));
    assertThat(returnedLevel).isLessThan(layout.levels() - 1);
    assertThat(returned.getReturned().getRoutingKey())
        .isEqualTo(Lanes.layoutOf(missing).laneName(returnedLevel));

    // Acknowledged: nothing comes back to any lane once the application has stopped.
    context.close();
    for (String lane : layout.laneNames()) {
      assertThat(ready(broker, lane)).as(lane).isZero();
    }
  }

  private static long timed(MeterRegistry meters) {
    return meters.get("harbinger.client.queue.wait").timers().stream()
        .mapToLong(t -> t.count())
        .sum();
  }

  private static long countQuietly(TestBroker broker, LaneLayout layout) {
    long n = 0;
    try {
      for (String lane : layout.laneNames()) {
        n += ready(broker, lane);
      }
    } catch (Exception e) {
      return -1;
    }
    return n;
  }

  @EachBroker
  void classicLanes_autoAck_shortJobsOvertakeALongBacklog_eachReceivedOnceAndAcked(
      TestBroker broker) throws Exception {
    shortJobsOvertakeALongBacklog(broker, "classic", "AUTO");
  }

  @EachBroker
  void quorumLanes_manualAck_shortJobsOvertakeALongBacklog_eachReceivedOnceAndAcked(
      TestBroker broker) throws Exception {
    shortJobsOvertakeALongBacklog(broker, "quorum", "MANUAL");
  }
}
