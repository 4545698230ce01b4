package io.harbinger.boot3;

import static org.assertj.core.api.Assertions.assertThat;

import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import io.harbinger.predictor.HistogramPredictor;
import io.harbinger.predictor.Keys;
import io.harbinger.predictor.Mode;
import io.harbinger.predictor.Predictor;
import io.harbinger.predictor.PredictorConfig;
import io.harbinger.predictor.PredictorTuning;
import io.harbinger.predictor.Ticker;
import io.harbinger.spring.HarbingerQueues;
import io.harbinger.spring.HarbingerRabbitTemplate;
import io.harbinger.spring.HarbingerStamping;
import io.harbinger.testing.EachBroker;
import io.harbinger.testing.ProgressWait;
import io.harbinger.testing.Quietly;
import io.harbinger.testing.TestBroker;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.springframework.amqp.core.AmqpAdmin;
import org.springframework.amqp.core.Declarables;
import org.springframework.amqp.core.Message;
import org.springframework.amqp.core.Queue;
import org.springframework.amqp.rabbit.annotation.RabbitListener;
import org.springframework.amqp.rabbit.core.RabbitTemplate;
import org.springframework.amqp.rabbit.listener.RabbitListenerEndpointRegistry;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.SpringBootVersion;
import org.springframework.boot.actuate.health.CompositeHealth;
import org.springframework.boot.actuate.health.Health;
import org.springframework.boot.actuate.health.HealthComponent;
import org.springframework.boot.actuate.health.HealthEndpoint;
import org.springframework.boot.actuate.health.Status;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

/**
 * The starter in a Spring Boot 3.5 application, with the versions Boot 3.5 selects: the template
 * stamps, the listener is timed, the embedded router learns a 2 ms and a 200 ms job type, and then
 * short jobs published behind a backlog of long ones are delivered first; the actuator's health
 * shows Harbinger's component and its learning, and the meters are registered.
 */
class SpringBoot3IT {

  private static final int PER_TYPE = 10;

  private final List<String> queues = new ArrayList<>();
  private ConfigurableApplicationContext context;
  private String reportsExchange;

  @AfterEach
  void tearDown(TestBroker broker) throws Exception {
    if (context != null) {
      context.close();
    }
    try (Connection c = broker.newConnection("harbinger-it-cleanup")) {
      queues.forEach(q -> Quietly.deleteQueue(c, q));
      Quietly.deleteExchange(c, reportsExchange);
    }
  }

  /** The listeners: each sleeps for its job type's time and records the type. */
  static final class Jobs {
    final Map<String, Long> millis;
    final List<String> learned = new CopyOnWriteArrayList<>();
    final List<String> ordered = new CopyOnWriteArrayList<>();

    Jobs(Map<String, Long> millis) {
      this.millis = millis;
    }

    private void handle(Message m, List<String> done) throws InterruptedException {
      String type = m.getMessageProperties().getHeaders().get("x-job-type").toString();
      Thread.sleep(millis.get(type));
      done.add(type);
    }

    @RabbitListener(id = "learn", queues = "${test.learn}")
    void learn(Message m) throws InterruptedException {
      handle(m, learned);
    }

    @RabbitListener(id = "ordered", queues = "${test.ordered}", autoStartup = "false")
    void ordered(Message m) throws InterruptedException {
      handle(m, ordered);
    }

    final List<String> laned = new CopyOnWriteArrayList<>();

    @RabbitListener(id = "lanes", queues = "${test.lanes}", autoStartup = "false")
    void lanes(Message m) throws InterruptedException {
      handle(m, laned);
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
          PredictorTuning.builder().boundaryMinObservations(10).boundaryRefreshEvery(5).build(),
          Ticker.SYSTEM,
          Mode.PREDICTIVE);
    }

    @Bean
    Queue learnQueue(HarbingerQueues queues, @Value("${test.learn}") String name) {
      return queues.queue(name);
    }

    @Bean
    Queue orderedQueue(HarbingerQueues queues, @Value("${test.ordered}") String name) {
      return queues.queue(name);
    }

    @Bean
    Declarables lanes(HarbingerQueues queues, @Value("${test.lanes}") String name) {
      return queues.lanes(name);
    }

