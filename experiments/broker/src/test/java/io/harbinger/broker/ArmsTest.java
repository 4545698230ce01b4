package io.harbinger.broker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.harbinger.scheduler.AgingMode;
import io.harbinger.scheduler.Selection;
import java.util.EnumSet;
import java.util.List;
import org.junit.jupiter.api.Test;

class ArmsTest {

  @Test
  void on_broker_listsTheBenchmarksBrokerArmsWithTheirScheduling() {
    List<ArmDefinition> broker = Arms.on(EnumSet.of(RunsOn.BROKER));
    assertThat(broker)
        .extracting(ArmDefinition::name)
        .containsExactly("broker-fifo", "broker-predictive", "broker-weighted");
    ArmDefinition strict = Arms.byName("broker-predictive", EnumSet.of(RunsOn.BROKER));
    assertThat(strict.policy()).isEqualTo(Policy.PREDICTIVE);
    assertThat(strict.selection()).isEqualTo(Selection.STRICT);
    assertThat(strict.aging()).isEqualTo(AgingMode.PLAIN);
    ArmDefinition weighted = Arms.byName("broker-weighted", EnumSet.of(RunsOn.BROKER));
    assertThat(weighted.policy()).isEqualTo(Policy.PREDICTIVE);
    assertThat(weighted.selection()).isEqualTo(Selection.WEIGHTED);
    assertThat(weighted.aging()).isEqualTo(AgingMode.PAUSING);
  }

  @Test
  void byName_armOfAnotherRuntime_isRefusedListingTheCallersArms() {
    assertThatThrownBy(() -> Arms.byName("rabbitmq-fifo", EnumSet.of(RunsOn.BROKER)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("arm must be one of broker-fifo, broker-predictive, ")
        .hasMessageEndingWith(": rabbitmq-fifo");
  }

  private static ArmDefinition pull() {
    return Arms.byName("rabbitmq-lanes-pull", EnumSet.of(RunsOn.RABBITMQ));
  }

  @Test
  void on_everyRuntime_areTheTwelveArmsTheEvidenceCites() {
    assertThat(Arms.on(EnumSet.allOf(RunsOn.class)))
        .extracting(ArmDefinition::name)
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
    assertThat(Arms.on(EnumSet.allOf(RunsOn.class)))
        .extracting(ArmDefinition::levels)
        .containsOnly(3);
  }

  @Test
  void on_everyRuntime_namesAreUniqueAndEveryPolicyRunsWhereItIsDefined() {
    List<ArmDefinition> all = Arms.on(EnumSet.allOf(RunsOn.class));
    assertThat(all).extracting(ArmDefinition::name).doesNotHaveDuplicates();
    assertThat(all).allMatch(a -> a.runsOn().supports(a.policy()));
    // A RabbitMQ priority queue neither ages nor weighs; only lanes consumers do.
    assertThat(Arms.on(EnumSet.of(RunsOn.RABBITMQ)))
        .filteredOn(a -> !a.layout().isLanes())
        .extracting(ArmDefinition::aging)
        .containsOnly(AgingMode.NONE);
    assertThat(Arms.on(EnumSet.allOf(RunsOn.class)))
        .filteredOn(a -> a.layout().isLanes())
        .extracting(ArmDefinition::name)
        .containsExactly("rabbitmq-lanes", "rabbitmq-lanes-quorum", "rabbitmq-lanes-pull");
    assertThat(Arms.on(EnumSet.allOf(RunsOn.class)))
        .filteredOn(ArmDefinition::pullLanes)
        .allMatch(a -> a.name().endsWith("-pull") && a.lanePrefetch() == 0)
        .extracting(ArmDefinition::name)
        .containsExactly("rabbitmq-lanes-pull");
    assertThat(pull().layout()).isEqualTo(QueueLayout.CLASSIC_LANES);
    assertThat(pull().policy()).isEqualTo(Policy.PREDICTIVE);
    assertThat(pull().aging()).isEqualTo(AgingMode.PAUSING);
    ArmDefinition quorum = Arms.byName("rabbitmq-lanes-quorum", EnumSet.of(RunsOn.RABBITMQ));
    assertThat(quorum.layout()).isEqualTo(QueueLayout.QUORUM_LANES);
    assertThat(quorum.selection()).isEqualTo(Selection.WEIGHTED);
    assertThat(quorum.aging()).isEqualTo(AgingMode.PAUSING);
    assertThat(quorum.lanePrefetch()).isZero();
    assertThat(quorum.pullLanes()).isFalse();
    assertThatThrownBy(
            () ->
                new ArmDefinition(
                    "x",
                    RunsOn.RABBITMQ,
                    Policy.PREDICTIVE,
                    Selection.STRICT,
                    AgingMode.NONE,
                    3,
                    QueueLayout.PRIORITY_QUEUE,
                    List.of(),
                    1))
        .hasMessage("arm x: only lanes arms have a lane prefetch");
    assertThatThrownBy(
            () ->
                new ArmDefinition(
                    "y",
                    RunsOn.RABBITMQ,
                    Policy.PREDICTIVE,
                    Selection.STRICT,
                    AgingMode.NONE,
                    3,
                    QueueLayout.PRIORITY_QUEUE,
                    List.of(),
                    0,
                    true))
        .hasMessage("arm y: only lanes arms pull from lanes");
  }

  @Test
  void definition_lanesOffRabbitMqOrWeightsOfAnotherCount_areRefused() {
    assertThatThrownBy(
            () ->
                new ArmDefinition(
                    "broker-lanes",
                    RunsOn.BROKER,
                    Policy.FIFO,
                    Selection.STRICT,
                    AgingMode.NONE,
                    3,
                    QueueLayout.CLASSIC_LANES,
                    List.of()))
        .hasMessage("arm broker-lanes: only RabbitMQ arms have lanes or quorum queues");
    assertThatThrownBy(
            () ->
                new ArmDefinition(
                    "rabbitmq-lanes-x",
                    RunsOn.RABBITMQ,
                    Policy.PREDICTIVE,
                    Selection.WEIGHTED,
                    AgingMode.PAUSING,
                    3,
                    QueueLayout.CLASSIC_LANES,
                    List.of(8, 1)))
        .hasMessage("arm rabbitmq-lanes-x: weights must have one entry per level (3): [8, 1]");
  }

  @Test
  void definition_policyTheRuntimeCannotRun_isRefused() {
    assertThatThrownBy(
            () ->
                new ArmDefinition(
                    "redis-predictive",
                    RunsOn.REDIS,
                    Policy.PREDICTIVE,
                    Selection.STRICT,
                    AgingMode.NONE,
                    3))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("arm redis-predictive: policy predictive does not run on REDIS");
    assertThatThrownBy(
            () ->
                new ArmDefinition(
                    "broker-sidecar",
                    RunsOn.BROKER,
                    Policy.SIDECAR,
                    Selection.STRICT,
                    AgingMode.NONE,
                    3))
        .hasMessage("arm broker-sidecar: policy sidecar does not run on BROKER");
  }
}
