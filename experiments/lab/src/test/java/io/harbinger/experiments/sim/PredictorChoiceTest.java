package io.harbinger.experiments.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.harbinger.predictor.PredictorConfig;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class PredictorChoiceTest {

  @Test
  void parse_profileAlone_isTheProfile() {
    PredictorChoice steady = PredictorChoice.parse(" Steady ");

    assertThat(steady.label()).isEqualTo("steady");
    assertThat(steady.config()).isEqualTo(PredictorProfile.STEADY.config());
  }

  @Test
  void parse_overrides_changeOnlyWhatTheyName() {
    PredictorChoice c = PredictorChoice.parse("steady:minObservations=2:idleHalfLife=600");

    assertThat(c.label()).isEqualTo("steady:minObservations=2:idleHalfLife=600");
    assertThat(c.config().minObservations()).isEqualTo(2);
    assertThat(c.config().idleHalfLife()).isEqualTo(Duration.ofMinutes(10));
    assertThat(c.config())
        .isEqualTo(
            PredictorProfile.STEADY.config().toBuilder()
                .minObservations(2)
                .idleHalfLife(Duration.ofMinutes(10))
                .build());
  }

  @Test
  void parse_safeguardOverrides_reachTheConfiguration() {
    PredictorChoice c =
        PredictorChoice.parse(
            "steady:safeguardLoad=0.95:safeguardMargin=0.05:mispredictionEnter=1:mispredictionExit=0.5");

    assertThat(c.config().safeguardLoad()).isEqualTo(0.95);
    assertThat(c.config().safeguardMargin()).isEqualTo(0.05);
    assertThat(c.config().mispredictionEnter()).isEqualTo(1.0);
    assertThat(c.config().mispredictionExit()).isEqualTo(0.5);
    assertThatThrownBy(() -> PredictorChoice.parse("steady:safeguardLoad=2"))
        .hasMessageContaining("safeguardLoad");
  }

  @Test
  void steadyReach_isSteadyWithItsThreeReachSettings() {
    assertThat(
            PredictorChoice.parse("steady:minObservations=1:maxSpreadRatio=1000:tailBudget=1.1")
                .config())
        .isEqualTo(PredictorProfile.STEADY_REACH.config());
  }

  @Test
  void sizeProfiles_areTheDefaultsNowAndSteadyReachWithTheSizeParent() {
    assertThat(PredictorChoice.parse("steady:borrowFromSize=true").config())
        .isEqualTo(PredictorProfile.STEADY_SIZE.config())
        .isEqualTo(PredictorConfig.defaults());
    assertThat(PredictorChoice.parse("steady_reach:borrowFromSize=true").config())
        .isEqualTo(PredictorProfile.STEADY_REACH_SIZE.config());
    // Profiles measured before the size parent became a default keep it off.
    assertThat(PredictorProfile.STEADY.config().borrowFromSize()).isFalse();
    assertThat(PredictorProfile.TODAY.config().borrowFromSize()).isFalse();
    assertThatThrownBy(() -> PredictorChoice.parse("steady:borrowFromSize=maybe"))
        .hasMessage("borrowFromSize must be true or false: maybe");
  }

  @Test
  void parse_garbage_namesWhatIsWrong() {
    assertThatThrownBy(() -> PredictorChoice.parse("fastest"))
        .hasMessageStartingWith("predictor must be one of default, today,")
        .hasMessageEndingWith(": fastest");
    assertThatThrownBy(() -> PredictorChoice.parse("steady:minObservations"))
        .hasMessage("an override must be NAME=VALUE: minObservations");
    assertThatThrownBy(() -> PredictorChoice.parse("steady:"))
        .hasMessage("an override must be NAME=VALUE: ");
    assertThatThrownBy(() -> PredictorChoice.parse("steady:colour=red"))
        .hasMessage("unknown override: colour");
    assertThatThrownBy(() -> PredictorChoice.parse("steady:minObservations=many"))
        .hasMessage("minObservations must be a number: many");
    assertThatThrownBy(() -> PredictorChoice.parse("steady:keyGuard=yes"))
        .hasMessage("keyGuard must be true or false: yes");
    assertThatThrownBy(() -> PredictorChoice.parse("steady:minObservations=0"))
        .hasMessageContaining("minObservations");
  }
}
