package io.harbinger.rabbit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.anyString;
import static org.mockito.ArgumentMatchers.eq;
import static org.mockito.Mockito.doAnswer;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.never;
import static org.mockito.Mockito.times;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.BlockedCallback;
import com.rabbitmq.client.BuiltinExchangeType;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.ConfirmListener;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.Envelope;
import com.rabbitmq.client.ShutdownListener;
import com.rabbitmq.client.ShutdownSignalException;
import com.rabbitmq.client.UnblockedCallback;
import java.io.IOException;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The decisions of the binding checks, on a scripted broker and a clock of the test's own. */
class ReportBindingTest {

  private static final String EXCHANGE = "harbinger.reports";
  private static final String QUEUE = "harbinger.reports.sidecar-1";
  private static final long SECOND = 1_000_000_000L;

  private final AtomicLong nanos = new AtomicLong();
  private final ConnectionFactory factory = mock(ConnectionFactory.class);
  private final Connection learner = mock(Connection.class);
  private final Channel topology = mock(Channel.class);
  private final Connection probeConnection = mock(Connection.class);
  private final Channel probeChannel = mock(Channel.class);
  private final AtomicReference<ConfirmListener> confirms = new AtomicReference<>();
  private final AtomicReference<ShutdownListener> probeClosed = new AtomicReference<>();
  private final AtomicReference<AMQP.BasicProperties> published = new AtomicReference<>();
  private final AtomicLong publishes = new AtomicLong();
  private ReportBinding binding;

  @BeforeEach
  void setUp() throws Exception {
    when(factory.clone()).thenReturn(factory);
    when(factory.newConnection(anyString())).thenReturn(probeConnection);
    when(learner.isOpen()).thenReturn(true);
    when(learner.createChannel()).thenReturn(topology);
    when(topology.isOpen()).thenReturn(true);
    AMQP.Queue.DeclareOk declared = mock(AMQP.Queue.DeclareOk.class);
    when(topology.queueDeclarePassive(QUEUE)).thenReturn(declared);
    when(probeConnection.isOpen()).thenReturn(true);
    when(probeConnection.createChannel()).thenReturn(probeChannel);
    when(probeConnection.addBlockedListener(
            any(BlockedCallback.class), any(UnblockedCallback.class)))
        .thenReturn(null);
    when(probeChannel.isOpen()).thenReturn(true);
    when(probeChannel.getNextPublishSeqNo()).thenAnswer(inv -> publishes.get() + 1);
    doAnswer(
            inv -> {
              confirms.set(inv.getArgument(0));
              return null;
            })
        .when(probeChannel)
        .addConfirmListener(any(ConfirmListener.class));
    doAnswer(
            inv -> {
              probeClosed.set(inv.getArgument(0));
              return null;
            })
        .when(probeChannel)
        .addShutdownListener(any(ShutdownListener.class));
    doAnswer(
            inv -> {
              published.set(inv.getArgument(2));
              publishes.incrementAndGet();
              return null;
            })
        .when(probeChannel)
        .basicPublish(eq(EXCHANGE), eq(""), any(AMQP.BasicProperties.class), any(byte[].class));
    binding =
        ReportBinding.builder(factory, learner, EXCHANGE, QUEUE)
            .interval(Duration.ofMinutes(10))
            .ticker(nanos::get)
            .start();
  }

  @AfterEach
  void tearDown() {
    binding.close();
  }

  /** Moves the clock one second on and runs a check. */
  private void checkAfterASecond() throws IOException {
    nanos.addAndGet(SECOND);
    binding.check();
  }

  private static Envelope fromExchange() {
    return new Envelope(1, false, EXCHANGE, "");
  }

  private static AMQP.BasicProperties report() {
    return new AMQP.BasicProperties.Builder().userId("worker").build();
  }

  private void probeComesBack() {
    assertThat(binding.isProbe(fromExchange(), published.get())).isTrue();
  }

  private void reportArrives() {
    assertThat(binding.isProbe(fromExchange(), report())).isFalse();
  }

