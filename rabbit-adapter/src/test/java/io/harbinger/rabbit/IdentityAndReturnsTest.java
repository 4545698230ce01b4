package io.harbinger.rabbit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.anyInt;
import static org.mockito.ArgumentMatchers.anyString;
import static org.mockito.ArgumentMatchers.eq;
import static org.mockito.ArgumentMatchers.isNull;
import static org.mockito.Mockito.doAnswer;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.never;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.verifyNoInteractions;
import static org.mockito.Mockito.when;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.BlockedCallback;
import com.rabbitmq.client.BlockedListener;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.ConfirmCallback;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.Consumer;
import com.rabbitmq.client.DefaultConsumer;
import com.rabbitmq.client.Envelope;
import com.rabbitmq.client.Return;
import com.rabbitmq.client.ReturnCallback;
import com.rabbitmq.client.ReturnListener;
import com.rabbitmq.client.ShutdownListener;
import com.rabbitmq.client.ShutdownSignalException;
import com.rabbitmq.client.UnblockedCallback;
import java.io.IOException;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.mockito.ArgumentCaptor;

/**
 * The identity a wrapped channel stamps (checked when wrapping, recognised on the first 406, or
 * turned off), the properties returned messages carry, and the requeue identity of messages
 * published without the wrapper.
 */
class IdentityAndReturnsTest {

  private final Channel delegate = mock(Channel.class);
  private final List<DurationReport> reports = new CopyOnWriteArrayList<>();

  private static ShutdownSignalException channelClosed(int code, String text, Channel ch) {
    return new ShutdownSignalException(
        false, false, new AMQP.Channel.Close.Builder().replyCode(code).replyText(text).build(), ch);
  }

  private static String refusalText(String claimed) {
    return "PRECONDITION_FAILED - user_id property set to '"
        + claimed
        + "' but authenticated user was 'alice'";
  }

  private static AMQP.BasicProperties callerProps() {
    return new AMQP.BasicProperties.Builder()
        .headers(Map.of("x-job-type", "send_email", "trace", "t-1"))
        .priority(7)
        .contentType("text/plain")
        .build();
  }

  // Identity.

  /** How the scripted broker answers the identity check's publish. */
  private enum CheckAnswer {
    CONFIRM,
    REFUSE,
    BLOCK
  }

  /**
   * A factory whose copies open a scripted connection for the identity check; the application's own
   * connection is {@code delegate}'s and must never be touched.
   */
  private ConnectionFactory checkingFactory(CheckAnswer answer, List<Channel> probes)
      throws Exception {
    ConnectionFactory factory = mock(ConnectionFactory.class);
    ConnectionFactory copy = mock(ConnectionFactory.class);
    Connection own = mock(Connection.class);
    when(factory.clone()).thenReturn(copy);
    when(copy.newConnection("harbinger-identity-check")).thenReturn(own);
    AtomicReference<BlockedCallback> blocked = new AtomicReference<>();
    when(own.addBlockedListener(any(BlockedCallback.class), any(UnblockedCallback.class)))
        .thenAnswer(
            inv -> {
              blocked.set(inv.getArgument(0));
              return mock(BlockedListener.class);
            });
    when(own.createChannel())
        .thenAnswer(
            inv -> {
              Channel probe = mock(Channel.class);
              probes.add(probe);
              AtomicReference<ShutdownListener> closed = new AtomicReference<>();
              AtomicReference<ConfirmCallback> acked = new AtomicReference<>();
              doAnswer(
                      i -> {
                        closed.set(i.getArgument(0));
                        return null;
                      })
                  .when(probe)
                  .addShutdownListener(any(ShutdownListener.class));
              when(probe.addConfirmListener(any(ConfirmCallback.class), any(ConfirmCallback.class)))
                  .thenAnswer(
                      i -> {
                        acked.set(i.getArgument(0));
                        return null;
                      });
              doAnswer(
                      i -> {
                        switch (answer) {
                          case CONFIRM -> acked.get().handle(1, false);
                          case REFUSE ->
                              closed
                                  .get()
                                  .shutdownCompleted(channelClosed(406, refusalText("bob"), probe));
                          case BLOCK -> blocked.get().handle("low on memory");
                        }
                        return null;
                      })
                  .when(probe)
                  .basicPublish(
                      eq(""),
                      eq("harbinger.identity-probe"),
                      any(AMQP.BasicProperties.class),
                      any(byte[].class));
              return probe;
            });
    return factory;
  }

