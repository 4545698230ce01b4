package io.harbinger.rabbit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.harbinger.scheduler.AgingMode;
import io.harbinger.scheduler.Selection;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class LanesTest {

  @Test
  void laneName_lowestLevelIsTheLogicalQueue_othersSuffixed() {
    LaneLayout layout = new LaneLayout("jobs", 3, Map.of());
    assertThat(layout.laneNames()).containsExactly("jobs.lane-0", "jobs.lane-1", "jobs");
    assertThat(layout.levelOf("jobs")).isEqualTo(2);
    assertThat(layout.levelOf("jobs.lane-0")).isZero();
    assertThat(layout.levelOf("jobs.lane-2")).isEqualTo(-1);
    assertThat(layout.type()).isEqualTo(QueueType.CLASSIC);
  }

  @Test
  void laneName_levelOutsideTheLaneCount_namesTheRange() {
    LaneLayout layout = new LaneLayout("jobs", 3, Map.of());
    assertThatThrownBy(() -> layout.laneName(3))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("level must be in [0, 3) for the lanes of 'jobs': 3");
    assertThatThrownBy(() -> layout.laneName(-1)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void laneFor_levelsLane_lowestInShadowModeOrOutOfRange() {
    LaneLayout layout = new LaneLayout("jobs", 3, Map.of());
    assertThat(layout.laneFor(0, false)).isEqualTo("jobs.lane-0");
    assertThat(layout.laneFor(1, false)).isEqualTo("jobs.lane-1");
    assertThat(layout.laneFor(2, false)).isEqualTo("jobs");
    assertThat(layout.laneFor(0, true)).isEqualTo("jobs");
    assertThat(layout.laneFor(3, false)).isEqualTo("jobs");
    assertThat(layout.laneFor(-1, false)).isEqualTo("jobs");
  }

  @Test
  void layout_levelsOutside2to10_emptyName_refused() {
    assertThatThrownBy(() -> LaneOptions.defaults().withFetch(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("fetch");
    assertThatThrownBy(() -> new LaneLayout("jobs", 1, Map.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("levels");
    assertThatThrownBy(() -> new LaneLayout("jobs", 11, Map.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("levels");
    assertThatThrownBy(() -> new LaneLayout("", 3, Map.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("non-empty");
  }

  @Test
  void layout_maxPriorityOrStreamOrUnknownType_refusedWithTheFix() {
    assertThatThrownBy(() -> Lanes.layout("jobs", 3, Map.of("x-max-priority", 2)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("lanes replace priorities");
    assertThatThrownBy(() -> Lanes.layout("jobs", 3, Map.of("x-queue-type", "stream")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("declare classic or quorum lanes");
    assertThatThrownBy(() -> Lanes.layout("jobs", 3, Map.of("x-queue-type", "fast")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("x-queue-type must be");
  }

  @Test
  void layout_userArgumentsPassThroughToEveryLane() {
    Map<String, Object> args =
        Map.of(
            "x-queue-type", "quorum",
            "x-dead-letter-exchange", "dlx",
            "x-message-ttl", 60_000,
            "x-max-length", 1_000,
            "x-delivery-limit", 5);
    LaneLayout layout = Lanes.layout("jobs", 3, args);
    assertThat(layout.arguments()).isEqualTo(args);
    assertThat(layout.type()).isEqualTo(QueueType.QUORUM);
  }

  @Test
  void defaultWeights_threeLevelsArePapers_othersGeometricFrom8To1() {
    assertThat(LaneOptions.defaultWeights(3)).containsExactly(8, 3, 1);
    assertThat(LaneOptions.defaultWeights(2)).containsExactly(8, 1);
    assertThat(LaneOptions.defaultWeights(5)).containsExactly(8, 5, 3, 2, 1);
    for (int levels = 2; levels <= 10; levels++) {
      List<Integer> w = LaneOptions.defaultWeights(levels);
      assertThat(w).hasSize(levels).startsWith(8).endsWith(1).isSortedAccordingTo((a, b) -> b - a);
    }
  }

  @Test
  void options_defaultsAreWeightedWithPausingAging() {
    LaneOptions o = LaneOptions.defaults();
    assertThat(o.selection()).isEqualTo(Selection.WEIGHTED);
    assertThat(o.aging()).isEqualTo(AgingMode.PAUSING);
    assertThat(o.weightsFor(3)).containsExactly(8, 3, 1);
    assertThat(o.schedulerConfig(5).weights()).containsExactly(8, 5, 3, 2, 1);
    assertThat(LaneOptions.strict().selection()).isEqualTo(Selection.STRICT);
    assertThat(LaneOptions.strict().aging()).isEqualTo(AgingMode.NONE);
  }

  @Test
  void options_nonPositiveWeights_wrongCount_badDurations_refused() {
    assertThatThrownBy(() -> LaneOptions.defaults().withWeights(List.of(8, 0, 1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("lane weights must each be a positive integer in [1, 1000]: [8, 0, 1]");
    assertThatThrownBy(() -> LaneOptions.defaults().withWeights(List.of(8, -3, 1)))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> LaneOptions.defaults().withWeights(List.of(8, 1)).weightsFor(3))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("lane weights must have one entry per level (3): [8, 1]");
    assertThatThrownBy(() -> LaneOptions.defaults().withAgingThreshold(Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("aging threshold must be positive");
    assertThatThrownBy(() -> LaneOptions.defaults().withLanePrefetch(-1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("lanePrefetch");
    assertThatThrownBy(() -> LaneOptions.defaults().withAnticipation(Duration.ofSeconds(2)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("anticipation");
  }
}
