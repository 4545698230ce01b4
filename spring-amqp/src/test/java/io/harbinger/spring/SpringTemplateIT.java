package io.harbinger.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.GetResponse;
import io.harbinger.rabbit.HarbingerHeaders;
import io.harbinger.testing.EachBroker;
import io.harbinger.testing.ProgressWait;
import io.harbinger.testing.Quietly;
import io.harbinger.testing.TestBroker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.springframework.amqp.core.Message;
import org.springframework.amqp.core.MessageBuilder;
import org.springframework.amqp.core.Queue;
import org.springframework.amqp.core.ReturnedMessage;
import org.springframework.amqp.rabbit.connection.CorrelationData;
import org.springframework.amqp.rabbit.core.RabbitTemplate;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

/**
 * Every way a {@code RabbitTemplate} publishes is stamped: {@code convertAndSend}, {@code send},
 * {@code invoke}, with publisher confirms, and a returned message carries the stamp too.
 */
class SpringTemplateIT {

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

  @SpringBootConfiguration
  @EnableAutoConfiguration
  static class ProducerApp {
    @Bean
    Queue jobs(HarbingerQueues queues, @Value("${test.queue}") String name) {
      return queues.queue(name);
    }
  }

  private static Message message(String jobType) {
    return MessageBuilder.withBody(jobType.getBytes())
        .setHeader("x-job-type", jobType)
        .setMessageId(jobType)
        .build();
  }

  @EachBroker
  void everyPublishPath_withConfirmsAndReturns_isStamped(TestBroker broker) throws Exception {
    String q = TestBroker.unique("spring.template");
    queues.add(q);
    ConfigurableApplicationContext context =
        BootApps.start(
            broker,
            ProducerApp.class,
            "test.queue=" + q,
            "harbinger.reports-exchange=" + exchange("spring.template.reports"),
            "harbinger.router.kind=none",
            "spring.rabbitmq.publisher-confirm-type=correlated",
            "spring.rabbitmq.publisher-returns=true");
    contexts.add(context);
    RabbitTemplate template = context.getBean(RabbitTemplate.class);
    List<ReturnedMessage> returned = new CopyOnWriteArrayList<>();
    template.setMandatory(true);
    template.setReturnsCallback(returned::add);

    template.convertAndSend(
        "",
        q,
        "converted",
        m -> {
          m.getMessageProperties().setHeader("x-job-type", "converted");
          m.getMessageProperties().setMessageId("converted");
          return m;
        });
    CorrelationData confirmed = new CorrelationData("sent");
    template.send("", q, message("sent"), confirmed);
    Boolean invoked =
        template.invoke(
            ops -> {
              ops.send("", q, message("invoked"));
              return ops.waitForConfirms(10_000);
            });
    // Routed nowhere: returned to the template, stamped as it was published.
    template.send("", TestBroker.unique("spring.template.nowhere"), message("returned"));

    assertThat(confirmed.getFuture().get(10, TimeUnit.SECONDS).ack()).isTrue();
    assertThat(invoked).isTrue();
    await().atMost(Duration.ofSeconds(10)).until(() -> returned.size() == 1);
    assertThat(returned.get(0).getMessage().getMessageProperties().getHeaders())
        .containsKey(HarbingerHeaders.STAMP)
        .doesNotContainKeys(HarbingerHeaders.LEVEL, HarbingerHeaders.PUBLISHED_AT);
    assertThat(
            returned
                .get(0)
                .getMessage()
                .getMessageProperties()
                .getHeaders()
                .get(HarbingerHeaders.STAMP))
        .asString()
        .startsWith("v1;l=1;m=p;t=");

    List<GetResponse> got = new ArrayList<>();
    try (Connection c = broker.newConnection("harbinger-it-drain")) {
      Channel ch = c.createChannel();
      ProgressWait.on("messages drained", got::size)
          .until(
              "3 messages drained",
              () -> {
                GetResponse r;
                while ((r = ch.basicGet(q, true)) != null) {
                  got.add(r);
                }
                return got.size() >= 3;
              });
    }
    // The three went out on different channels (invoke has its own), so their order is not defined.
    assertThat(got)
        .extracting(r -> r.getProps().getMessageId())
        .containsExactlyInAnyOrder("converted", "sent", "invoked");
    assertThat(got)
        .allSatisfy(
            r -> {
              assertThat(r.getProps().getPriority()).isEqualTo(1);
              assertThat(r.getProps().getUserId()).isEqualTo("guest");
              assertThat(r.getProps().getHeaders().get(HarbingerHeaders.STAMP).toString())
                  .matches("v1;l=1;m=p;t=[0-9]{16}");
              assertThat(r.getProps().getHeaders()).doesNotContainKey(HarbingerHeaders.MODE);
            });
    assertThat(context.getBean(HarbingerRuntime.class).stats().published()).isEqualTo(4);
  }
}
