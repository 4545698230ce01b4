package io.harbinger.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.anyBoolean;
import static org.mockito.ArgumentMatchers.anyLong;
import static org.mockito.ArgumentMatchers.eq;
import static org.mockito.Mockito.inOrder;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.never;
import static org.mockito.Mockito.times;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Consumer;
import com.rabbitmq.client.Envelope;
import io.harbinger.predictor.Mode;
import io.harbinger.predictor.Outcome;
import io.harbinger.predictor.Prediction;
import io.harbinger.predictor.Router;
import io.harbinger.rabbit.ChannelOptions;
import io.harbinger.rabbit.Lanes;
import io.harbinger.testing.TestBroker;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.mockito.ArgumentCaptor;
import org.mockito.InOrder;
import org.springframework.amqp.core.Declarables;
import org.springframework.amqp.core.Message;
import org.springframework.amqp.core.MessageProperties;
import org.springframework.amqp.core.Queue;
import org.springframework.amqp.rabbit.connection.CachingConnectionFactory;
import org.springframework.amqp.rabbit.connection.Connection;
import org.springframework.amqp.rabbit.connection.ConnectionFactory;
import org.springframework.amqp.rabbit.core.RabbitTemplate;
import org.springframework.amqp.rabbit.listener.DirectMessageListenerContainer;
import org.springframework.amqp.rabbit.listener.SimpleMessageListenerContainer;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;

/**
 * Lanes in Spring without a broker: their declaration, the lane a template publishes to, and the
 * settlements a listener container's channel sends.
 */
class SpringLanesTest {

  private final CachingConnectionFactory connectionFactory =
      new CachingConnectionFactory("127.0.0.1", 1);
  private final List<HarbingerRuntime> runtimes = new ArrayList<>();

  @AfterEach
  void tearDown() throws Exception {
    for (HarbingerRuntime r : runtimes) {
      r.destroy();
    }
    connectionFactory.destroy();
  }

  /** A 3-level router: "fast" jobs at level 0, "slow" at 2, everything else at 1. */
  private static final Router ROUTER =
      new Router() {
        @Override
        public Prediction route(String key) {
          int level = key.endsWith("fast") ? 0 : key.endsWith("slow") ? 2 : 1;
          return new Prediction(level, level, Outcome.PREDICTED, 1e6, Mode.PREDICTIVE);
        }

        @Override
        public int levels() {
          return 3;
        }
      };

  private HarbingerStamping stamping(String mode) {
    HarbingerProperties properties =
        new Binder(new MapConfigurationPropertySource(Map.of("harbinger.mode", mode)))
            .bindOrCreate("harbinger", Bindable.of(HarbingerProperties.class));
    connectionFactory.setUsername("shop");
    HarbingerRuntime runtime =
        new HarbingerRuntime(
            properties,
            connectionFactory,
            new RouterSource(ROUTER, null, () -> true, "test", () -> {}));
    runtimes.add(runtime);
    return new HarbingerStamping(runtime);
  }

  @Test
  void lanes_oneDurableQueuePerLevel_withTheArguments_andKnownToThePublishAndConsumeSides() {
    String q = TestBroker.unique("spring.lanes.declare");
    Declarables lanes =
        new HarbingerQueues(connectionFactory, 3)
            .lanes(q, Map.of("x-queue-type", "quorum", "x-message-ttl", 60_000));

    List<Queue> queues = lanes.getDeclarablesByType(Queue.class);
    assertThat(queues).extracting(Queue::getName).containsExactly(q + ".lane-0", q + ".lane-1", q);
    assertThat(queues)
        .allSatisfy(
            lane -> {
              assertThat(lane.isDurable()).isTrue();
              assertThat(lane.isExclusive()).isFalse();
              assertThat(lane.isAutoDelete()).isFalse();
              assertThat(lane.getArguments())
                  .containsExactlyInAnyOrderEntriesOf(
                      Map.of("x-queue-type", "quorum", "x-message-ttl", 60_000));
            });
    assertThat(Lanes.layoutOf(q)).isNotNull();
    assertThat(Lanes.layoutOf(q).laneNames()).containsExactly(q + ".lane-0", q + ".lane-1", q);
  }