  @Test
  void
      wrap_userRefusedByTheCheck_failsNamingTheUserAndTheFix_andTouchesNotTheApplicationsConnection()
          throws Exception {
    Connection application = mock(Connection.class);
    when(delegate.getConnection()).thenReturn(application);
    List<Channel> probes = new CopyOnWriteArrayList<>();
    ConnectionFactory factory = checkingFactory(CheckAnswer.REFUSE, probes);

    assertThatThrownBy(
            () -> PredictiveChannels.wrap(delegate, ChannelOptions.builder("bob").build(), factory))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("user 'bob' is not the user this connection authenticated as")
        .hasMessageContaining("authenticated user was 'alice'")
        .hasMessageContaining("ProducerProperty.APP_ID");
    verify(delegate, never())
        .basicPublish(anyString(), anyString(), any(AMQP.BasicProperties.class), any());
    verifyNoInteractions(application);
    verify(factory.clone().newConnection("harbinger-identity-check")).abort(anyInt());
  }

  @Test
  void wrap_userAcceptedByTheCheck_wrapsAndChecksOncePerFactoryAndUser() throws Exception {
    List<Channel> probes = new CopyOnWriteArrayList<>();
    ConnectionFactory factory = checkingFactory(CheckAnswer.CONFIRM, probes);
    String user = "alice-" + UUID.randomUUID();

    PredictiveChannels.wrap(delegate, ChannelOptions.builder(user).build(), factory);
    PredictiveChannels.wrap(delegate, ChannelOptions.builder(user).build(), factory);

    assertThat(probes).hasSize(1);
    ArgumentCaptor<AMQP.BasicProperties> sent = ArgumentCaptor.forClass(AMQP.BasicProperties.class);
    verify(probes.get(0))
        .basicPublish(eq(""), eq("harbinger.identity-probe"), sent.capture(), any(byte[].class));
    assertThat(sent.getValue().getUserId()).isEqualTo(user);
    verify(probes.get(0)).confirmSelect();
  }

  @Test
  void wrap_checkBlockedByAResourceAlarm_givesUpAtOnce_andWraps() throws Exception {
    List<Channel> probes = new CopyOnWriteArrayList<>();
    ConnectionFactory factory = checkingFactory(CheckAnswer.BLOCK, probes);

    Channel wrapped =
        assertTimeoutPreemptively(
            Duration.ofSeconds(2),
            () ->
                PredictiveChannels.wrap(
                    delegate, ChannelOptions.builder("carol").build(), factory));

    assertThat(wrapped).isNotNull();
    assertThat(probes).hasSize(1);
  }

  @Test
  void wrap_factoryCannotConnect_wrapsAnyway() throws Exception {
    ConnectionFactory factory = mock(ConnectionFactory.class);
    ConnectionFactory copy = mock(ConnectionFactory.class);
    when(factory.clone()).thenReturn(copy);
    when(copy.newConnection("harbinger-identity-check"))
        .thenThrow(new IOException("Connection refused"));

    assertThat(PredictiveChannels.wrap(delegate, ChannelOptions.builder("carol").build(), factory))
        .isNotNull();
  }

  @Test
  void wrap_withoutAFactory_publishesNothingAndOpensNothing() throws Exception {
    Connection application = mock(Connection.class);
    when(delegate.getConnection()).thenReturn(application);

    PredictiveChannels.wrap(delegate, "bob", null);
    PredictiveChannels.wrap(delegate, ChannelOptions.builder("bob").build());

    verify(application, never()).createChannel();
    verify(delegate, never())
        .basicPublish(anyString(), anyString(), any(AMQP.BasicProperties.class), any());
  }

