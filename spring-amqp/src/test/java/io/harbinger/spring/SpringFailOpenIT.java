package io.harbinger.spring;

import static org.assertj.core.api.Assertions.assertThat;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.GetResponse;
import io.harbinger.rabbit.HarbingerHeaders;
import io.harbinger.testing.EachBroker;
import io.harbinger.testing.ProgressWait;
import io.harbinger.testing.Quietly;
import io.harbinger.testing.TestBroker;
import io.micrometer.core.instrument.MeterRegistry;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.springframework.amqp.core.Message;
import org.springframework.amqp.core.MessageProperties;
import org.springframework.amqp.core.Queue;
import org.springframework.amqp.rabbit.annotation.RabbitListener;
import org.springframework.amqp.rabbit.core.RabbitTemplate;
import org.springframework.amqp.rabbit.listener.RabbitListenerEndpointRegistry;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

/**
 * What a Boot application sees when Harbinger cannot help: no router, an unreachable sidecar, or
 * {@code harbinger.mode=off}.
 */
class SpringFailOpenIT {

  private static final int MESSAGES = 20;

  private final List<ConfigurableApplicationContext> contexts = new ArrayList<>();
  private final List<String> queues = new ArrayList<>();
  private final List<String> exchanges = new ArrayList<>();

  /** Returns a reports exchange of the test's own, deleted after it. */
  private String exchange(String what) {
    String e = TestBroker.unique(what);
    exchanges.add(e);
    return e;
  }

  @AfterEach
  void tearDown(TestBroker broker) throws Exception {
    contexts.forEach(ConfigurableApplicationContext::close);
    try (Connection c = broker.newConnection("harbinger-it-cleanup")) {
      queues.forEach(q -> Quietly.deleteQueue(c, q));
      exchanges.forEach(e -> Quietly.deleteExchange(c, e));
    }
  }

  /** A producer with one Harbinger queue. */
  @SpringBootConfiguration
  @EnableAutoConfiguration
  static class ProducerApp {
    @Bean
    Queue jobs(HarbingerQueues queues, @Value("${test.queue}") String name) {
      return queues.queue(name);
    }
  }

  /** What one delivered message looked like. */
  record Seen(String id, Integer priority, String userId, Map<String, Object> headers) {}

  /** A producer and a single-threaded listener on a classic priority queue. */
  @SpringBootConfiguration
  @EnableAutoConfiguration
  static class OrderApp {
    final List<Seen> seen = new CopyOnWriteArrayList<>();

    @Bean
    Queue jobs(HarbingerQueues queues, @Value("${test.queue}") String name) {
      return queues.queue(name);
    }

    @RabbitListener(id = "order", queues = "${test.queue}", autoStartup = "false")
    void consume(Message m) {
      MessageProperties p = m.getMessageProperties();
      seen.add(new Seen(p.getMessageId(), p.getPriority(), p.getReceivedUserId(), p.getHeaders()));
    }
  }

  /** The same application without Harbinger's auto-configuration: the reference. */
  @SpringBootConfiguration
  @EnableAutoConfiguration(exclude = HarbingerAutoConfiguration.class)
  static class PlainOrderApp {
    final List<Seen> seen = new CopyOnWriteArrayList<>();

    @Bean
    Queue jobs(@Value("${test.queue}") String name) {
      return new Queue(name, true, false, false, Map.of("x-max-priority", 2));
    }

    @RabbitListener(id = "order", queues = "${test.queue}", autoStartup = "false")
    void consume(Message m) {
      MessageProperties p = m.getMessageProperties();
      seen.add(new Seen(p.getMessageId(), p.getPriority(), p.getReceivedUserId(), p.getHeaders()));
    }
  }

  private String queue(String what) {
    String q = TestBroker.unique("spring.failopen." + what);
    queues.add(q);
    return q;
  }

