package io.harbinger.rabbit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.GetResponse;
import io.harbinger.testing.EachBroker;
import io.harbinger.testing.ProgressWait;
import io.harbinger.testing.Quietly;
import io.harbinger.testing.TemporaryUser;
import io.harbinger.testing.TestBroker;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The producer identity on the real brokers, as a user other than guest: a wrong user fails when
 * wrapping with the application's factory (checked on a connection of Harbinger's own, nothing
 * lost), or at the first 406 with an error that names it; identity off uses {@code app-id}.
 */
class IdentityIT {

  private static AMQP.BasicProperties job(String type) {
    return new AMQP.BasicProperties.Builder().headers(Map.of("x-job-type", type)).build();
  }

  private static int depth(Connection c, String queue) throws Exception {
    try (Channel ch = c.createChannel()) {
      return ch.queueDeclarePassive(queue).getMessageCount();
    }
  }

  @EachBroker
  void wrap_wrongUser_failsNamingTheProblem_andNothingIsLost(TestBroker broker) throws Exception {
    String queue = TestBroker.unique("identity");
    TemporaryUser alice = broker.addUser("alice", ".*", ".*", ".*");
    try (alice;
        Connection c = alice.newConnection("harbinger-it-alice")) {
      try (Channel admin = c.createChannel()) {
        admin.queueDeclare(queue, true, false, false, Map.of());
      }
      Channel raw = c.createChannel();

      assertThatThrownBy(
              () ->
                  PredictiveChannels.wrap(
                      raw, ChannelOptions.builder("bob").build(), alice.factory()))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("user 'bob' is not the user this connection authenticated as")
          .hasMessageContaining(alice.name());

      // The application's channel is untouched, and the right user works.
      Channel producer =
          PredictiveChannels.wrap(
              raw, ChannelOptions.builder(alice.name()).build(), alice.factory());
      for (int i = 0; i < 100; i++) {
        producer.basicPublish("", queue, job("send_email"), new byte[0]);
      }
      AtomicInteger depth = new AtomicInteger();
      ProgressWait.on("messages in the queue", depth::get)
          .until(
              "100 messages in the queue",
              () -> {
                depth.set(depth(c, queue));
                return depth.get() >= 100;
              });
      assertThat(depth(c, queue)).isEqualTo(100);
      try (Channel ch = c.createChannel()) {
        GetResponse one = ch.basicGet(queue, true);
        assertThat(one.getProps().getUserId()).isEqualTo(alice.name());
      }
    } finally {
      Quietly.delete(broker, List.of(queue), List.of());
    }
  }

  @EachBroker
  void publish_wrongUserUnverified_firstPublishIsRefused_laterOnesFailNamingIt(TestBroker broker)
      throws Exception {
    String queue = TestBroker.unique("identity");
    TemporaryUser alice = broker.addUser("alice", ".*", ".*", ".*");
    try (alice;
        Connection c = alice.newConnection("harbinger-it-alice")) {
      try (Channel admin = c.createChannel()) {
        admin.queueDeclare(queue, true, false, false, Map.of());
      }
      Channel producer =
          PredictiveChannels.wrap(
              c.createChannel(), ChannelOptions.builder("bob").verifyUserId(false).build());

      producer.basicPublish("", queue, job("send_email"), new byte[0]);
      await()
          .atMost(Duration.ofSeconds(10))
          .untilAsserted(
              () ->
                  assertThatThrownBy(
                          () -> producer.basicPublish("", queue, job("send_email"), new byte[0]))
                      .isInstanceOf(IOException.class)
                      .hasMessageContaining("user 'bob' is not the user")
                      .hasMessageContaining("authenticated user was '" + alice.name() + "'"));
      assertThat(depth(c, queue)).isZero();
    } finally {
      Quietly.delete(broker, List.of(queue), List.of());
    }
  }

  @EachBroker
  void identityOff_keysByAppId_whichRabbitMqDoesNotCheck(TestBroker broker) throws Exception {
    String queue = TestBroker.unique("identity");
    TemporaryUser alice = broker.addUser("alice", ".*", ".*", ".*");
    List<DurationReport> reports = new CopyOnWriteArrayList<>();
    try (alice;
        Connection c = alice.newConnection("harbinger-it-alice")) {
      try (Channel admin = c.createChannel()) {
        admin.queueDeclare(queue, true, false, false, Map.of());
      }
      ChannelOptions.Builder options =
          ChannelOptions.builder("billing").producerProperty(ProducerProperty.APP_ID);
      Channel producer = PredictiveChannels.wrap(c.createChannel(), options.build());
      Channel consumer =
          PredictiveChannels.wrap(c.createChannel(), options.reports(reports::add).build());

      producer.basicPublish("", queue, job("invoice"), new byte[0]);
      consumer.basicConsume(
          queue,
          false,
          (tag, d) -> consumer.basicAck(d.getEnvelope().getDeliveryTag(), false),
          tag -> {});

      ProgressWait.on("reports", reports::size).untilAtLeast(1);
      assertThat(reports).hasSize(1);
      assertThat(reports.get(0).producer()).isEqualTo("billing");
      assertThat(reports.get(0).jobType()).isEqualTo("invoice");
    } finally {
      Quietly.delete(broker, List.of(queue), List.of());
    }
  }
}