  @Test
  void lanes_maxPriorityStreamOrBadLevels_refusedWithTheRule_andNothingRecorded() {
    String q = TestBroker.unique("spring.lanes.refused");
    HarbingerQueues queues = new HarbingerQueues(connectionFactory, 3);

    assertThatThrownBy(() -> queues.lanes(q, Map.of("x-max-priority", 2)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("x-max-priority is set for the lanes of '" + q + "'")
        .hasMessageContaining("lanes replace priorities");
    assertThatThrownBy(() -> queues.lanes(q, Map.of("x-queue-type", "stream")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("declare classic or quorum lanes");
    assertThatThrownBy(() -> new HarbingerQueues(connectionFactory, 12).lanes(q))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("levels must be in [2, 10]: 12");
    assertThatThrownBy(() -> queues.lanes(""))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("queue must be a non-empty name");
    assertThat(Lanes.layoutOf(q)).isNull();
  }

  /** The routing key and properties of every publish on a mocked channel. */
  private record Published(String exchange, String routingKey, AMQP.BasicProperties props) {}

  private static List<Published> send(RabbitTemplate template, String exchange, Object... sends)
      throws Exception {
    ConnectionFactory cf = mock(ConnectionFactory.class);
    Connection connection = mock(Connection.class);
    Channel channel = mock(Channel.class);
    when(cf.createConnection()).thenReturn(connection);
    when(connection.createChannel(anyBoolean())).thenReturn(channel);
    when(connection.isOpen()).thenReturn(true);
    when(channel.isOpen()).thenReturn(true);
    template.setConnectionFactory(cf);
    for (int i = 0; i < sends.length; i += 2) {
      MessageProperties p = new MessageProperties();
      p.setHeader("x-job-type", sends[i + 1]);
      template.send(exchange, (String) sends[i], new Message(new byte[] {1}, p));
    }
    ArgumentCaptor<String> exchanges = ArgumentCaptor.forClass(String.class);
    ArgumentCaptor<String> keys = ArgumentCaptor.forClass(String.class);
    ArgumentCaptor<AMQP.BasicProperties> props =
        ArgumentCaptor.forClass(AMQP.BasicProperties.class);
    verify(channel, times(sends.length / 2))
        .basicPublish(exchanges.capture(), keys.capture(), anyBoolean(), props.capture(), any());
    List<Published> all = new ArrayList<>();
    for (int i = 0; i < keys.getAllValues().size(); i++) {
      all.add(
          new Published(
              exchanges.getAllValues().get(i),
              keys.getAllValues().get(i),
              props.getAllValues().get(i)));
    }
    return all;
  }

  @Test
  void harbingerTemplate_sendToALanesQueue_goesToTheLaneOfItsLevel_withTheCallersPriority()
      throws Exception {
    String q = TestBroker.unique("spring.lanes.send");
    String plain = TestBroker.unique("spring.lanes.plain");
    new HarbingerQueues(connectionFactory, 3).lanes(q);
    RabbitTemplate template = new HarbingerRabbitTemplate();
    template.addBeforePublishPostProcessors(stamping("predictive"));

    List<Published> sent =
        send(template, "", q, "fast", q, "medium", q, "slow", plain, "fast", plain, "slow");

    assertThat(sent)
        .extracting(Published::routingKey)
        .containsExactly(q + ".lane-0", q + ".lane-1", q, plain, plain);
    assertThat(sent.get(0).props().getHeaders().get("x-harbinger").toString())
        .startsWith("v1;l=0;m=p;");
    assertThat(sent.subList(0, 3)).allSatisfy(p -> assertThat(p.props().getPriority()).isZero());
    assertThat(sent.get(3).props().getPriority()).isEqualTo(2);
  }

  @Test
  void harbingerTemplate_shadowMode_sendsToTheLogicalQueueUnchanged() throws Exception {
    String q = TestBroker.unique("spring.lanes.shadow");
    new HarbingerQueues(connectionFactory, 3).lanes(q);
    RabbitTemplate template = new HarbingerRabbitTemplate();
    template.addBeforePublishPostProcessors(stamping("shadow"));

    List<Published> sent = send(template, "", q, "fast", q, "slow");

    assertThat(sent).extracting(Published::routingKey).containsExactly(q, q);
    assertThat(sent.get(0).props().getHeaders().get("x-harbinger").toString())
        .startsWith("v1;l=0;m=s;");
  }

  @Test
  void harbingerTemplate_otherExchangeOrNoStamping_sendsAsAddressed() throws Exception {
    String q = TestBroker.unique("spring.lanes.addressed");
    new HarbingerQueues(connectionFactory, 3).lanes(q);
    RabbitTemplate stamped = new HarbingerRabbitTemplate();
    stamped.addBeforePublishPostProcessors(stamping("predictive"));
    assertThat(send(stamped, "jobs.exchange", q, "fast"))
        .extracting(Published::exchange, Published::routingKey)
        .containsExactly(org.assertj.core.groups.Tuple.tuple("jobs.exchange", q));

    // A plain template is stamped and leaves the lane it chose unused: the lowest lane.
    RabbitTemplate plainTemplate = new RabbitTemplate();
    plainTemplate.addBeforePublishPostProcessors(stamping("predictive"));
    assertThat(send(plainTemplate, "", q, "fast"))
        .extracting(Published::routingKey)
        .containsExactly(q);
    // The choice it left is for that message only: an unstamped send is not rerouted by it.
    assertThat(send(new HarbingerRabbitTemplate(), "", q, "fast"))
        .extracting(Published::routingKey)
        .containsExactly(q);
  }

  @Test
  void listenerChannel_multipleAck_settlesOnlyTheDeliveriesHandedToTheContainer() throws Exception {
    Channel target = mock(Channel.class);
    Channel channel = LaneListenerChannel.wrap(target, ChannelOptions.builder("shop").build());
    Consumer container = mock(Consumer.class);

    channel.basicConsume("plain", false, "", false, false, null, container);
    ArgumentCaptor<Consumer> registered = ArgumentCaptor.forClass(Consumer.class);
    verify(target)
        .basicConsume(
            eq("plain"), eq(false), eq(""), eq(false), eq(false), any(), registered.capture());
    AMQP.BasicProperties props = new AMQP.BasicProperties();
    for (long tag : new long[] {2, 5, 7}) {
      registered.getValue().handleDelivery("t", new Envelope(tag, false, "", "plain"), props, null);
    }
    verify(container, times(3)).handleDelivery(eq("t"), any(Envelope.class), eq(props), any());

    channel.basicAck(5, true);
    channel.basicNack(7, true, true);

    InOrder order = inOrder(target);
    order.verify(target).basicAck(2, false);
    order.verify(target).basicAck(5, false);
    order.verify(target).basicNack(7, false, true);
    verify(target, never()).basicAck(anyLong(), eq(true));
    verify(target, never()).basicNack(anyLong(), eq(true), anyBoolean());
    assertThat(LaneListenerChannel.timesDeliveries(channel, "plain")).isFalse();
    assertThat(LaneListenerChannel.timesDeliveries(target, "plain")).isFalse();
  }

  @Test
  void laneListeners_simpleContainerOfALanesQueue_getsTheLanesView_directOneIsRefused() {
    String q = TestBroker.unique("spring.lanes.containers");
    String plain = TestBroker.unique("spring.lanes.other");
    new HarbingerQueues(connectionFactory, 3).lanes(q);
    ChannelOptions options = ChannelOptions.builder("shop").build();

    SimpleMessageListenerContainer simple = new SimpleMessageListenerContainer(connectionFactory);
    simple.setQueueNames(plain, q);
    LaneListeners.install(simple, options);
    assertThat(simple.getConnectionFactory()).isInstanceOf(LanesConnectionFactory.class);
    assertThat(((LanesConnectionFactory) simple.getConnectionFactory()).delegate())
        .isSameAs(connectionFactory);
    LaneListeners.install(simple, options);
    assertThat(((LanesConnectionFactory) simple.getConnectionFactory()).delegate())
        .as("installed once")
        .isSameAs(connectionFactory);

    SimpleMessageListenerContainer other = new SimpleMessageListenerContainer(connectionFactory);
    other.setQueueNames(plain);
    LaneListeners.install(other, options);
    assertThat(other.getConnectionFactory()).isSameAs(connectionFactory);

    DirectMessageListenerContainer direct = new DirectMessageListenerContainer(connectionFactory);
    direct.setListenerId("orders");
    direct.setQueueNames(q);
    assertThatThrownBy(() -> LaneListeners.install(direct, options))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("listener container 'orders' (DirectMessageListenerContainer)")
        .hasMessageContaining("[" + q + "]")
        .hasMessageContaining("use a SimpleRabbitListenerContainerFactory");
  }
}