  private static int closedPort() throws Exception {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

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
      assertThat(ch.basicGet(queue, true)).isNull();
    }
    return got;
  }

  @EachBroker
  void routerAbsentOrUnreachable_everyMessageIsSentAtTheDefaultLevel(TestBroker broker)
      throws Exception {
    List<List<String>> routers =
        List.of(
            List.of("harbinger.router.kind=none"),
            List.of(
                "harbinger.router.kind=sidecar",
                "harbinger.router.sidecar.address=127.0.0.1:" + closedPort()));
    for (List<String> router : routers) {
      String q = queue("default");
      List<String> props = new ArrayList<>(router);
      props.add("test.queue=" + q);
      props.add("harbinger.reports-exchange=" + exchange("spring.failopen.reports"));
      ConfigurableApplicationContext context =
          BootApps.start(broker, ProducerApp.class, props.toArray(String[]::new));
      contexts.add(context);
      RabbitTemplate template = context.getBean(RabbitTemplate.class);
      for (int i = 0; i < MESSAGES; i++) {
        String jobType = i % 2 == 0 ? "reserve" : "export";
        template.convertAndSend(
            "",
            q,
            "job " + i,
            m -> {
              m.getMessageProperties().setHeader("x-job-type", jobType);
              return m;
            });
      }

      List<GetResponse> got = drain(broker, q, MESSAGES);
      assertThat(got)
          .as("router %s", router)
          .hasSize(MESSAGES)
          .allSatisfy(
              r -> {
                assertThat(r.getProps().getPriority()).isEqualTo(1);
                assertThat(r.getProps().getUserId()).isEqualTo("guest");
                assertThat(r.getProps().getHeaders().get(HarbingerHeaders.STAMP).toString())
                    .startsWith("v1;l=1;");
              });
      HarbingerRuntime runtime = context.getBean(HarbingerRuntime.class);
      assertThat(runtime.stats().published()).isEqualTo(MESSAGES);
      HealthIndicator health = context.getBean("harbingerHealthIndicator", HealthIndicator.class);
      assertThat(health.health().getStatus()).isEqualTo(Status.UNKNOWN);
      assertThat(health.health().getDetails()).containsEntry("routerConnected", false);
      assertThat(
              context
                  .getBean(MeterRegistry.class)
                  .get("harbinger.client.published")
                  .functionCounter()
                  .count())
          .isEqualTo(MESSAGES);
      context.close();
    }
  }

  private static List<Seen> publishThenConsume(
      ConfigurableApplicationContext context, List<Seen> seen, String queue)
      throws InterruptedException {
    RabbitTemplate template = context.getBean(RabbitTemplate.class);
    for (int i = 0; i < MESSAGES; i++) {
      int n = i;
      template.convertAndSend(
          "",
          queue,
          "job " + n,
          m -> {
            MessageProperties p = m.getMessageProperties();
            p.setMessageId("m" + n);
            p.setHeader("x-job-type", n % 3 == 0 ? "export" : "reserve");
            if (n % 4 == 0) {
              p.setPriority(2);
            }
            return m;
          });
    }
    context.getBean(RabbitListenerEndpointRegistry.class).getListenerContainer("order").start();
    ProgressWait.on("messages consumed", seen::size).untilAtLeast(MESSAGES);
    assertThat(seen).hasSize(MESSAGES);
    return List.copyOf(seen);
  }

  @EachBroker
  void modeOff_templateAndContainerBehaveAsAPlainApplication(TestBroker broker)
      throws InterruptedException {
    String[] common = {
      "spring.rabbitmq.listener.simple.prefetch=1",
      "harbinger.reports-exchange=" + exchange("spring.failopen.reports")
    };
    String plainQueue = queue("plain");
    ConfigurableApplicationContext plain =
        BootApps.start(broker, PlainOrderApp.class, with(common, "test.queue=" + plainQueue));
    contexts.add(plain);
    List<Seen> reference =
        publishThenConsume(plain, plain.getBean(PlainOrderApp.class).seen, plainQueue);

    String offQueue = queue("off");
    ConfigurableApplicationContext off =
        BootApps.start(
            broker, OrderApp.class, with(common, "test.queue=" + offQueue, "harbinger.mode=off"));
    contexts.add(off);
    assertThat(off.getBeanNamesForType(HarbingerStamping.class)).isEmpty();
    assertThat(off.getBeanNamesForType(HarbingerListenerAdvice.class)).isEmpty();
    List<Seen> withOff = publishThenConsume(off, off.getBean(OrderApp.class).seen, offQueue);

    String onQueue = queue("on");
    ConfigurableApplicationContext on =
        BootApps.start(broker, OrderApp.class, with(common, "test.queue=" + onQueue));
    contexts.add(on);
    List<Seen> withOn = publishThenConsume(on, on.getBean(OrderApp.class).seen, onQueue);

    assertThat(withOff).isEqualTo(reference);
    // The comparison notices Harbinger: switched on, it stamps headers and priorities.
    assertThat(withOn).isNotEqualTo(reference);
    assertThat(withOn.get(withOn.size() - 1).headers()).containsKey(HarbingerHeaders.STAMP);
  }

  private static String[] with(String[] common, String... more) {
    List<String> all = new ArrayList<>(List.of(common));
    all.addAll(List.of(more));
    return all.toArray(String[]::new);
  }
}
