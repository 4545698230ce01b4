package io.harbinger.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** A private node: its own ports and name, alarms that block only it, and a clean stop. */
class PrivateNodeIT {

  private static PrivateNode node;

  @BeforeAll
  static void startNode() throws Exception {
    node = PrivateNode.start();
  }

  @AfterAll
  static void stopNode() {
    Quietly.close(node);
  }

  @Test
  void start_givesAReachableNodeOfItsOwn() throws Exception {
    assertThat(node.nodeName()).startsWith("harbinger-it-").endsWith("@localhost");
    assertThat(node.amqpPort()).isNotIn(5672, 5674);
    try (Connection c = node.newConnection("harbinger-it-private")) {
      assertThat(c.getServerProperties().get("version").toString())
          .isEqualTo(node.broker().version());
    }
    assertThat(node.rabbitmqctl("-q", "list_connections", "name")).doesNotContain("5672");
  }

  @Test
  void memoryAlarm_blocksAPublishingConnection_untilCleared() throws Exception {
    AtomicBoolean blocked = new AtomicBoolean();
    try (Connection c = node.newConnection("harbinger-it-alarm");
        Channel ch = c.createChannel()) {
      c.addBlockedListener(reason -> blocked.set(true), () -> blocked.set(false));
      node.memoryAlarm(true);
      try {
        ch.basicPublish("", "nowhere", null, new byte[1]);
        await().atMost(Duration.ofSeconds(20)).untilTrue(blocked);
      } finally {
        node.memoryAlarm(false);
      }
      await().atMost(Duration.ofSeconds(20)).untilFalse(blocked);
    }
  }

  @Test
  void stopApp_refusesConnections_untilStartApp() throws Exception {
    node.stopApp();
    try {
      ConnectionFactory f = node.factory();
      f.setAutomaticRecoveryEnabled(false);
      assertThatThrownBy(() -> f.newConnection("harbinger-it-down").close())
          .isInstanceOf(java.io.IOException.class);
    } finally {
      node.startApp();
    }
    try (Connection c = node.newConnection("harbinger-it-up")) {
      assertThat(c.isOpen()).isTrue();
    }
  }

  @Test
  void addUser_onThePrivateNode_authenticatesAndIsDeletedOnClose() throws Exception {
    TemporaryUser user = node.broker().addUser("bob", "", ".*", "");
    try (user;
        Connection c = user.newConnection("harbinger-it-bob")) {
      assertThat(c.isOpen()).isTrue();
    }
    assertThat(node.rabbitmqctl("-q", "list_users")).doesNotContain(user.name());
  }

  @Test
  void close_stopsTheNodeAndDeletesItsDirectory() throws Exception {
    PrivateNode other = PrivateNode.start();
    String shortName = other.nodeName().substring(0, other.nodeName().indexOf('@'));
    ProcessHandle process = other.processFromPidFile().orElseThrow();
    Path dir = other.directory();
    assertThat(node.rabbitmqctl("-q", "eval", "net_adm:names().")).contains(shortName);

    other.close();

    assertThat(process.isAlive()).isFalse();
    assertThat(Files.exists(dir)).isFalse();
    assertThat(node.rabbitmqctl("-q", "eval", "net_adm:names().")).doesNotContain(shortName);
  }
}
