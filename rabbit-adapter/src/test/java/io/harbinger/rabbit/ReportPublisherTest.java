package io.harbinger.rabbit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.anyInt;
import static org.mockito.ArgumentMatchers.eq;
import static org.mockito.Mockito.doAnswer;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;
import static org.mockito.Mockito.withSettings;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.BlockedCallback;
import com.rabbitmq.client.BlockedListener;
import com.rabbitmq.client.BuiltinExchangeType;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.ConfirmListener;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.Recoverable;
import com.rabbitmq.client.ReturnListener;
import com.rabbitmq.client.ShutdownListener;
import com.rabbitmq.client.ShutdownSignalException;
import com.rabbitmq.client.UnblockedCallback;
import io.harbinger.proto.v1.ReportBatch;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The publisher against a scripted connection: what it publishes, when it holds back, how it counts
 * what RabbitMQ confirms, refuses or never answers.
 */
class ReportPublisherTest {

  /** How the scripted broker answers a publish. */
  enum Answer {
    ACK,
    NACK,
    /** Returned as unroutable (no queue bound), then acked: what RabbitMQ does. */
    RETURN,
    SILENT
  }

  private final Connection connection = mock(Connection.class);
  private final ConnectionFactory factory = mock(ConnectionFactory.class);
  private final List<ReportBatch> sent = new CopyOnWriteArrayList<>();
  private final List<Channel> channels = new CopyOnWriteArrayList<>();
  private final AtomicReference<BlockedCallback> blocked = new AtomicReference<>();
  private final AtomicReference<UnblockedCallback> unblocked = new AtomicReference<>();
  private final AtomicReference<ShutdownListener> connectionShutdown = new AtomicReference<>();
  private final AtomicReference<Answer> answer = new AtomicReference<>(Answer.ACK);
  private final AtomicBoolean connectionOpen = new AtomicBoolean(true);
  private volatile CountDownLatch publishGate;
  private final List<ConfirmListener> confirmListeners = new CopyOnWriteArrayList<>();
  private final List<Long> silentTags = new CopyOnWriteArrayList<>();
  private volatile Runnable onPublish = () -> {};
  private ReportPublisher publisher;

  @BeforeEach
  void setUp() throws Exception {
    when(factory.clone()).thenReturn(factory);
    when(factory.getUsername()).thenReturn("worker");
    when(factory.newConnection(any(String.class))).thenReturn(connection);
    when(connection.isOpen()).thenAnswer(inv -> connectionOpen.get());
    when(connection.createChannel()).thenAnswer(inv -> newChannel());
    when(connection.addBlockedListener(any(BlockedCallback.class), any(UnblockedCallback.class)))
        .thenAnswer(
            inv -> {
              blocked.set(inv.getArgument(0));
              unblocked.set(inv.getArgument(1));
              return mock(BlockedListener.class);
            });
    doAnswer(
            inv -> {
              connectionShutdown.set(inv.getArgument(0));
              return null;
            })
        .when(connection)
        .addShutdownListener(any(ShutdownListener.class));
  }

