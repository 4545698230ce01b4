package io.harbinger.rabbit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.anyBoolean;
import static org.mockito.ArgumentMatchers.anyMap;
import static org.mockito.ArgumentMatchers.eq;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.never;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ShutdownSignalException;
import com.rabbitmq.client.impl.LongStringHelper;
import java.io.IOException;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.mockito.ArgumentCaptor;

class PriorityQueuesTest {

  private final Channel channel = mock(Channel.class);

  private static IOException refusal(String replyText) {
    AMQP.Channel.Close close =
        new AMQP.Channel.Close.Builder().replyCode(406).replyText(replyText).build();
    return new IOException(new ShutdownSignalException(false, false, close, null));
  }

  @Test
  void declare_setsMaxPriorityToLevelsMinusOne_andKeepsOtherArguments() throws Exception {
    when(channel.queueDeclare(eq("jobs"), eq(true), eq(false), eq(false), anyMap()))
        .thenReturn(new AMQP.Queue.DeclareOk.Builder().queue("jobs").build());

    PriorityQueues.declare(channel, "jobs", 3, Map.of("x-message-ttl", 60_000));

    @SuppressWarnings("unchecked")
    ArgumentCaptor<Map<String, Object>> args = ArgumentCaptor.forClass(Map.class);
    verify(channel).queueDeclare(eq("jobs"), eq(true), eq(false), eq(false), args.capture());
    assertThat(args.getValue())
        .containsEntry("x-max-priority", 2)
        .containsEntry("x-message-ttl", 60_000);
  }

  @Test
  void declare_badArguments_areRefusedBeforeAnyCall() {
    assertThatThrownBy(() -> PriorityQueues.declare(channel, "q", 11))
        .hasMessage("levels must be in [2, 10]: 11");
    assertThatThrownBy(() -> PriorityQueues.declare(channel, "", 3))
        .hasMessageContaining("queue must be a non-empty name");
    assertThatThrownBy(
            () ->
                PriorityQueues.declare(
                    channel, "q", 3, Map.of("x-queue-type", "quorum", "x-max-priority", 2)))
        .hasMessageContaining("x-max-priority is for classic queues")
        .hasMessageContaining("refuses it on a quorum queue");
    assertThatThrownBy(
            () -> PriorityQueues.declare(channel, "q", 3, Map.of("x-queue-type", "stream")))
        .hasMessageContaining("streams have no message priorities");
    assertThatThrownBy(
            () -> PriorityQueues.declare(channel, "q", 3, Map.of("x-queue-type", "qorum")))
        .hasMessage("x-queue-type must be 'classic', 'quorum' or 'stream': 'qorum'");
    assertThatThrownBy(() -> PriorityQueues.declare(channel, "q", 3, Map.of("x-max-priority", 5)))
        .hasMessageContaining("x-max-priority is set from levels");
  }

  @Test
  void declare_quorumQueueRefusal_explainsTheFix() throws Exception {
    when(channel.queueDeclare(any(), anyBoolean(), anyBoolean(), anyBoolean(), anyMap()))
        .thenThrow(
            refusal(
                "PRECONDITION_FAILED - invalid arg 'x-max-priority' for queue 'orders' in vhost"
                    + " '/' of queue type rabbit_quorum_queue"));

    assertThatThrownBy(() -> PriorityQueues.declare(channel, "orders", 3))
        .isInstanceOf(PriorityQueues.PriorityQueueException.class)
        .hasMessageContaining("'orders' is a quorum queue")
        .hasMessageContaining("Fix: on RabbitMQ 4, declare it with x-queue-type=quorum")
        .hasMessageContaining("'orders.prio'");
  }

  @Test
  void declare_existingQueueWithoutPriorities_explainsTheMigration() throws Exception {
    when(channel.queueDeclare(any(), anyBoolean(), anyBoolean(), anyBoolean(), anyMap()))
        .thenThrow(
            refusal(
                "PRECONDITION_FAILED - inequivalent arg 'x-max-priority' for queue 'orders' in"
                    + " vhost '/': received the value '2' of type 'signedint' but current is"
                    + " none"));

    assertThatThrownBy(() -> PriorityQueues.declare(channel, "orders", 3))
        .isInstanceOf(PriorityQueues.PriorityQueueException.class)
        .hasMessageContaining("already exists")
        .hasMessageContaining("declare a new queue");
  }

  private void onBroker(String version) {
    Connection connection = mock(Connection.class);
    when(connection.getServerProperties())
        .thenReturn(Map.of("version", LongStringHelper.asLongString(version)));
    when(channel.getConnection()).thenReturn(connection);
  }

