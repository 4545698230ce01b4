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
        .containsExactly(
            "broker-fifo",
            "broker-predictive",
            "broker-weighted",
            "broker-no-aging",
            "broker-fair",
            "broker-oracle");
    ArmDefinition weighted = Arms.byName("broker-weighted", EnumSet.of(RunsOn.BROKER));
    assertThat(weighted.policy()).isEqualTo(Policy.PREDICTIVE);
    assertThat(weighted.selection()).isEqualTo(Selection.WEIGHTED);
    assertThat(weighted.aging()).isEqualTo(AgingMode.PAUSING);
  }

  @Test
  void byName_armOfAnotherRuntime_isRefusedListingTheCallersArms() {
    assertThatThrownBy(() -> Arms.byName("rabbitmq-fifo", EnumSet.of(RunsOn.BROKER)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("arm must be one of broker-fifo, ")
        .hasMessageEndingWith(": rabbitmq-fifo");
  }

  private static ArmDefinition quorumPull() {
    return Arms.byName("rabbitmq-lanes-quorum-pull", EnumSet.of(RunsOn.RABBITMQ));
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
        .containsExactly(
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
            "rabbitmq-lanes-oracle-pull");
    assertThat(Arms.on(EnumSet.allOf(RunsOn.class)))
        .filteredOn(ArmDefinition::pullLanes)
        .allMatch(a -> a.name().endsWith("-pull") && a.lanePrefetch() == 0);
    assertThat(quorumPull().layout()).isEqualTo(QueueLayout.QUORUM_LANES);
    assertThat(Arms.byName("rabbitmq-lanes-oracle-pull", EnumSet.of(RunsOn.RABBITMQ)).policy())
        .isEqualTo(Policy.ORACLE);
    assertThat(quorumPull().aging()).isEqualTo(AgingMode.PAUSING);
    assertThat(Arms.byName("rabbitmq-lanes-strict-pull", EnumSet.of(RunsOn.RABBITMQ)).aging())
        .isEqualTo(AgingMode.NONE);
    ArmDefinition quorum = Arms.byName("rabbitmq-lanes-quorum", EnumSet.of(RunsOn.RABBITMQ));
    assertThat(quorum.layout()).isEqualTo(QueueLayout.QUORUM_LANES);
    assertThat(quorum.selection()).isEqualTo(Selection.WEIGHTED);
    assertThat(quorum.aging()).isEqualTo(AgingMode.PAUSING);
    assertThat(Arms.byName("rabbitmq-lanes-5", EnumSet.of(RunsOn.RABBITMQ)).levels()).isEqualTo(5);
    assertThat(quorum.lanePrefetch()).isZero();
    assertThat(
            Arms.byName("rabbitmq-lanes-quorum-prefetch1", EnumSet.of(RunsOn.RABBITMQ))
                .lanePrefetch())
        .isEqualTo(1);
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
    ArmDefinition quorumPriorities =
        Arms.byName("rabbitmq-predictive-quorum", EnumSet.of(RunsOn.RABBITMQ));
    assertThat(quorumPriorities.layout()).isEqualTo(QueueLayout.QUORUM_PRIORITY_QUEUE);
    assertThat(quorumPriorities.layout().isLanes()).isFalse();
    assertThat(quorumPriorities.selection()).isEqualTo(Selection.STRICT);
    ArmDefinition quorumFifo = Arms.byName("rabbitmq-fifo-quorum", EnumSet.of(RunsOn.RABBITMQ));
    assertThat(quorumFifo.layout()).isEqualTo(QueueLayout.QUORUM_PRIORITY_QUEUE);
    assertThat(quorumFifo.policy()).isEqualTo(Policy.FIFO);
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
                    "redis-fair", RunsOn.REDIS, Policy.FAIR, Selection.STRICT, AgingMode.NONE, 3))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("arm redis-fair: policy fair does not run on REDIS");
  }
}