  /** A recovering channel (as the publisher's own connection gives) that follows the script. */
  private Channel newChannel() throws IOException {
    Channel ch = mock(Channel.class, withSettings().extraInterfaces(Recoverable.class));
    AtomicBoolean open = new AtomicBoolean(true);
    AtomicReference<ConfirmListener> confirms = new AtomicReference<>();
    AtomicReference<ShutdownListener> shutdown = new AtomicReference<>();
    java.util.concurrent.atomic.AtomicLong seq = new java.util.concurrent.atomic.AtomicLong(1);
    when(ch.isOpen()).thenAnswer(inv -> open.get());
    when(ch.getNextPublishSeqNo()).thenAnswer(inv -> seq.get());
    AtomicReference<ReturnListener> returns = new AtomicReference<>();
    doAnswer(
            inv -> {
              confirms.set(inv.getArgument(0));
              confirmListeners.add(inv.getArgument(0));
              return null;
            })
        .when(ch)
        .addConfirmListener(any(ConfirmListener.class));
    doAnswer(
            inv -> {
              returns.set(inv.getArgument(0));
              return null;
            })
        .when(ch)
        .addReturnListener(any(ReturnListener.class));
    doAnswer(
            inv -> {
              shutdown.set(inv.getArgument(0));
              return null;
            })
        .when(ch)
        .addShutdownListener(any(ShutdownListener.class));
    doAnswer(
            inv -> {
              open.set(false);
              return null;
            })
        .when(ch)
        .abort();
    doAnswer(
            inv -> {
              CountDownLatch gate = publishGate;
              if (gate != null) {
                gate.await();
              }
              if (!open.get()) {
                throw new com.rabbitmq.client.AlreadyClosedException(
                    new ShutdownSignalException(false, false, null, ch));
              }
              assertThat((boolean) inv.getArgument(2)).as("mandatory").isTrue();
              byte[] body = inv.getArgument(4);
              ReportBatch batch = ReportBatch.parseFrom(body);
              long tag = seq.getAndIncrement();
              onPublish.run();
              switch (answer.get()) {
                case ACK -> {
                  sent.add(batch);
                  confirms.get().handleAck(tag, false);
                }
                case NACK -> confirms.get().handleNack(tag, false);
                case RETURN -> {
                  returns
                      .get()
                      .handleReturn(312, "NO_ROUTE", "reports", "", inv.getArgument(3), body);
                  confirms.get().handleAck(tag, false);
                }
                case SILENT -> silentTags.add(tag);
              }
              return null;
            })
        .when(ch)
        .basicPublish(
            eq("reports"), eq(""), eq(true), any(AMQP.BasicProperties.class), any(byte[].class));
    // A channel error closes this channel: it reports the shutdown, as the client does.
    when(ch.toString())
        .thenAnswer(inv -> "channel " + channels.indexOf(ch) + (open.get() ? "" : " (closed)"));
    channels.add(ch);
    closers.add(
        cause -> {
          open.set(false);
          ShutdownListener l = shutdown.get();
          if (l != null) {
            l.shutdownCompleted(cause);
          }
        });
    return ch;
  }

  private final List<java.util.function.Consumer<ShutdownSignalException>> closers =
      new CopyOnWriteArrayList<>();

  /** Closes the newest channel as a broker-side channel error would. */
  private void channelError(String text) {
    Channel ch = channels.get(channels.size() - 1);
    closers
        .get(closers.size() - 1)
        .accept(
            new ShutdownSignalException(
                false,
                false,
                new AMQP.Channel.Close.Builder().replyCode(404).replyText(text).build(),
                ch));
  }

  @AfterEach
  void tearDown() {
    CountDownLatch gate = publishGate;
    if (gate != null) {
      gate.countDown();
    }
    if (publisher != null) {
      publisher.close();
    }
  }

  private static DurationReport report(int i) {
    return TestReports.ack("p", "j" + i, i);
  }

  /** Reports in the batches sent, leaving out the empty batch that checks the identity. */
  private int reportsSent() {
    return sent.stream().mapToInt(ReportBatch::getReportsCount).sum();
  }

  private List<ReportBatch> nonEmpty() {
    return sent.stream().filter(b -> b.getReportsCount() > 0).toList();
  }

  private ReportPublisher.Builder builder() {
    return ReportPublisher.builder(factory).exchange("reports");
  }

  @Test
  void start_opensItsOwnConnection_andChecksTheIdentityWithOneEmptyConfirmedBatch()
      throws Exception {
    publisher = builder().start();

    verify(factory).newConnection("harbinger-reports " + publisherId());
    assertThat(sent).hasSize(1);
    assertThat(sent.get(0).getReportsCount()).isZero();
    assertThat(publisher.userId()).isEqualTo("worker");
    verify(channels.get(0)).exchangeDeclarePassive("reports");
    verify(channels.get(0)).confirmSelect();
  }

  private static String publisherId() {
    return Long.toString(ProcessHandle.current().pid());
  }

  @Test
  void start_exchangeMissing_declaresItOnAFreshChannel() throws Exception {
    doAnswer(
            inv -> {
              Channel ch = newChannel();
              if (channels.size() == 1) {
                when(ch.exchangeDeclarePassive("reports"))
                    .thenThrow(new IOException("NOT_FOUND - no exchange 'reports'"));
              }
              return ch;
            })
        .when(connection)
        .createChannel();

    publisher = builder().start();

    verify(channels.get(0)).abort();
    verify(channels.get(1)).exchangeDeclare("reports", BuiltinExchangeType.FANOUT, true);
    assertThat(sent).hasSize(1);
  }

