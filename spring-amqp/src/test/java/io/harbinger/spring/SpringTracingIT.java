package io.harbinger.spring;

import static org.assertj.core.api.Assertions.assertThat;

import com.rabbitmq.client.Connection;
import io.harbinger.testing.EachBroker;
import io.harbinger.testing.ProgressWait;
import io.harbinger.testing.Quietly;
import io.harbinger.testing.TestBroker;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.springframework.amqp.core.Message;
import org.springframework.amqp.core.Queue;
import org.springframework.amqp.rabbit.annotation.RabbitListener;
import org.springframework.amqp.rabbit.core.RabbitTemplate;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

/**
 * Harbinger beside Spring AMQP's observation and tracing: with observations on for the template and
 * the listener containers and a Brave tracer, a message carries both the W3C trace header and
 * Harbinger's stamp, the listener runs in the producer's trace, and the delivery is timed and
 * reported as without tracing.
 */
class SpringTracingIT {

  /** The listener: keeps each message it handled. */
  static final class Received {
    final List<Message> messages = new CopyOnWriteArrayList<>();

    @RabbitListener(queues = "${test.queue}")
    void handle(Message m) {
      messages.add(m);
    }
  }

  @SpringBootConfiguration
  @EnableAutoConfiguration
  static class TracedApp {
    @Bean
    Queue jobs(HarbingerQueues q, @Value("${test.queue}") String name) {
      return q.queue(name);
    }

    @Bean
    Received received() {
      return new Received();
    }
  }

  @EachBroker
  void observationAndTracingOn_traceHeadersAndHarbingersStampBothArrive_andJobsAreTimed(
      TestBroker broker) throws Exception {
    String queue = TestBroker.unique("spring.tracing");
    String exchange = TestBroker.unique("spring.tracing.reports");
    try (BootApps.Reports reports = new BootApps.Reports(broker, exchange);
        ConfigurableApplicationContext context =
            BootApps.start(
                broker,
                TracedApp.class,
                "harbinger.reports-exchange=" + exchange,
                "spring.rabbitmq.template.observation-enabled=true",
                "spring.rabbitmq.listener.simple.observation-enabled=true",
                "management.tracing.sampling.probability=1.0",
                "test.queue=" + queue)) {
      RabbitTemplate template = context.getBean(RabbitTemplate.class);
      for (int i = 0; i < 5; i++) {
        template.convertAndSend(
            "",
            queue,
            "job",
            m -> {
              m.getMessageProperties().setHeader("x-job-type", "traced");
              return m;
            });
      }
      Received received = context.getBean(Received.class);
      ProgressWait.on("messages received", received.messages::size).untilAtLeast(5);

      for (Message m : received.messages) {
        Map<String, Object> headers = m.getMessageProperties().getHeaders();
        assertThat(headers).as("the W3C trace header").containsKey("traceparent");
        assertThat(headers).as("Harbinger's stamp").containsKey("x-harbinger");
        assertThat(m.getMessageProperties().getReceivedUserId())
            .isEqualTo(broker.factory().getUsername());
      }
      ProgressWait.on("reports received", () -> reports.ofJobType("traced").size()).untilAtLeast(5);
      assertThat(reports.ofJobType("traced")).hasSize(5);
      assertThat(
              context
                  .getBean(MeterRegistry.class)
                  .get("harbinger.client.handler")
                  .tag("result", "ack")
                  .timers()
                  .stream()
                  .mapToLong(t -> t.count())
                  .sum())
          .isEqualTo(5);
    } finally {
      try (Connection c = broker.newConnection("harbinger-it-cleanup")) {
        Quietly.deleteQueue(c, queue);
      }
    }
  }
}
