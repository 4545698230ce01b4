package io.harbinger.experiments.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.harbinger.broker.Policy;
import io.harbinger.experiments.analysis.Analysis;
import java.util.List;
import org.junit.jupiter.api.Test;

class ArmsTest {

  @Test
  void shiftRun_isTheDefaultExceptForThePapersAndTodaysPredictor() {
    assertThat(RabbitArm.shiftRun(Policy.PREDICTIVE))
        .isEqualTo(io.harbinger.predictor.PredictorConfig.DEFAULT_SHIFT_RUN)
        .isEqualTo(RabbitArm.shiftRun(Policy.PREDICTIVE_SHIFT))
        .isEqualTo(RabbitArm.shiftRun(Policy.PREDICTIVE_SIZED))
        .isEqualTo(8);
    assertThat(RabbitArm.shiftRun(Policy.PREDICTIVE_PAPER)).isZero();
    assertThat(RabbitArm.shiftRun(Policy.PREDICTIVE_TODAY)).isZero();
  }

  @Test
  void tableOneIdle_onlyForTheArmsMeasuredBeforeTheClockStoppedForgetting() {
    assertThat(RabbitArm.tableOneIdle(Policy.PREDICTIVE)).isFalse();
    assertThat(RabbitArm.tableOneIdle(Policy.SHADOW)).isFalse();
    assertThat(RabbitArm.tableOneIdle(Policy.PREDICTIVE_LAST)).isTrue();
    assertThat(RabbitArm.tableOneIdle(Policy.PREDICTIVE_BUDGET)).isTrue();
    assertThat(RabbitArm.tableOneIdle(Policy.PREDICTIVE_TODAY)).isTrue();
    assertThat(RabbitArm.untrustedLast(Policy.PREDICTIVE_LAST)).isTrue();
    assertThat(RabbitArm.tailBudget(Policy.PREDICTIVE_LAST))
        .isEqualTo(io.harbinger.predictor.PredictorConfig.DEFAULT_TAIL_BUDGET);
  }

  @Test
  void predictorConfig_isTheDefaultsForPredictiveAndAddsTheFewObservationSettingsForFew() {
    assertThat(RabbitArm.predictorConfig(Policy.PREDICTIVE, 3))
        .isEqualTo(io.harbinger.predictor.PredictorConfig.defaults());
    assertThat(RabbitArm.predictorConfig(Policy.PREDICTIVE_FEW, 3))
        .isEqualTo(
            io.harbinger.predictor.PredictorConfig.defaults().toBuilder()
                .fewObservations()
                .build());
    assertThat(RabbitArm.predictorConfig(Policy.PREDICTIVE_LAST, 3))
        .isEqualTo(io.harbinger.predictor.PredictorConfig.builder().paperIdleLimits().build());
  }

  @Test
  void names_listEveryArmOfTheIssue() {
    assertThat(BenchArms.names())
        .containsExactly(
            "rabbitmq-fifo",
            "rabbitmq-fifo-quorum",
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
            "rabbitmq-predictive-today",
            "rabbitmq-predictive-sized",
            "rabbitmq-predictive-shift",
            "rabbitmq-predictive-budget",
            "rabbitmq-predictive-last",
            "rabbitmq-predictive-equal",
            "rabbitmq-predictive-few",
            "rabbitmq-predictive-quorum",
            "rabbitmq-lanes",
            "rabbitmq-lanes-quorum",
            "rabbitmq-lanes-strict",
            "rabbitmq-lanes-5",
            "rabbitmq-lanes-oracle",
            "rabbitmq-lanes-quorum-prefetch1",
            "rabbitmq-lanes-quorum-pull",
            "rabbitmq-lanes-pull",
            "rabbitmq-lanes-strict-pull",
            "rabbitmq-lanes-5-pull",
            "rabbitmq-lanes-oracle-pull",
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
    assertThat(Analysis.baselineFor("broker-oracle", all)).isEqualTo("broker-fifo");
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
