package io.harbinger.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.boot.SpringBootVersion;

class SpringBootLineTest {

  @ParameterizedTest
  @ValueSource(strings = {"3.5.0", "3.5.7", "4.0.7", "4.1.2", "4.2.0-M1", "4.9.9"})
  void supported_passes(String version) {
    assertThat(SpringBootLine.problem(version)).isNull();
    SpringBootLine.require(version);
  }

  @ParameterizedTest
  @ValueSource(strings = {"3.4.9", "2.7.18", "5.0.0", "garbage", ""})
  void otherVersions_failNamingTheVersionAndTheRange(String version) {
    assertThatThrownBy(() -> SpringBootLine.require(version))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage(
            "Harbinger's Spring Boot starter needs Spring Boot 3.5 or a later 3.x, or 4.x (tested on"
                + " 3.5.7, 4.0.7 and 4.1.2), but runs on Spring Boot "
                + version
                + ": use a supported Spring Boot, or the RabbitMQ client integration"
                + " (io.harbinger:harbinger-rabbitmq) directly");
  }

  @org.junit.jupiter.api.Test
  void theBootThisBuildRuns_andAnUnknownVersion_pass() {
    assertThat(SpringBootLine.problem(SpringBootVersion.getVersion())).isNull();
    assertThat(SpringBootLine.problem(null)).isNull();
  }
}
