package io.harbinger.scheduler;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class SchedulerConfigTest {

  @Test
  void config_weightsNotMatchingLevels_isRefused() {
    assertThatThrownBy(
            () ->
                new SchedulerConfig(
                    4,
                    Selection.WEIGHTED,
                    AgingMode.PAUSING,
                    List.of(8, 3, 1),
                    Duration.ofSeconds(5),
                    Duration.ofMillis(500)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("weights must have one entry per level (4): [8, 3, 1]");
    assertThatThrownBy(() -> SchedulerConfig.defaults().withSelection(null))
        .isInstanceOf(NullPointerException.class);
    assertThatThrownBy(
            () ->
                new SchedulerConfig(
                    12,
                    Selection.STRICT,
                    AgingMode.PLAIN,
                    List.of(),
                    Duration.ofSeconds(5),
                    Duration.ofMillis(500)))
        .hasMessage("levels must be in [2, 10]: 12");
  }
}
