package io.harbinger.rabbit;

import static org.assertj.core.api.Assertions.assertThat;

import com.rabbitmq.client.impl.ClientVersion;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class AmqpClientVersionTest {

  @ParameterizedTest
  @ValueSource(strings = {"5.25.0", "5.27.1", "5.37.1", "5.38.0", "5.40.0-SNAPSHOT"})
  void problem_supportedVersion_isNone(String version) {
    assertThat(AmqpClientVersion.problem(version)).isNull();
  }

  @ParameterizedTest
  @ValueSource(strings = {"5.24.0", "5.7.3", "4.12.0", "6.0.0", "garbage", ""})
  void problem_otherVersion_namesItAndTheSupportedRange(String version) {
    assertThat(AmqpClientVersion.problem(version))
        .isEqualTo(
            "Harbinger needs the RabbitMQ Java client (com.rabbitmq:amqp-client) 5.25 or a later 5.x"
                + " (tested with 5.25.0 to 5.38.0), but found "
                + version
                + ": depend on a supported version");
  }

  @Test
  void problem_unknownVersion_isNamedNull() {
    assertThat(AmqpClientVersion.problem(null)).contains("but found null");
  }

  @Test
  void require_theClientTheBuildUses_isSupported() {
    assertThat(AmqpClientVersion.problem(ClientVersion.VERSION)).isNull();
    AmqpClientVersion.require();
  }
}