  @Test
  void publish_afterRabbitMqClosedTheChannelForTheUserId_failsNamingTheUser() throws Exception {
    Channel channel =
        PredictiveChannels.wrap(
            delegate, ChannelOptions.builder("bob").verifyUserId(false).build());
    ArgumentCaptor<ShutdownListener> shutdown = ArgumentCaptor.forClass(ShutdownListener.class);
    verify(delegate).addShutdownListener(shutdown.capture());

    shutdown.getValue().shutdownCompleted(channelClosed(406, refusalText("bob"), delegate));

    assertThatThrownBy(() -> channel.basicPublish("ex", "rk", callerProps(), new byte[0]))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("user 'bob' is not the user this connection authenticated as");
    assertThatThrownBy(() -> channel.basicPublish("ex", "rk", true, callerProps(), new byte[0]))
        .isInstanceOf(IOException.class);
  }

  @Test
  void publish_otherChannelErrors_leaveTheClientsOwnBehaviour() throws Exception {
    Channel channel =
        PredictiveChannels.wrap(
            delegate, ChannelOptions.builder("bob").verifyUserId(false).build());
    ArgumentCaptor<ShutdownListener> shutdown = ArgumentCaptor.forClass(ShutdownListener.class);
    verify(delegate).addShutdownListener(shutdown.capture());

    shutdown.getValue().shutdownCompleted(channelClosed(404, "NOT_FOUND - no exchange", delegate));
    channel.basicPublish("ex", "rk", callerProps(), new byte[0]);

    verify(delegate)
        .basicPublish(
            eq("ex"), eq("rk"), eq(false), eq(false), any(AMQP.BasicProperties.class), any());
  }

  @Test
  void appIdIdentity_stampsAppIdAndLeavesUserIdAsTheCallerSetIt() throws Exception {
    Channel channel =
        PredictiveChannels.wrap(
            delegate,
            ChannelOptions.builder("billing").producerProperty(ProducerProperty.APP_ID).build());

    channel.basicPublish("ex", "rk", callerProps(), new byte[0]);
    channel.basicPublish("ex", "rk", null, new byte[0]);

    ArgumentCaptor<AMQP.BasicProperties> sent = ArgumentCaptor.forClass(AMQP.BasicProperties.class);
    verify(delegate, org.mockito.Mockito.times(2))
        .basicPublish(eq("ex"), eq("rk"), eq(false), eq(false), sent.capture(), any(byte[].class));
    assertThat(sent.getAllValues())
        .extracting(AMQP.BasicProperties::getAppId)
        .containsOnly("billing");
    assertThat(sent.getAllValues()).extracting(AMQP.BasicProperties::getUserId).containsOnlyNulls();
  }

  @Test
  void appIdIdentity_consumerKeysReportsByAppId() throws Exception {
    PredictiveChannel channel =
        new PredictiveChannel(
            delegate,
            ChannelOptions.builder("worker")
                .producerProperty(ProducerProperty.APP_ID)
                .reports(reports::add)
                .build(),
            new PrefetchGuard());
    Consumer wrapped = consume(channel);
    AMQP.BasicProperties props =
        new AMQP.BasicProperties.Builder()
            .appId("billing")
            .userId("proxy")
            .headers(Map.of("x-job-type", "invoice"))
            .build();

    wrapped.handleDelivery("ct", new Envelope(1, false, "ex", "rk"), props, new byte[0]);
    channel.basicAck(1, false);

    assertThat(reports).extracting(DurationReport::producer).containsExactly("billing");
  }

  // Returns.