  private void probeSettled() throws IOException {
    confirms.get().handleAck(publishes.get(), false);
  }

  @Test
  void reportsArriving_noProbeIsPublished() throws Exception {
    for (int i = 0; i < 5; i++) {
      reportArrives();
      checkAfterASecond();
    }

    assertThat(publishes.get()).isZero();
    assertThat(binding.problem()).isEmpty();
    verify(topology, never()).queueBind(anyString(), anyString(), anyString());
  }

  @Test
  void silentQueue_probeThatComesBack_leavesTheBindingAlone() throws Exception {
    checkAfterASecond();
    checkAfterASecond();
    assertThat(publishes.get()).isEqualTo(1);
    probeSettled();
    probeComesBack();
    checkAfterASecond();

    assertThat(binding.problem()).isEmpty();
    assertThat(binding.probesLost()).isZero();
    verify(topology, never()).queueBind(anyString(), anyString(), anyString());
  }

  @Test
  void probeThatDoesNotComeBack_bindsTheQueueAgain_andSaysSoUntilReportsArrive() throws Exception {
    checkAfterASecond();
    checkAfterASecond();
    probeSettled();
    checkAfterASecond();

    verify(topology).queueBind(QUEUE, EXCHANGE, "");
    assertThat(binding.probesLost()).isEqualTo(1);
    assertThat(binding.problem())
        .hasValueSatisfying(
            p -> assertThat(p).contains("did not reach queue " + QUEUE).contains("bound it again"));

    reportArrives();
    checkAfterASecond();
    assertThat(binding.problem()).isEmpty();
  }

  @Test
  void probeNotSettledYet_isNotJudged() throws Exception {
    checkAfterASecond();
    checkAfterASecond();
    checkAfterASecond();

    assertThat(binding.problem()).isEmpty();
    verify(topology, never()).queueBind(anyString(), anyString(), anyString());
  }

  @Test
  void batchesDeliveredAfterTheProbeWasSettled_areNotALostBinding() throws Exception {
    checkAfterASecond();
    checkAfterASecond();
    probeSettled();
    // The probe waits behind a backlog: other batches keep coming.
    reportArrives();
    checkAfterASecond();

    assertThat(binding.problem()).isEmpty();
    assertThat(binding.probesLost()).isZero();
    verify(topology, never()).queueBind(anyString(), anyString(), anyString());
  }

  @Test
  void probePublishedStraightToTheQueue_doesNotCountAsComeBack() throws Exception {
    checkAfterASecond();
    checkAfterASecond();
    probeSettled();
    assertThat(binding.isProbe(new Envelope(1, false, "", QUEUE), published.get())).isTrue();
    checkAfterASecond();

    assertThat(binding.probesLost()).isEqualTo(1);
    verify(topology).queueBind(QUEUE, EXCHANGE, "");
  }

  @Test
  void probeSettledJustBeforeTheCheck_isJudgedAtTheNextOne() throws Exception {
    checkAfterASecond();
    checkAfterASecond();
    nanos.addAndGet(SECOND - 1_000_000);
    probeSettled();
    nanos.addAndGet(1_000_000);
    binding.check();
    assertThat(binding.probesLost()).isZero();

    probeComesBack();
    checkAfterASecond();
    assertThat(binding.problem()).isEmpty();
    assertThat(binding.probesLost()).isZero();
  }

  @Test
  void anotherLearnersProbe_isSkipped_andShowsTheBindingWorks() throws Exception {
    AMQP.BasicProperties foreign =
        new AMQP.BasicProperties.Builder()
            .headers(Map.of(HarbingerHeaders.PROBE, "someone-else"))
            .build();

    assertThat(binding.isProbe(fromExchange(), foreign)).isTrue();
    checkAfterASecond();
    assertThat(publishes.get()).isZero();
  }