  @Test
  void everyBatch_carriesTheReporterIdentityAsUserId() throws Exception {
    AtomicReference<AMQP.BasicProperties> props = new AtomicReference<>();
    publisher = builder().userId("svc-billing").flushInterval(Duration.ofMillis(10)).start();
    doAnswer(
            inv -> {
              props.set(inv.getArgument(3));
              sent.add(ReportBatch.parseFrom((byte[]) inv.getArgument(4)));
              return null;
            })
        .when(channels.get(0))
        .basicPublish(
            eq("reports"), eq(""), eq(true), any(AMQP.BasicProperties.class), any(byte[].class));
    publisher.accept(report(1));
    await().atMost(Duration.ofSeconds(5)).until(() -> props.get() != null);
    assertThat(props.get().getUserId()).isEqualTo("svc-billing");
  }

  @Test
  void fullBatch_isSentBeforeTheFlushInterval() throws Exception {
    publisher = builder().batchSize(4).flushInterval(Duration.ofHours(1)).start();

    for (int i = 0; i < 8; i++) {
      publisher.accept(report(i));
    }

    await().atMost(Duration.ofSeconds(5)).until(() -> reportsSent() == 8);
    assertThat(nonEmpty()).allSatisfy(b -> assertThat(b.getReportsCount()).isEqualTo(4));
    assertThat(sent).extracting(ReportBatch::getSequence).containsExactly(0L, 1L, 2L);
    assertThat(nonEmpty().get(0).getReports(0).getJobType()).isEqualTo("j0");
    assertThat(publisher.sent()).isEqualTo(8);
  }

  @Test
  void partialBatch_isSentAtTheFlushInterval() throws Exception {
    publisher = builder().flushInterval(Duration.ofMillis(50)).start();

    publisher.accept(report(1));

    await().atMost(Duration.ofSeconds(5)).until(() -> reportsSent() == 1);
    assertThat(publisher.sent()).isEqualTo(1);
    assertThat(publisher.batches()).isEqualTo(1);
  }

  @Test
  void blockedConnection_buffersToTheBoundThenDropsAndCounts() throws Exception {
    publisher = builder().capacity(10).flushInterval(Duration.ofMillis(20)).start();
    blocked.get().handle("low on memory");

    for (int i = 0; i < 25; i++) {
      publisher.accept(report(i));
    }

    // While blocked the sender takes nothing out of the buffer: the counts are exact.
    assertThat(publisher.dropped()).isEqualTo(15);
    assertThat(publisher.buffered()).isEqualTo(10);
    assertThat(nonEmpty()).isEmpty();

    unblocked.get().handle();
    await().atMost(Duration.ofSeconds(5)).until(() -> reportsSent() == 10);
    assertThat(nonEmpty().get(0).getDroppedSinceLast()).isEqualTo(15);
  }

  @Test
  void moreDropsThanOneBatchMayDeclare_areDeclaredOverTheBatchesThatFollow() throws Exception {
    publisher = builder().capacity(10).flushInterval(Duration.ofMillis(20)).start();
    blocked.get().handle("low on memory");
    for (int i = 0; i < 20_010; i++) {
      publisher.accept(report(i));
    }
    assertThat(publisher.dropped()).isEqualTo(20_000);

    unblocked.get().handle();
    await()
        .atMost(Duration.ofSeconds(5))
        .until(() -> sent.stream().mapToLong(ReportBatch::getDroppedSinceLast).sum() == 20_000);
    assertThat(sent)
        .extracting(ReportBatch::getDroppedSinceLast)
        .filteredOn(n -> n > 0)
        .containsExactly(
            ReportIngestor.MAX_DECLARED_DROPS, ReportIngestor.MAX_DECLARED_DROPS, 3_616L);
    assertThat(reportsSent()).isEqualTo(10);
  }

  @Test
  void blockedConnectionThatCloses_isNoLongerBlocked_andSendingResumes() throws Exception {
    publisher = builder().flushInterval(Duration.ofMillis(20)).start();
    blocked.get().handle("low on memory");
    publisher.accept(report(1));
    publisher.accept(report(2));

    // The broker closes the blocked connection; it recovers; no unblock ever comes.
    connectionOpen.set(false);
    connectionShutdown
        .get()
        .shutdownCompleted(new ShutdownSignalException(true, false, null, null));
    connectionOpen.set(true);

    await().atMost(Duration.ofSeconds(5)).until(() -> reportsSent() == 2);
    assertThat(publisher.blocked()).isFalse();
    assertThat(publisher.sent()).isEqualTo(2);
  }