  @Test
  void declare_quorumOnRabbitMq4_sendsNoMaxPriorityAndIsRecordedAsQuorum() throws Exception {
    onBroker("4.0.5");
    String queue = "orders-" + System.nanoTime();
    when(channel.queueDeclare(eq(queue), eq(true), eq(false), eq(false), anyMap()))
        .thenReturn(new AMQP.Queue.DeclareOk.Builder().queue(queue).build());

    PriorityQueues.declare(
        channel, queue, 3, Map.of("x-queue-type", "quorum", "x-delivery-limit", 5));

    @SuppressWarnings("unchecked")
    ArgumentCaptor<Map<String, Object>> args = ArgumentCaptor.forClass(Map.class);
    verify(channel).queueDeclare(eq(queue), eq(true), eq(false), eq(false), args.capture());
    assertThat(args.getValue())
        .doesNotContainKey("x-max-priority")
        .containsEntry("x-queue-type", "quorum")
        .containsEntry("x-delivery-limit", 5);
    assertThat(DeclaredQueues.SHARED.type(queue)).isEqualTo(QueueType.QUORUM);
  }

  @Test
  void declare_quorumOnRabbitMq3_isRefusedNamingTheAlternatives() throws Exception {
    onBroker("3.10.8");

    assertThatThrownBy(
            () -> PriorityQueues.declare(channel, "orders", 3, Map.of("x-queue-type", "quorum")))
        .isInstanceOf(PriorityQueues.PriorityQueueException.class)
        .hasMessageContaining("quorum queues have no message priorities on RabbitMQ 3.10.8")
        .hasMessageContaining("classic priority queue")
        .hasMessageContaining("one quorum queue per level");
    verify(channel, never()).queueDeclare(any(), anyBoolean(), anyBoolean(), anyBoolean(), any());
  }

  @Test
  void declare_existingQueueWithOtherArguments_explainsTheMigration() throws Exception {
    when(channel.queueDeclare(any(), anyBoolean(), anyBoolean(), anyBoolean(), anyMap()))
        .thenThrow(
            refusal(
                "PRECONDITION_FAILED - inequivalent arg 'x-message-ttl' for queue 'orders' in"
                    + " vhost '/': received the value '1000' of type 'signedint' but current is"
                    + " none"));

    assertThatThrownBy(
            () -> PriorityQueues.declare(channel, "orders", 3, Map.of("x-message-ttl", 1000)))
        .isInstanceOf(PriorityQueues.PriorityQueueException.class)
        .hasMessageContaining("already exists with other arguments")
        .hasMessageContaining("x-message-ttl")
        .hasMessageContaining("never changes a queue's arguments");
  }

  @Test
  void declare_otherFailure_isRethrownUnchanged() throws Exception {
    IOException other = new IOException("connection reset");
    when(channel.queueDeclare(any(), anyBoolean(), anyBoolean(), anyBoolean(), anyMap()))
        .thenThrow(other);

    assertThatThrownBy(() -> PriorityQueues.declare(channel, "orders", 3)).isSameAs(other);
  }

  @Test
  void arguments_perQueueTypeAndVersion_followTheRulesOfDeclare() {
    assertThat(PriorityQueues.arguments("a", 3, Map.of("x-message-ttl", 5), "3.10.8"))
        .containsExactlyInAnyOrderEntriesOf(Map.of("x-message-ttl", 5, "x-max-priority", 2));
    String quorum = "args-quorum-" + System.nanoTime();
    assertThat(PriorityQueues.arguments(quorum, 3, Map.of("x-queue-type", "quorum"), "4.0.5"))
        .containsExactlyInAnyOrderEntriesOf(Map.of("x-queue-type", "quorum"));
    assertThat(DeclaredQueues.SHARED.type(quorum)).isEqualTo(QueueType.QUORUM);
    assertThatThrownBy(
            () -> PriorityQueues.arguments("b", 3, Map.of("x-queue-type", "quorum"), "3.10.8"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(
            "queue 'b' cannot be a quorum queue with priorities: quorum queues have no message"
                + " priorities on RabbitMQ 3.10.8")
        .hasMessageContaining("'b.prio'");
    assertThatThrownBy(() -> PriorityQueues.arguments("c", 1, Map.of(), "4.0.5"))
        .hasMessage("levels must be in [2, 10]: 1");
  }

  @Test
  void declared_elsewhere_recordsTheTypeFromTheArguments() {
    String q = "declared-elsewhere-" + System.nanoTime();
    PriorityQueues.declared(q, Map.of("x-queue-type", "quorum"));
    assertThat(DeclaredQueues.SHARED.type(q)).isEqualTo(QueueType.QUORUM);
    PriorityQueues.declared(q, Map.of("x-queue-type", "nonsense"));
    assertThat(DeclaredQueues.SHARED.type(q)).isEqualTo(QueueType.QUORUM);
  }
}
