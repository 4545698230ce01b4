package io.harbinger.rabbit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class PrioritySchemeTest {

  private static List<Integer> priorities(PriorityScheme scheme, int levels) {
    List<Integer> out = new ArrayList<>();
    for (int level = 0; level < levels; level++) {
      out.add(scheme.priority(level, levels));
    }
    return out;
  }

  @Test
  void priority_classic_isLevelsMinusOneMinusLevel() {
    assertThat(priorities(PriorityScheme.CLASSIC, 3)).containsExactly(2, 1, 0);
    assertThat(priorities(PriorityScheme.CLASSIC, 5)).containsExactly(4, 3, 2, 1, 0);
  }

  @Test
  void priority_quorumFairShare_levelZeroHighEveryOtherLevelAnExplicitNormal() {
    assertThat(priorities(PriorityScheme.QUORUM_FAIR_SHARE, 3)).containsExactly(5, 4, 4);
    assertThat(priorities(PriorityScheme.QUORUM_FAIR_SHARE, 5)).containsExactly(5, 4, 4, 4, 4);
  }

  @Test
  void priority_quorumStrict_lowestLevelIsWhereAnUnsetPriorityLands() {
    assertThat(priorities(PriorityScheme.QUORUM_STRICT, 3)).containsExactly(6, 5, 4);
    assertThat(priorities(PriorityScheme.QUORUM_STRICT, 10).get(0)).isEqualTo(13);
    assertThat(priorities(PriorityScheme.QUORUM_STRICT, 10).get(9)).isEqualTo(4);
  }

  @Test
  void priority_none_isNull() {
    assertThat(priorities(PriorityScheme.NONE, 3)).containsOnlyNulls();
  }

  @Test
  void priority_outOfRange_isRefusedWithTheRule() {
    assertThatThrownBy(() -> PriorityScheme.CLASSIC.priority(3, 3))
        .hasMessage("level must be in [0, 2]: 3");
    assertThatThrownBy(() -> PriorityScheme.CLASSIC.priority(0, 11))
        .hasMessage("levels must be in [2, 10]: 11");
  }

  @Test
  void of_queueTypeAndVersion_followTheVersionTable() {
    assertThat(PriorityScheme.of(QueueType.CLASSIC, "3.10.8")).isEqualTo(PriorityScheme.CLASSIC);
    assertThat(PriorityScheme.of(QueueType.CLASSIC, "4.0.5")).isEqualTo(PriorityScheme.CLASSIC);
    assertThat(PriorityScheme.of(null, "4.0.5")).isEqualTo(PriorityScheme.CLASSIC);
    assertThat(PriorityScheme.of(QueueType.QUORUM, "3.10.8")).isEqualTo(PriorityScheme.NONE);
    assertThat(PriorityScheme.of(QueueType.QUORUM, "3.13.7")).isEqualTo(PriorityScheme.NONE);
    assertThat(PriorityScheme.of(QueueType.QUORUM, "4.0.5"))
        .isEqualTo(PriorityScheme.QUORUM_FAIR_SHARE);
    assertThat(PriorityScheme.of(QueueType.QUORUM, "4.2.1"))
        .isEqualTo(PriorityScheme.QUORUM_FAIR_SHARE);
    assertThat(PriorityScheme.of(QueueType.QUORUM, "4.3.0"))
        .isEqualTo(PriorityScheme.QUORUM_STRICT);
    assertThat(PriorityScheme.of(QueueType.QUORUM, "5.0.0-rc.1"))
        .isEqualTo(PriorityScheme.QUORUM_STRICT);
    assertThat(PriorityScheme.of(QueueType.STREAM, "4.3.0")).isEqualTo(PriorityScheme.NONE);
  }

  @Test
  void of_unknownOrGarbageVersion_quorumGetsTheSchemeEvery4xHonours() {
    assertThat(PriorityScheme.of(QueueType.QUORUM, null))
        .isEqualTo(PriorityScheme.QUORUM_FAIR_SHARE);
    assertThat(PriorityScheme.of(QueueType.QUORUM, "garbage"))
        .isEqualTo(PriorityScheme.QUORUM_FAIR_SHARE);
    assertThat(PriorityScheme.of(QueueType.QUORUM, "4"))
        .isEqualTo(PriorityScheme.QUORUM_FAIR_SHARE);
  }
}
