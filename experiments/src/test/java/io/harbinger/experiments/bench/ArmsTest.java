package io.harbinger.experiments.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.harbinger.experiments.stats.AnalysisReport;
import java.util.List;
import org.junit.jupiter.api.Test;

class ArmsTest {

  @Test
  void names_listEveryArmOfTheIssue() {
    assertThat(Arms.names())
        .containsExactly(
            "rabbitmq-fifo",
            "rabbitmq-static-tuned",
            "rabbitmq-static-misconfigured",
            "rabbitmq-predictive",
            "rabbitmq-predictive-5",
            "rabbitmq-shadow",
            "rabbitmq-sidecar",
            "rabbitmq-oracle",
            "rabbitmq-oracle-5",
            "rabbitmq-naive",
            "rabbitmq-predictive-paper",
            "redis-fifo",
            "broker-fifo",
            "broker-predictive",
            "broker-weighted",
            "broker-no-aging",
            "broker-fair",
            "broker-oracle");
  }

  @Test
  void byName_everyName_createsTheArmOfThatName() {
    for (String name : Arms.names()) {
      Arm arm = Arms.byName(name);
      assertThat(arm.name()).isEqualTo(name);
      assertThat(arm.backend())
          .isEqualTo(
              name.startsWith("rabbitmq")
                  ? Arm.Backend.RABBITMQ
                  : name.startsWith("redis") ? Arm.Backend.REDIS : Arm.Backend.NONE);
    }
  }

  @Test
  void byName_unknown_listsTheKnownArms() {
    assertThatThrownBy(() -> Arms.byName("kafka-fifo"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("arm must be one of rabbitmq-fifo, ")
        .hasMessageEndingWith(": kafka-fifo");
  }

  @Test
  void names_pairWithTheirBrokersFifoInTheAnalysis() {
    List<String> all = Arms.names();

    assertThat(AnalysisReport.baselineFor("rabbitmq-predictive", all)).isEqualTo("rabbitmq-fifo");
    assertThat(AnalysisReport.baselineFor("rabbitmq-sidecar", all)).isEqualTo("rabbitmq-fifo");
    assertThat(AnalysisReport.baselineFor("rabbitmq-static-tuned", all)).isEqualTo("rabbitmq-fifo");
    assertThat(AnalysisReport.baselineFor("broker-oracle", all)).isEqualTo("broker-fifo");
    assertThat(AnalysisReport.baselineFor("redis-fifo", all)).isNull();
  }

  @Test
  void rabbitArm_staticWithoutMap_isRejected() {
    assertThatThrownBy(() -> new RabbitArm("x", RabbitArm.Kind.STATIC, 3, null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("static map");
    assertThatThrownBy(() -> new RabbitArm("x", RabbitArm.Kind.FIFO, 11, null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("levels must be in [2, 10]: 11");
  }

  @Test
  void redisVersion_fromInfo_readsTheVersionLine() {
    assertThat(RedisFifoArm.version("# Server\r\nredis_version:7.0.15\r\nos:Linux\r\n"))
        .isEqualTo("7.0.15");
    assertThat(RedisFifoArm.version("garbage")).isEqualTo("unknown");
  }
}
