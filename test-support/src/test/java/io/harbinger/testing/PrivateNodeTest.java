package io.harbinger.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What a private node needs before it starts: the binaries of its runtime. */
class PrivateNodeTest {

  @TempDir Path empty;

  @AfterEach
  void clear() {
    System.clearProperty(PrivateNode.Runtime.BIN_VARIABLE);
  }

  @Test
  void host_binariesMissing_saysWhichAndTheMessageNamesTheVariable() {
    System.setProperty(PrivateNode.Runtime.BIN_VARIABLE, empty.toString());

    PrivateNode.Runtime host = PrivateNode.Runtime.host();

    assertThat(host.server()).isEqualTo(empty.resolve("rabbitmq-server").toString());
    assertThat(host.unavailable()).contains("no executable " + empty.resolve("rabbitmq-server"));
    assertThat(PrivateNode.PREREQUISITE.message(host.unavailable().orElseThrow()))
        .startsWith("a private RabbitMQ node is not available (no executable ")
        .contains(
            "set HARBINGER_RABBITMQ_BIN to the folder holding rabbitmq-server and rabbitmqctl");
  }
}