    @Bean
    Jobs jobs(@Value("${test.short}") String shortType, @Value("${test.long}") String longType) {
      return new Jobs(Map.of(shortType, 2L, longType, 200L));
    }
  }

  @EachBroker
  void onSpringBoot3_theStarterLearns_andShortJobsOvertakeALongBacklog(TestBroker broker)
      throws InterruptedException {
    assertThat(SpringBootVersion.getVersion()).startsWith("3.5.");
    reportsExchange = TestBroker.unique("boot3.reports");
    String run = reportsExchange.substring(reportsExchange.lastIndexOf('.') + 1);
    String shortType = "reserve-" + run;
    String longType = "export-" + run;
    String learnQueue = queue("learn");
    String orderedQueue = queue("ordered");
    String lanesQueue = queue("lanes");
    for (int level = 0; level < 2; level++) {
      queues.add(lanesQueue + ".lane-" + level);
    }
    ConnectionFactory f = broker.factory();
    context =
        new SpringApplicationBuilder(JobsApp.class)
            .properties(
                "spring.main.web-application-type=none",
                "spring.main.banner-mode=off",
                "spring.rabbitmq.host=" + f.getHost(),
                "spring.rabbitmq.port=" + f.getPort(),
                "spring.rabbitmq.username=" + f.getUsername(),
                "spring.rabbitmq.password=" + f.getPassword(),
                "spring.rabbitmq.virtual-host=" + f.getVirtualHost(),
                "spring.rabbitmq.listener.simple.prefetch=1",
                "management.endpoint.health.show-details=always",
                "harbinger.reports-exchange=" + reportsExchange,
                "test.learn=" + learnQueue,
                "test.ordered=" + orderedQueue,
                "test.lanes=" + lanesQueue,
                "test.short=" + shortType,
                "test.long=" + longType)
            .run();

    RabbitTemplate template = context.getBean(RabbitTemplate.class);
    assertThat(template)
        .as("Spring Boot 3's template configured by Harbinger, to publish into lanes")
        .isInstanceOf(HarbingerRabbitTemplate.class);
    assertThat(template.getBeforePublishPostProcessors())
        .anyMatch(HarbingerStamping.class::isInstance);
    Predictor predictor = context.getBean(Predictor.class);
    Jobs jobs = context.getBean(Jobs.class);

    for (int i = 0; i < 8; i++) {
      send(template, learnQueue, longType);
      send(template, learnQueue, shortType);
    }
    ProgressWait.on("observations accepted", () -> predictor.stats().accepted())
        .until(
            "both job types learned",
            () ->
                predictor.peek(Keys.of("guest", shortType)).isPredicted()
                    && predictor.peek(Keys.of("guest", longType)).isPredicted());
    assertThat(predictor.peek(Keys.of("guest", shortType)).level())
        .isLessThan(predictor.peek(Keys.of("guest", longType)).level());

    // Right after learning, the actuator's health says both job types are trusted (later reports
    // may move a key out of trust again; that is the predictor's business, not this test's).
    HealthComponent component =
        ((CompositeHealth) context.getBean(HealthEndpoint.class).health())
            .getComponents()
            .get("harbinger");
    assertThat(component).as("Harbinger's component of the actuator's health").isNotNull();
    Health health = (Health) component;
    assertThat(health.getStatus()).isEqualTo(Status.UP);
    assertThat(health.getDetails()).containsEntry("mode", "predictive");
    @SuppressWarnings("unchecked")
    Map<String, Object> learning = (Map<String, Object>) health.getDetails().get("learning");
    assertThat(learning).containsEntry("reordering", true).containsEntry("trustedKeys", 2L);

    for (int i = 0; i < PER_TYPE; i++) {
      send(template, orderedQueue, longType);
    }
    for (int i = 0; i < PER_TYPE; i++) {
      send(template, orderedQueue, shortType);
    }
    AmqpAdmin admin = context.getBean(AmqpAdmin.class);
    ProgressWait.on("messages queued", () -> admin.getQueueInfo(orderedQueue).getMessageCount())
        .untilAtLeast(2 * PER_TYPE);
    context.getBean(RabbitListenerEndpointRegistry.class).getListenerContainer("ordered").start();
    ProgressWait.on("messages handled", jobs.ordered::size).untilAtLeast(2 * PER_TYPE);
    System.out.println("Spring Boot " + SpringBootVersion.getVersion() + ": " + jobs.ordered);
    assertThat(jobs.ordered.subList(0, PER_TYPE)).containsOnly(shortType);
    assertThat(jobs.ordered).hasSize(2 * PER_TYPE);

    // Lanes: the same backlog through the template goes to the lanes of its levels, and the
    // listener takes the short lane first.
    for (int i = 0; i < PER_TYPE; i++) {
      send(template, lanesQueue, longType);
    }
    for (int i = 0; i < PER_TYPE; i++) {
      send(template, lanesQueue, shortType);
    }
    String shortLane = lane(lanesQueue, predictor.peek(Keys.of("guest", shortType)).level());
    String longLane = lane(lanesQueue, predictor.peek(Keys.of("guest", longType)).level());
    ProgressWait.on(
            "short jobs in their lane", () -> admin.getQueueInfo(shortLane).getMessageCount())
        .untilAtLeast(PER_TYPE);
    ProgressWait.on("long jobs in their lane", () -> admin.getQueueInfo(longLane).getMessageCount())
        .untilAtLeast(PER_TYPE);
    context.getBean(RabbitListenerEndpointRegistry.class).getListenerContainer("lanes").start();
    ProgressWait.on("lanes messages handled", jobs.laned::size).untilAtLeast(2 * PER_TYPE);
    System.out.println("Spring Boot " + SpringBootVersion.getVersion() + ", lanes: " + jobs.laned);
    assertThat(jobs.laned).hasSize(2 * PER_TYPE);
    // Weighted lanes give the long level its share: most short jobs come first, not all.
    assertThat(jobs.laned.subList(0, PER_TYPE).stream().filter(shortType::equals).count())
        .isGreaterThanOrEqualTo(PER_TYPE / 2 + 1);
    assertThat(jobs.laned.lastIndexOf(shortType)).isLessThan(2 * PER_TYPE - 1);

    MeterRegistry meters = context.getBean(MeterRegistry.class);
    ProgressWait.on(
            "jobs timed",
            () ->
                meters.get("harbinger.client.handler").timers().stream()
                    .mapToLong(t -> t.count())
                    .sum())
        .untilAtLeast(jobs.learned.size() + 2L * PER_TYPE);
  }

  /** The lane of a level, with the default 3 levels: the last is the queue itself. */
  private static String lane(String queue, int level) {
    return level == 2 ? queue : queue + ".lane-" + level;
  }

  private String queue(String what) {
    String q = TestBroker.unique("boot3." + what);
    queues.add(q);
    return q;
  }

  private static void send(RabbitTemplate template, String queue, String jobType) {
    template.convertAndSend(
        "",
        queue,
        "job",
        m -> {
          m.getMessageProperties().setHeader("x-job-type", jobType);
          return m;
        });
  }
}