  @Test
  void exchangeMissing_isDeclaredAgainAndBound_andSaidSo() throws Exception {
    when(topology.exchangeDeclarePassive(EXCHANGE)).thenThrow(channelError(404, "NOT_FOUND"));

    checkAfterASecond();

    verify(topology).exchangeDeclare(EXCHANGE, BuiltinExchangeType.FANOUT, true);
    verify(topology).queueBind(QUEUE, EXCHANGE, "");
    assertThat(binding.exchangesMissing()).isEqualTo(1);
    assertThat(binding.problem())
        .hasValueSatisfying(p -> assertThat(p).contains("'" + EXCHANGE + "' was missing"));
  }

  @Test
  void exchangeOfAnotherType_isAProblemNamingItsType_andTheQueueIsNotBound() throws Exception {
    when(topology.exchangeDeclare(EXCHANGE, BuiltinExchangeType.FANOUT, true))
        .thenThrow(
            channelError(
                406,
                "PRECONDITION_FAILED - inequivalent arg 'type' for exchange '"
                    + EXCHANGE
                    + "' in vhost '/': received 'fanout' but current is 'direct'"));

    checkAfterASecond();
    checkAfterASecond();

    assertThat(binding.problem())
        .hasValueSatisfying(
            p ->
                assertThat(p)
                    .contains("'" + EXCHANGE + "' is a direct exchange, not fanout")
                    .contains(QUEUE));
    verify(topology, never()).queueBind(anyString(), anyString(), anyString());
    assertThat(publishes.get()).isZero();
  }

  @Test
  void exchangeNotDurable_staysBound_andProbed() throws Exception {
    when(topology.exchangeDeclare(EXCHANGE, BuiltinExchangeType.FANOUT, true))
        .thenThrow(
            channelError(
                406,
                "PRECONDITION_FAILED - inequivalent arg 'durable' for exchange '"
                    + EXCHANGE
                    + "' in vhost '/': received 'true' but current is 'false'"));

    checkAfterASecond();
    checkAfterASecond();

    assertThat(binding.problem()).isEmpty();
    assertThat(publishes.get()).isEqualTo(1);
  }

  @Test
  void probeRefusedForLackOfWritePermission_queueIsBoundAgainAtEveryCheck() throws Exception {
    checkAfterASecond();
    checkAfterASecond();
    probeClosed
        .get()
        .shutdownCompleted(
            new ShutdownSignalException(
                false,
                false,
                new AMQP.Channel.Close.Builder()
                    .replyCode(403)
                    .replyText("ACCESS_REFUSED - write access to exchange refused")
                    .build(),
                probeChannel));

    checkAfterASecond();
    checkAfterASecond();

    verify(topology, times(2)).queueBind(QUEUE, EXCHANGE, "");
    assertThat(publishes.get()).isEqualTo(1);
    assertThat(binding.problem()).isEmpty();
  }

  @Test
  void learnerNotConsuming_nothingIsChecked() throws Exception {
    binding.close();
    binding =
        ReportBinding.builder(factory, learner, EXCHANGE, QUEUE)
            .interval(Duration.ofMinutes(10))
            .ticker(nanos::get)
            .consuming(() -> false)
            .start();

    checkAfterASecond();
    checkAfterASecond();

    verify(topology, never()).exchangeDeclarePassive(anyString());
    assertThat(publishes.get()).isZero();
  }

  @Test
  void typeNamed_readsTheTypeFromRabbitMqsText() {
    assertThat(
            ReportBinding.typeNamed(
                "channel error; protocol method: #method<channel.close>(reply-code=406,"
                    + " reply-text=PRECONDITION_FAILED - inequivalent arg 'type' for exchange"
                    + " 'ut.x' in vhost '/': received 'fanout' but current is 'direct',"
                    + " class-id=40, method-id=10)"))
        .isEqualTo("direct");
    assertThat(
            ReportBinding.typeNamed(
                "inequivalent arg 'auto_delete' for exchange 'x' in vhost '/': received 'false'"
                    + " but current is 'true'"))
        .isNull();
  }

  private static IOException channelError(int code, String text) {
    return new IOException(
        new ShutdownSignalException(
            false,
            false,
            new AMQP.Channel.Close.Builder().replyCode(code).replyText(text).build(),
            null));
  }
}