  private AMQP.BasicProperties publishMandatory(Channel channel) throws IOException {
    channel.basicPublish("ex", "nowhere", true, callerProps(), new byte[] {1, 2, 3});
    ArgumentCaptor<AMQP.BasicProperties> sent = ArgumentCaptor.forClass(AMQP.BasicProperties.class);
    verify(delegate)
        .basicPublish(eq("ex"), eq("nowhere"), eq(true), eq(false), sent.capture(), any());
    return sent.getValue();
  }

  @Test
  void returnedMessage_listenerHearsTheCallersProperties() throws Exception {
    Channel channel = PredictiveChannels.wrap(delegate, "shop", null);
    AtomicReference<AMQP.BasicProperties> heard = new AtomicReference<>();
    ReturnListener mine = (code, text, ex, rk, props, body) -> heard.set(props);
    channel.addReturnListener(mine);
    ArgumentCaptor<ReturnListener> registered = ArgumentCaptor.forClass(ReturnListener.class);
    verify(delegate).addReturnListener(registered.capture());

    AMQP.BasicProperties stamped = publishMandatory(channel);
    assertThat(stamped.getHeaders()).containsKey(HarbingerHeaders.STAMP);
    // RabbitMQ sends the stamp back as it was sent: a byte array, its own copy.
    Map<String, Object> returnedHeaders = new HashMap<>(stamped.getHeaders());
    returnedHeaders.put(
        HarbingerHeaders.STAMP,
        ((byte[]) stamped.getHeaders().get(HarbingerHeaders.STAMP)).clone());
    AMQP.BasicProperties returned = stamped.builder().headers(returnedHeaders).build();
    registered.getValue().handleReturn(312, "NO_ROUTE", "ex", "nowhere", returned, new byte[3]);

    assertThat(heard.get().getPriority()).isEqualTo(7);
    assertThat(heard.get().getUserId()).isNull();
    assertThat(heard.get().getHeaders()).containsOnlyKeys("x-job-type", "trace");

    assertThat(channel.removeReturnListener(mine)).isFalse(); // the mock removes nothing
    verify(delegate).removeReturnListener(registered.getValue());
  }

  @Test
  void returnedMessage_callbackHearsTheCallersProperties() throws Exception {
    Channel channel = PredictiveChannels.wrap(delegate, "shop", null);
    AtomicReference<Return> heard = new AtomicReference<>();
    channel.addReturnListener((ReturnCallback) heard::set);
    ArgumentCaptor<ReturnCallback> registered = ArgumentCaptor.forClass(ReturnCallback.class);
    verify(delegate).addReturnListener(registered.capture());

    AMQP.BasicProperties stamped = publishMandatory(channel);
    registered
        .getValue()
        .handle(new Return(312, "NO_ROUTE", "ex", "nowhere", stamped, new byte[3]));

    assertThat(heard.get().getProperties().getPriority()).isEqualTo(7);
    assertThat(heard.get().getProperties().getHeaders()).containsOnlyKeys("x-job-type", "trace");
    assertThat(heard.get().getReplyCode()).isEqualTo(312);
  }

  @Test
  void returnedMessage_whosePublishWasForgotten_losesTheStampedHeadersAtLeast() throws Exception {
    Channel channel = PredictiveChannels.wrap(delegate, "shop", null);
    AtomicReference<Return> heard = new AtomicReference<>();
    channel.addReturnListener((ReturnCallback) heard::set);
    ArgumentCaptor<ReturnCallback> registered = ArgumentCaptor.forClass(ReturnCallback.class);
    verify(delegate).addReturnListener(registered.capture());
    AMQP.BasicProperties stamped =
        new AMQP.BasicProperties.Builder()
            .headers(Map.of("x-job-type", "a", HarbingerHeaders.STAMP, "v1;l=1;m=p;t=5"))
            .build();

    registered.getValue().handle(new Return(312, "NO_ROUTE", "ex", "rk", stamped, new byte[0]));

    assertThat(heard.get().getProperties().getHeaders()).containsOnlyKeys("x-job-type");
  }

  // Requeue identity of messages published without the wrapper.

