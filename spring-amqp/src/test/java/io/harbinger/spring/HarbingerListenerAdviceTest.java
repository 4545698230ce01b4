package io.harbinger.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.verify;

import com.rabbitmq.client.Channel;
import io.harbinger.rabbit.ChannelOptions;
import io.harbinger.rabbit.DurationReport;
import io.harbinger.rabbit.HarbingerHeaders;
import io.harbinger.rabbit.Settlement;
import io.harbinger.rabbit.Stamp;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.springframework.amqp.AmqpRejectAndDontRequeueException;
import org.springframework.amqp.core.AcknowledgeMode;
import org.springframework.amqp.core.Message;
import org.springframework.amqp.core.MessageProperties;
import org.springframework.amqp.rabbit.connection.CachingConnectionFactory;
import org.springframework.amqp.rabbit.listener.AbstractMessageListenerContainer;
import org.springframework.amqp.rabbit.listener.SimpleMessageListenerContainer;
import org.springframework.aop.framework.ProxyFactory;

/** The advice through Spring AOP's own proxy, as a listener container builds it. */
class HarbingerListenerAdviceTest {

  /** The shape of the method a container's advice chain wraps. */
  interface Invoker {
    void invokeListener(Channel channel, Object data);
  }

  private final AtomicLong nanos = new AtomicLong(1_000);
  private final List<DurationReport> reports = new CopyOnWriteArrayList<>();
  private final Channel channel = mock(Channel.class);
  private final CachingConnectionFactory cf = new CachingConnectionFactory("127.0.0.1", 1);

  private HarbingerListenerAdvice advice() {
    SimpleMessageListenerContainer auto = new SimpleMessageListenerContainer(cf);
    auto.setQueueNames("auto");
    SimpleMessageListenerContainer manual = new SimpleMessageListenerContainer(cf);
    manual.setQueueNames("manual");
    manual.setAcknowledgeMode(AcknowledgeMode.MANUAL);
    List<AbstractMessageListenerContainer> containers = List.of(auto, manual);
    return new HarbingerListenerAdvice(
        ChannelOptions.builder("consumer").reports(reports::add).ticker(nanos::get).build(),
        new ListenerAckModes(() -> containers));
  }

  private static Invoker proxy(HarbingerListenerAdvice advice, Invoker target) {
    ProxyFactory factory = new ProxyFactory(target);
    factory.addInterface(Invoker.class);
    factory.addAdvice(advice);
    return (Invoker) factory.getProxy();
  }

  private static Message message(String queue, long tag, boolean redelivered, long publishedAt) {
    MessageProperties p = new MessageProperties();
    p.setConsumerQueue(queue);
    p.setDeliveryTag(tag);
    p.setRedelivered(redelivered);
    p.setReceivedUserId("shop");
    p.setHeader("x-job-type", "mail");
    p.setHeader(HarbingerHeaders.STAMP, Stamp.headerValue(publishedAt, 0, "predictive"));
    return new Message(new byte[4], p);
  }

  @Test
  void auto_listenerReturns_ackReportWithTheListenersTime() {
    Invoker invoker = proxy(advice(), (ch, data) -> nanos.addAndGet(7_000_000));

    invoker.invokeListener(channel, message("auto", 1, false, 100));

    assertThat(reports)
        .singleElement()
        .satisfies(
            r -> {
              assertThat(r.settlement()).isEqualTo(Settlement.ACK);
              assertThat(r.handlerNanos()).isEqualTo(7_000_000);
              assertThat(r.producer()).isEqualTo("shop");
              assertThat(r.jobType()).isEqualTo("mail");
            });
  }

  @Test
  void auto_listenerThrows_nack_requeuedUnlessRejected() {
    HarbingerListenerAdvice advice = advice();
    Invoker failing =
        proxy(
            advice,
            (ch, data) -> {
              throw new IllegalStateException("boom");
            });
    Invoker rejecting =
        proxy(
            advice,
            (ch, data) -> {
              throw new AmqpRejectAndDontRequeueException("no");
            });
    Invoker ok = proxy(advice, (ch, data) -> {});

    assertThatThrownBy(() -> failing.invokeListener(channel, message("auto", 1, false, 100)))
        .hasMessage("boom");
    // The container requeued it: its redelivery is not censored.
    ok.invokeListener(channel, message("auto", 2, true, 100));
    assertThatThrownBy(() -> rejecting.invokeListener(channel, message("auto", 3, false, 200)))
        .hasMessage("no");
    // Not requeued by this process: a redelivery of it had an attempt that never settled.
    ok.invokeListener(channel, message("auto", 4, true, 200));

    assertThat(reports)
        .extracting(DurationReport::settlement)
        .containsExactly(
            Settlement.NACK, Settlement.ACK, Settlement.NACK, Settlement.CENSORED, Settlement.ACK);
  }

  @Test
  void manual_listenerAcksLater_onTheChannelItWasGiven_reportFollowsTheAck() throws IOException {
    AtomicReference<Channel> given = new AtomicReference<>();
    Invoker invoker = proxy(advice(), (ch, data) -> given.set(ch));

    invoker.invokeListener(channel, message("manual", 5, false, 100));
    assertThat(reports).isEmpty();
    assertThat(given.get()).isNotSameAs(channel);

    nanos.addAndGet(3_000_000);
    given.get().basicAck(5, false);

    verify(channel).basicAck(5, false);
    assertThat(reports)
        .singleElement()
        .satisfies(
            r -> {
              assertThat(r.settlement()).isEqualTo(Settlement.ACK);
              assertThat(r.handlerNanos()).isEqualTo(3_000_000);
            });
  }

  @Test
  void auto_listenerSeesTheContainersOwnChannel() {
    AtomicReference<Channel> given = new AtomicReference<>();
    proxy(advice(), (ch, data) -> given.set(ch))
        .invokeListener(channel, message("auto", 1, false, 1));

    assertThat(given.get()).isSameAs(channel);
  }

  @Test
  void batch_isNotReported_andCounted() {
    HarbingerListenerAdvice advice = advice();
    proxy(advice, (ch, data) -> {})
        .invokeListener(
            channel, List.of(message("auto", 1, false, 1), message("auto", 2, false, 2)));

    assertThat(reports).isEmpty();
    assertThat(advice.untimedBatches()).isEqualTo(1);
  }
}
