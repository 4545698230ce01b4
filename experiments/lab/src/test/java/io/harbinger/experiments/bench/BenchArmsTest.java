package io.harbinger.experiments.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.harbinger.broker.Policy;
import io.harbinger.experiments.analysis.Analysis;
import io.harbinger.predictor.PredictorConfig;
import java.util.List;
import org.junit.jupiter.api.Test;

class ArmsTest {

  @Test
  void predictorConfig_isTheProductsDefaultsAtTheArmsLevels() {
    assertThat(RabbitArm.predictorConfig(3)).isEqualTo(PredictorConfig.defaults());
    assertThat(RabbitArm.predictorConfig(5))
        .isEqualTo(PredictorConfig.defaults().toBuilder().levels(5).build());
  }

  @Test
  void names_listTheArmsTheEvidenceCites() {
    assertThat(BenchArms.names())
        .containsExactly(
            "rabbitmq-fifo",
            "rabbitmq-static-tuned",
            "rabbitmq-predictive",
            "rabbitmq-sidecar",
            "rabbitmq-oracle",
            "rabbitmq-lanes",
            "rabbitmq-lanes-quorum",
            "rabbitmq-lanes-pull",
            "redis-fifo",
            "broker-fifo",
            "broker-predictive",
            "broker-weighted");
  }

  @Test
  void byName_everyName_createsTheArmOfThatName() {
    for (String name : BenchArms.names()) {
      BenchArm arm = BenchArms.byName(name);
      assertThat(arm.name()).isEqualTo(name);
      assertThat(arm.backend())
          .isEqualTo(
              name.startsWith("rabbitmq")
                  ? BenchArm.Backend.RABBITMQ
                  : name.startsWith("redis") ? BenchArm.Backend.REDIS : BenchArm.Backend.NONE);
    }
  }

  @Test
  void byName_unknown_listsTheKnownArms() {
    assertThatThrownBy(() -> BenchArms.byName("kafka-fifo"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("arm must be one of rabbitmq-fifo, ")
        .hasMessageEndingWith(": kafka-fifo");
  }

  @Test
  void names_pairWithTheirBrokersFifoInTheAnalysis() {
    List<String> all = BenchArms.names();

    assertThat(Analysis.baselineFor("rabbitmq-predictive", all)).isEqualTo("rabbitmq-fifo");
    assertThat(Analysis.baselineFor("rabbitmq-sidecar", all)).isEqualTo("rabbitmq-fifo");
    assertThat(Analysis.baselineFor("rabbitmq-static-tuned", all)).isEqualTo("rabbitmq-fifo");
    assertThat(Analysis.baselineFor("rabbitmq-lanes-pull", all)).isEqualTo("rabbitmq-fifo");
    assertThat(Analysis.baselineFor("broker-weighted", all)).isEqualTo("broker-fifo");
    assertThat(Analysis.baselineFor("broker-predictive", all)).isEqualTo("broker-fifo");
    assertThat(Analysis.baselineFor("redis-fifo", all)).isNull();
  }

  @Test
  void rabbitArm_staticWithoutMap_isRejected() {
    assertThatThrownBy(() -> new RabbitArm("x", Policy.STATIC_TUNED, 3, null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("static map");
    assertThatThrownBy(() -> new RabbitArm("x", Policy.FIFO, 11, null))
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