  @Test
  void channelClosedByAnError_isReplacedByANewChannelThatDeclaresTheExchangeAgain()
      throws Exception {
    publisher = builder().batchSize(1).flushInterval(Duration.ofMillis(20)).start();
    publisher.accept(report(1));
    await().atMost(Duration.ofSeconds(5)).until(() -> reportsSent() == 1);

    channelError("NOT_FOUND - no exchange 'reports' in vhost '/'");
    publisher.accept(report(2));
    publisher.accept(report(3));

    await().atMost(Duration.ofSeconds(5)).until(() -> reportsSent() == 3);
    assertThat(channels).hasSize(2);
    verify(channels.get(1)).exchangeDeclarePassive("reports");
    verify(channels.get(0)).abort();
    assertThat(publisher.failedBatches()).isZero();
  }

  @Test
  void nackedBatch_isNotCountedAsSent_andItsReportsAreDeclaredDropped() throws Exception {
    publisher = builder().batchSize(2).flushInterval(Duration.ofHours(1)).start();
    answer.set(Answer.NACK);

    publisher.accept(report(1));
    publisher.accept(report(2));
    await().atMost(Duration.ofSeconds(5)).until(() -> publisher.failedBatches() == 1);
    assertThat(publisher.sent()).isZero();
    assertThat(publisher.dropped()).isEqualTo(2);

    answer.set(Answer.ACK);
    publisher.accept(report(3));
    publisher.accept(report(4));
    await().atMost(Duration.ofSeconds(5)).until(() -> reportsSent() == 2);
    assertThat(nonEmpty().get(0).getDroppedSinceLast()).isEqualTo(2);
    assertThat(publisher.sent()).isEqualTo(2);
  }

  @Test
  void lateConfirm_ofABatchPastTheConfirmTimeout_countsItAsSentOnce_neverAsDropped()
      throws Exception {
    // A connection blocked right after a batch was written: RabbitMQ reads the rest of the batch
    // and confirms it only when the alarm clears, long after the confirm timeout.
    publisher =
        builder()
            .batchSize(256)
            .flushInterval(Duration.ofHours(1))
            .confirmTimeout(Duration.ofMillis(50))
            .start();
    answer.set(Answer.SILENT);
    for (int i = 0; i < 256; i++) {
      publisher.accept(report(i));
    }
    // The sender gave up waiting for that confirm when it sends the next batch.
    for (int i = 0; i < 256; i++) {
      publisher.accept(report(i));
    }
    await().atMost(Duration.ofSeconds(5)).until(() -> silentTags.size() == 2);

    assertThat(publisher.dropped()).isZero();
    assertThat(publisher.failedBatches()).isZero();
    assertThat(publisher.sent()).isZero();
    assertThat(publisher.unconfirmedBatches()).isEqualTo(2);

    // The alarm clears: RabbitMQ confirms both at once.
    confirmListeners.get(0).handleAck(silentTags.get(1), true);
    answer.set(Answer.ACK);
    for (int i = 0; i < 256; i++) {
      publisher.accept(report(i));
    }
    await().atMost(Duration.ofSeconds(5)).until(() -> reportsSent() == 256);

    assertThat(publisher.sent()).isEqualTo(768);
    assertThat(publisher.dropped()).isZero();
    assertThat(publisher.failedBatches()).isZero();
    assertThat(publisher.batches()).isEqualTo(3);
    assertThat(publisher.unconfirmedBatches()).isZero();
    assertThat(nonEmpty().get(0).getDroppedSinceLast()).isZero();
    // Each batch has a sequence of its own, the late one's included.
    assertThat(nonEmpty().get(0).getSequence()).isEqualTo(3);
  }

