package io.harbinger.rabbit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.eq;
import static org.mockito.Mockito.doAnswer;
import static org.mockito.Mockito.doThrow;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.when;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.BlockedCallback;
import com.rabbitmq.client.BlockedListener;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.UnblockedCallback;
import io.harbinger.proto.v1.DurationReport;
import io.harbinger.proto.v1.Outcome;
import io.harbinger.proto.v1.ReportBatch;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class ReportPublisherTest {

  private final Connection connection = mock(Connection.class);
  private final Channel channel = mock(Channel.class);
  private final List<ReportBatch> sent = new CopyOnWriteArrayList<>();
  private final AtomicReference<BlockedCallback> blocked = new AtomicReference<>();
  private final AtomicReference<UnblockedCallback> unblocked = new AtomicReference<>();
  private ReportPublisher publisher;

  @BeforeEach
  void setUp() throws Exception {
    when(connection.createChannel()).thenReturn(channel);
    when(channel.isOpen()).thenReturn(true);
    when(connection.addBlockedListener(any(BlockedCallback.class), any(UnblockedCallback.class)))
        .thenAnswer(
            inv -> {
              blocked.set(inv.getArgument(0));
              unblocked.set(inv.getArgument(1));
              return mock(BlockedListener.class);
            });
    doAnswer(
            inv -> {
              sent.add(ReportBatch.parseFrom((byte[]) inv.getArgument(3)));
              return null;
            })
        .when(channel)
        .basicPublish(eq("reports"), eq(""), any(AMQP.BasicProperties.class), any(byte[].class));
  }

  @AfterEach
  void tearDown() {
    if (publisher != null) {
      publisher.close();
    }
  }

  private static DurationReport report(int i) {
    return DurationReport.newBuilder()
        .setProducer("p")
        .setJobType("j" + i)
        .setOutcome(Outcome.OUTCOME_ACK)
        .setHandlerNanos(i)
        .build();
  }

  private static int reportsIn(List<ReportBatch> batches) {
    return batches.stream().mapToInt(ReportBatch::getReportsCount).sum();
  }

  @Test
  void fullBatch_isSentBeforeTheFlushInterval() throws Exception {
    publisher =
        ReportPublisher.builder(connection)
            .exchange("reports")
            .batchSize(4)
            .flushInterval(Duration.ofHours(1))
            .start();

    for (int i = 0; i < 8; i++) {
      publisher.accept(report(i));
    }

    await().atMost(Duration.ofSeconds(5)).until(() -> reportsIn(sent) == 8);
    assertThat(sent).allSatisfy(b -> assertThat(b.getReportsCount()).isEqualTo(4));
    assertThat(sent).extracting(ReportBatch::getSequence).containsExactly(0L, 1L);
    assertThat(sent.get(0).getReports(0).getJobType()).isEqualTo("j0");
  }

  @Test
  void partialBatch_isSentAtTheFlushInterval() throws Exception {
    publisher =
        ReportPublisher.builder(connection)
            .exchange("reports")
            .flushInterval(Duration.ofMillis(50))
            .start();

    publisher.accept(report(1));

    await().atMost(Duration.ofSeconds(5)).until(() -> reportsIn(sent) == 1);
    assertThat(publisher.sent()).isEqualTo(1);
    assertThat(publisher.batches()).isEqualTo(1);
  }

  @Test
  void blockedConnection_buffersToTheBoundThenDropsAndCounts_neverWaits() throws Exception {
    publisher =
        ReportPublisher.builder(connection)
            .exchange("reports")
            .capacity(10)
            .flushInterval(Duration.ofMillis(20))
            .start();
    blocked.get().handle("low on memory");

    long start = System.nanoTime();
    for (int i = 0; i < 25; i++) {
      publisher.accept(report(i));
    }
    long elapsedMillis = (System.nanoTime() - start) / 1_000_000;

    assertThat(elapsedMillis).isLessThan(1_000);
    assertThat(publisher.dropped()).isEqualTo(15);
    assertThat(publisher.buffered()).isEqualTo(10);
    assertThat(sent).isEmpty();

    unblocked.get().handle();
    await().atMost(Duration.ofSeconds(5)).until(() -> reportsIn(sent) == 10);
    assertThat(sent.get(0).getDroppedSinceLast()).isEqualTo(15);
  }

  @Test
  void failedPublish_dropsTheBatchAndCountsIt_thenRecovers() throws Exception {
    doThrow(new IOException("connection reset"))
        .doAnswer(
            inv -> {
              sent.add(ReportBatch.parseFrom((byte[]) inv.getArgument(3)));
              return null;
            })
        .when(channel)
        .basicPublish(eq("reports"), eq(""), any(AMQP.BasicProperties.class), any(byte[].class));
    publisher =
        ReportPublisher.builder(connection)
            .exchange("reports")
            .batchSize(2)
            .flushInterval(Duration.ofMillis(20))
            .start();

    publisher.accept(report(1));
    publisher.accept(report(2));
    await().atMost(Duration.ofSeconds(5)).until(() -> publisher.failedBatches() == 1);
    publisher.accept(report(3));

    await().atMost(Duration.ofSeconds(5)).until(() -> reportsIn(sent) == 1);
    assertThat(publisher.dropped()).isEqualTo(2);
    assertThat(sent.get(0).getDroppedSinceLast()).isEqualTo(2);
  }

  @Test
  void close_sendsWhatIsBuffered_andLaterReportsAreDropped() throws Exception {
    publisher =
        ReportPublisher.builder(connection)
            .exchange("reports")
            .flushInterval(Duration.ofHours(1))
            .start();
    publisher.accept(report(1));
    publisher.accept(report(2));

    publisher.close();
    publisher.accept(report(3));

    assertThat(reportsIn(sent)).isEqualTo(2);
    assertThat(publisher.dropped()).isEqualTo(1);
  }

  @Test
  void builder_badValues_areRefusedWithTheRule() {
    ReportPublisher.Builder b = ReportPublisher.builder(connection);
    assertThatThrownBy(() -> b.batchSize(0)).hasMessage("batchSize must be in [1, 65536]: 0");
    assertThatThrownBy(() -> b.capacity(0)).hasMessage("capacity must be at least 1: 0");
    assertThatThrownBy(() -> b.flushInterval(Duration.ZERO))
        .hasMessage("flushInterval must be positive: PT0S");
    assertThatThrownBy(() -> b.exchange("")).hasMessageContaining("exchange must be non-empty");
  }
}
