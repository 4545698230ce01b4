package io.harbinger.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.harbinger.rabbit.AdapterFixtures;
import io.harbinger.rabbit.QueueType;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.amqp.core.AcknowledgeMode;
import org.springframework.amqp.core.Queue;
import org.springframework.amqp.core.QueueBuilder;
import org.springframework.amqp.rabbit.connection.CachingConnectionFactory;
import org.springframework.amqp.rabbit.listener.AbstractMessageListenerContainer;
import org.springframework.amqp.rabbit.listener.DirectMessageListenerContainer;
import org.springframework.amqp.rabbit.listener.SimpleMessageListenerContainer;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;

class PrefetchCheckTest {

  private final CachingConnectionFactory cf = new CachingConnectionFactory("127.0.0.1", 1);
  private final List<AbstractMessageListenerContainer> containers = new ArrayList<>();
  private final HarbingerQueues harbingerQueues = new HarbingerQueues(cf, 3);
  private final HarbingerRuntime runtime =
      new HarbingerRuntime(
          new Binder(new MapConfigurationPropertySource(Map.of()))
              .bindOrCreate("harbinger", Bindable.of(HarbingerProperties.class)),
          cf,
          RouterSource.none());

  @AfterEach
  void tearDown() throws Exception {
    runtime.destroy();
    cf.destroy();
  }

  private <C extends AbstractMessageListenerContainer> C container(
      C c, String queue, int prefetch) {
    c.setQueueNames(queue);
    c.setPrefetchCount(prefetch);
    c.setListenerId(queue + "-" + prefetch);
    containers.add(c);
    return c;
  }

  @Test
  void warn_onceForEachContainerOnAHarbingerQueueWithPrefetchAboveTwoOrNoAcks() {
    List<Queue> queues =
        List.of(
            harbingerQueues.queue("jobs"),
            new Queue("plain-prio", true, false, false, Map.of("x-max-priority", 2)),
            new Queue("plain", true));
    container(new SimpleMessageListenerContainer(cf), "jobs", 250);
    container(new DirectMessageListenerContainer(cf), "plain-prio", 10);
    container(new SimpleMessageListenerContainer(cf), "jobs", 2);
    container(new SimpleMessageListenerContainer(cf), "plain", 250);
    container(new SimpleMessageListenerContainer(cf), "jobs", 1)
        .setAcknowledgeMode(AcknowledgeMode.NONE);
    PrefetchCheck check =
        new PrefetchCheck(() -> containers, () -> queues, harbingerQueues, runtime);

    check.recordQueues();
    List<String> warnings = check.warn();

    assertThat(warnings).hasSize(3);
    assertThat(warnings.get(0))
        .contains("'jobs-250' consumes [jobs] with prefetch 250")
        .contains("Set spring.rabbitmq.listener.simple.prefetch=1");
    assertThat(warnings.get(1))
        .contains("with prefetch 10")
        .contains("spring.rabbitmq.listener.direct.prefetch=1");
    assertThat(warnings.get(2)).contains("AcknowledgeMode.NONE");
    assertThat(check.warn()).as("once per container").isEmpty();
    assertThat(runtime.stats().prefetchWarnings()).isEqualTo(3);
  }

  @Test
  void recordQueues_queueBeansOfEveryKind_areRecordedByTheirArguments() {
    String quorum = "prefetch-check-quorum-" + System.nanoTime();
    PrefetchCheck check =
        new PrefetchCheck(
            () -> containers,
            () -> List.of(QueueBuilder.durable(quorum).quorum().build()),
            harbingerQueues,
            runtime);

    check.recordQueues();

    assertThat(AdapterFixtures.recordedType(quorum)).isEqualTo(QueueType.QUORUM);
    container(new SimpleMessageListenerContainer(cf), quorum, 250);
    assertThat(check.warn()).singleElement().asString().contains("consumes [" + quorum + "]");
  }
}