  @Test
  void unconfirmedBatch_whoseChannelCloses_countsAsDroppedOnce_andTheNextBatchSaysSo()
      throws Exception {
    publisher =
        builder()
            .batchSize(2)
            .flushInterval(Duration.ofHours(1))
            .confirmTimeout(Duration.ofMillis(50))
            .start();
    answer.set(Answer.SILENT);
    publisher.accept(report(1));
    publisher.accept(report(2));
    await().atMost(Duration.ofSeconds(5)).until(() -> silentTags.size() == 1);
    await().atMost(Duration.ofSeconds(5)).until(() -> publisher.buffered() == 0);

    channelError("connection lost");
    // An ack that arrives after the channel's end changes nothing.
    confirmListeners.get(0).handleAck(silentTags.get(0), false);

    assertThat(publisher.dropped()).isEqualTo(2);
    assertThat(publisher.failedBatches()).isEqualTo(1);
    assertThat(publisher.sent()).isZero();
    answer.set(Answer.ACK);
    publisher.accept(report(3));
    publisher.accept(report(4));
    await().atMost(Duration.ofSeconds(5)).until(() -> reportsSent() == 2);
    assertThat(nonEmpty().get(0).getDroppedSinceLast()).isEqualTo(2);
    assertThat(publisher.dropped()).isEqualTo(2);
  }

  @Test
  void returnedBatch_isCountedUnroutable_neverSent() throws Exception {
    publisher = builder().batchSize(3).flushInterval(Duration.ofHours(1)).start();
    answer.set(Answer.RETURN);

    for (int i = 0; i < 3; i++) {
      publisher.accept(report(i));
    }
    await().atMost(Duration.ofSeconds(5)).until(() -> publisher.unroutable() == 3);

    assertThat(publisher.sent()).isZero();
    assertThat(publisher.batches()).isZero();
    assertThat(publisher.dropped()).isZero();
    answer.set(Answer.ACK);
    for (int i = 0; i < 3; i++) {
      publisher.accept(report(i));
    }
    await().atMost(Duration.ofSeconds(5)).until(() -> publisher.sent() == 3);
    assertThat(publisher.unroutable()).isEqualTo(3);
  }

  @Test
  void dropsOfABatchThatReachedNoQueue_waitForTheNextReports_insteadOfABatchOfTheirOwn()
      throws Exception {
    publisher = builder().batchSize(1).flushInterval(Duration.ofMillis(20)).start();
    // The report's batch is refused; from the next publish on, nothing is bound.
    java.util.concurrent.atomic.AtomicInteger publishes =
        new java.util.concurrent.atomic.AtomicInteger();
    answer.set(Answer.NACK);
    onPublish =
        () -> {
          if (publishes.incrementAndGet() == 2) {
            answer.set(Answer.RETURN);
          }
        };
    publisher.accept(report(0));
    await().atMost(Duration.ofSeconds(5)).until(() -> publisher.dropped() == 1);
    // The lost report is declared in the next batch, which reaches no queue.
    await().atMost(Duration.ofSeconds(5)).until(() -> publishes.get() >= 2);

    Thread.sleep(400); // 20 flush intervals
    assertThat(publishes.get() - 1)
        .as("batches of drops alone, while nothing is bound (one per interval before)")
        .isLessThanOrEqualTo(2);

    answer.set(Answer.ACK);
    publisher.accept(report(1));
    await().atMost(Duration.ofSeconds(5)).until(() -> reportsSent() == 1);
    assertThat(nonEmpty().get(0).getDroppedSinceLast()).isEqualTo(1);
  }

  @Test
  void unconfirmedBatches_areBounded_andClosingCountsThoseLeftAsDropped() throws Exception {
    publisher =
        builder()
            .batchSize(1)
            .capacity(1_000)
            .flushInterval(Duration.ofMillis(5))
            .confirmTimeout(Duration.ofMillis(1))
            .start();
    answer.set(Answer.SILENT);

    for (int i = 0; i < 100; i++) {
      publisher.accept(report(i));
    }
    await()
        .atMost(Duration.ofSeconds(5))
        .until(() -> publisher.unconfirmedBatches() == ReportChannel.MAX_UNCONFIRMED);
    await()
        .during(Duration.ofMillis(100))
        .atMost(Duration.ofSeconds(2))
        .until(() -> silentTags.size() == ReportChannel.MAX_UNCONFIRMED);
    // 64 batches of one report await their confirms; the rest waits in the buffer.
    assertThat(silentTags).hasSize(ReportChannel.MAX_UNCONFIRMED);
    assertThat(publisher.buffered()).isEqualTo(100 - ReportChannel.MAX_UNCONFIRMED);

    publisher.close();
    assertThat(publisher.dropped()).isEqualTo(100);
    assertThat(publisher.sent()).isZero();
  }