  private Consumer consume(PredictiveChannel channel) throws IOException {
    channel.basicConsume("q", false, new DefaultConsumer(channel));
    ArgumentCaptor<Consumer> wrapped = ArgumentCaptor.forClass(Consumer.class);
    verify(delegate)
        .basicConsume(
            eq("q"), eq(false), eq(""), eq(false), eq(false), isNull(), wrapped.capture());
    return wrapped.getValue();
  }

  private PredictiveChannel consumerChannel() {
    return new PredictiveChannel(
        delegate,
        ChannelOptions.builder("worker").reports(reports::add).build(),
        new PrefetchGuard());
  }

  /** A message published without the wrapper: no stamp, a key of its own to this test. */
  private static AMQP.BasicProperties unstamped(String jobType, String messageId) {
    return new AMQP.BasicProperties.Builder()
        .userId("legacy")
        .messageId(messageId)
        .headers(Map.of("x-job-type", jobType))
        .build();
  }

  @Test
  void unstampedMessages_requeuingOne_doesNotHideAnotherOnesUnsettledAttempt() throws Exception {
    PredictiveChannel channel = consumerChannel();
    Consumer wrapped = consume(channel);
    String jobType = "legacy-" + UUID.randomUUID();
    wrapped.handleDelivery(
        "ct", new Envelope(1, false, "ex", "rk"), unstamped(jobType, null), "a".getBytes());
    channel.basicNack(1, false, true);

    // Another message of the same key comes back redelivered: its earlier attempt never settled.
    wrapped.handleDelivery(
        "ct", new Envelope(2, true, "ex", "rk"), unstamped(jobType, null), "b".getBytes());
    channel.basicAck(2, false);
    // The requeued one comes back: not censored.
    wrapped.handleDelivery(
        "ct", new Envelope(3, true, "ex", "rk"), unstamped(jobType, null), "a".getBytes());
    channel.basicAck(3, false);

    assertThat(reports)
        .extracting(DurationReport::settlement)
        .containsExactly(Settlement.NACK, Settlement.CENSORED, Settlement.ACK, Settlement.ACK);
  }

  @Test
  void unstampedMessages_withMessageIds_areToldApartByThem() throws Exception {
    PredictiveChannel channel = consumerChannel();
    Consumer wrapped = consume(channel);
    String jobType = "legacy-" + UUID.randomUUID();
    byte[] sameBody = "same".getBytes();
    wrapped.handleDelivery(
        "ct", new Envelope(1, false, "ex", "rk"), unstamped(jobType, "m-1"), sameBody);
    channel.basicReject(1, true);

    wrapped.handleDelivery(
        "ct", new Envelope(2, true, "ex", "rk"), unstamped(jobType, "m-2"), sameBody);
    channel.basicAck(2, false);
    wrapped.handleDelivery(
        "ct", new Envelope(3, true, "ex", "rk"), unstamped(jobType, "m-1"), sameBody);
    channel.basicAck(3, false);

    assertThat(reports)
        .extracting(DurationReport::settlement)
        .containsExactly(Settlement.REJECT, Settlement.CENSORED, Settlement.ACK, Settlement.ACK);
  }

  @Test
  void prefetchedRedeliveries_areEachCensored_evenIfTheirHandlerNeverRanHere() throws Exception {
    // The documented limit: the wrapper cannot see whether an earlier attempt's handler started,
    // so every redelivered message it did not requeue counts once.
    PredictiveChannel channel = consumerChannel();
    Consumer wrapped = consume(channel);
    String jobType = "prefetched-" + UUID.randomUUID();
    for (int tag = 1; tag <= 10; tag++) {
      wrapped.handleDelivery(
          "ct", new Envelope(tag, true, "ex", "rk"), unstamped(jobType, "p-" + tag), new byte[0]);
      channel.basicAck(tag, false);
    }

    assertThat(reports.stream().filter(r -> r.settlement() == Settlement.CENSORED)).hasSize(10);
  }
}