  @Test
  void start_whileRabbitMqBlocksTheConnection_returnsAtOnce_andReportsFlowWhenItUnblocks()
      throws Exception {
    answer.set(Answer.SILENT);
    // The alarm blocks the connection at its first publish.
    onPublish =
        () -> {
          try {
            blocked.get().handle("low on memory");
          } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
          }
        };

    publisher =
        assertTimeoutPreemptively(
            Duration.ofSeconds(5), () -> builder().confirmTimeout(Duration.ofSeconds(60)).start());
    onPublish = () -> {};
    publisher.accept(report(1));
    assertThat(publisher.blocked()).isTrue();
    assertThat(nonEmpty()).isEmpty();

    confirmListeners.get(0).handleAck(silentTags.get(0), false); // the alarm clears
    answer.set(Answer.ACK);
    unblocked.get().handle();

    await().atMost(Duration.ofSeconds(5)).until(() -> reportsSent() == 1);
    assertThat(publisher.sent()).isEqualTo(1);
    assertThat(publisher.dropped()).isZero();
  }

  @Test
  void close_whileAPublishNeverReturns_returnsWithinTheCloseTimeout() throws Exception {
    publisher =
        builder()
            .batchSize(1)
            .flushInterval(Duration.ofMillis(10))
            .closeTimeout(Duration.ofMillis(200))
            .start();
    publishGate = new CountDownLatch(1); // a socket write stuck on a blocked connection
    publisher.accept(report(1));
    await().atMost(Duration.ofSeconds(5)).until(() -> publisher.buffered() == 0);

    assertTimeoutPreemptively(Duration.ofSeconds(5), () -> publisher.close());
    verify(connection).abort(anyInt());
  }

  @Test
  void close_sendsWhatIsBuffered_andLaterReportsAreDropped() throws Exception {
    publisher = builder().flushInterval(Duration.ofHours(1)).start();
    publisher.accept(report(1));
    publisher.accept(report(2));

    publisher.close();
    publisher.accept(report(3));

    assertThat(reportsSent()).isEqualTo(2);
    assertThat(publisher.dropped()).isEqualTo(1);
  }

  @Test
  void start_identityRefusedByRabbitMq_failsNamingTheProblem() throws Exception {
    when(connection.createChannel())
        .thenAnswer(
            inv -> {
              Channel ch = newChannel();
              doAnswer(
                      i -> {
                        closers
                            .get(closers.size() - 1)
                            .accept(
                                new ShutdownSignalException(
                                    false,
                                    false,
                                    new AMQP.Channel.Close.Builder()
                                        .replyCode(406)
                                        .replyText(
                                            "PRECONDITION_FAILED - user_id property set to"
                                                + " 'worker' but authenticated user was 'CN=w1'")
                                        .build(),
                                    ch));
                        return null;
                      })
                  .when(ch)
                  .basicPublish(
                      eq("reports"),
                      eq(""),
                      eq(true),
                      any(AMQP.BasicProperties.class),
                      any(byte[].class));
              return ch;
            });

    assertThatThrownBy(() -> builder().start())
        .isInstanceOf(IOException.class)
        .hasMessageContaining("user-id 'worker'")
        .hasMessageContaining("userId(...)");
    verify(connection).abort(anyInt());
  }

  @Test
  @SuppressWarnings("deprecation")
  void sharedConnection_withoutUserId_isRefusedNamingTheFix() {
    assertThatThrownBy(() -> ReportPublisher.builder(connection).start())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("userId must be set")
        .hasMessageContaining("ReportPublisher.builder(connectionFactory)");
  }

  @Test
  void builder_badValues_areRefusedWithTheRule() {
    ReportPublisher.Builder b = builder();
    assertThatThrownBy(() -> b.batchSize(0)).hasMessage("batchSize must be in [1, 65536]: 0");
    assertThatThrownBy(() -> b.capacity(0)).hasMessage("capacity must be at least 1: 0");
    assertThatThrownBy(() -> b.flushInterval(Duration.ZERO))
        .hasMessage("flushInterval must be positive: PT0S");
    assertThatThrownBy(() -> b.confirmTimeout(Duration.ofSeconds(-1)))
        .hasMessage("confirmTimeout must be positive: PT-1S");
    assertThatThrownBy(() -> b.exchange("")).hasMessageContaining("exchange must be non-empty");
    assertThatThrownBy(() -> b.userId("")).hasMessageContaining("userId must be");
  }
}
