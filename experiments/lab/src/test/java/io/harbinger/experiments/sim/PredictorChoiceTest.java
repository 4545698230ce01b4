package io.harbinger.experiments.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.harbinger.predictor.PredictorConfig;
import io.harbinger.predictor.PredictorTuning;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PredictorChoiceTest {

  private static final PredictorConfig CONFIG = PredictorConfig.defaults();
  private static final PredictorTuning TUNING = PredictorTuning.defaults();

  @Test
  void parse_profileAlone_isTheProfile() {
    PredictorChoice c = PredictorChoice.parse(" Without_Size_Borrowing ");

    assertThat(c.label()).isEqualTo("without_size_borrowing");
    assertThat(c.config()).isEqualTo(PredictorProfile.WITHOUT_SIZE_BORROWING.config());
    assertThat(c.tuning()).isEqualTo(PredictorProfile.WITHOUT_SIZE_BORROWING.tuning());
  }

  @Test
  void parse_overrides_changeOnlyWhatTheyName() {
    PredictorChoice c =
        PredictorChoice.parse("without_size_borrowing:minObservations=2:idleHalfLife=600");

    assertThat(c.label()).isEqualTo("without_size_borrowing:minObservations=2:idleHalfLife=600");
    assertThat(c.config().minObservations()).isEqualTo(2);
    assertThat(c.tuning().idleHalfLife()).isEqualTo(Duration.ofMinutes(10));
    assertThat(c.config())
        .isEqualTo(
            PredictorProfile.WITHOUT_SIZE_BORROWING.config().toBuilder()
                .minObservations(2)
                .build());
    assertThat(c.tuning())
        .isEqualTo(
            PredictorProfile.WITHOUT_SIZE_BORROWING.tuning().toBuilder()
                .idleHalfLife(Duration.ofMinutes(10))
                .build());
  }

  @Test
  void parse_safeguardOverrides_reachTheTuning() {
    PredictorChoice c =
        PredictorChoice.parse(
            "without_size_borrowing:safeguardLoad=0.95:safeguardMargin=0.05:mispredictionEnter=1:mispredictionExit=0.5");

    assertThat(c.tuning().safeguardLoad()).isEqualTo(0.95);
    assertThat(c.tuning().safeguardMargin()).isEqualTo(0.05);
    assertThat(c.tuning().mispredictionEnter()).isEqualTo(1.0);
    assertThat(c.tuning().mispredictionExit()).isEqualTo(0.5);
    assertThatThrownBy(() -> PredictorChoice.parse("defaults:safeguardLoad=2"))
        .hasMessageContaining("safeguardLoad");
  }

  @Test
  void parse_everyParameterOfSettingsAndTuning_canBeOverridden() {
    Map<String, String> values = new LinkedHashMap<>();
    values.put("levels", "5");
    values.put("keyDecay", "0.99");
    values.put("staleAfter", "1800");
    values.put("minObservations", "10");
    values.put("maxSpreadRatio", "32");
    values.put("maxKeys", "4096");
    values.put("sizeBins", "true");
    values.put("safeguard", "false");
    values.put("tailBudget", "1.5");
    values.put("untrustedLast", "false");
    values.put("pooledDecay", "0.999");
    values.put("idleHalfLife", "600");
    values.put("maxCensoredShare", "0.1");
    values.put("spreadQuantile", "0.9");
    values.put("spreadFloor", "0.01");
    values.put("estimateQuantile", "0.75");
    values.put("boundaryMinObservations", "20");
    values.put("boundaryRefreshEvery", "64");
    values.put("boundaryHysteresis", "0");
    values.put("tierHysteresis", "0");
    values.put("shards", "4");
    values.put("coldEvictionGrace", "60");
    values.put("idleEviction", "60");
    values.put("demoteUntrusted", "false");
    values.put("keyGuard", "false");
    values.put("mispredictionEnter", "1");
    values.put("mispredictionExit", "0.5");
    values.put("mispredictionMemory", "64");
    values.put("safeguardMargin", "0.05");
    values.put("safeguardHysteresis", "0.05");
    values.put("safeguardLoad", "0.9");
    values.put("safeguardMinReports", "100");
    values.put("safeguardDecay", "0.999");
    values.put("borrowFromProducer", "false");
    values.put("borrowFromSize", "false");
    values.put("relativeIdle", "10");
    values.put("shiftRun", "0");
    values.put("promoteColdAfter", "3");
    values.put("tailLimit", "2");
    values.put("tailSink", "2");
    assertThat(values)
        .hasSize(
            PredictorConfig.class.getRecordComponents().length
                + PredictorTuning.class.getRecordComponents().length);
    for (Map.Entry<String, String> v : values.entrySet()) {
      assertThat(PredictorOverrides.NAMES).contains(v.getKey());
      PredictorChoice c = PredictorChoice.parse("defaults:" + v.getKey() + "=" + v.getValue());
      assertThat(List.of(c.config(), c.tuning()))
          .as(v.getKey())
          .isNotEqualTo(List.of(CONFIG, TUNING));
    }
  }

  @Test
  void parse_overridesThatBreakARuleJoiningSettingsAndTuning_areRefusedAtOnce() {
    assertThatThrownBy(() -> PredictorChoice.parse("defaults:promoteColdAfter=20"))
        .hasMessage("promoteColdAfter must be 0 or in [1, minObservations = 20): 20");
    assertThatThrownBy(() -> PredictorChoice.parse("defaults:maxKeys=8"))
        .hasMessage("maxKeys must be at least shards (16): 8");
    assertThat(PredictorChoice.parse("defaults:maxKeys=8:shards=8").config().maxKeys())
        .isEqualTo(8);
  }

  @Test
  void defaults_isTheProducts() {
    assertThat(PredictorProfile.DEFAULTS.config()).isEqualTo(CONFIG);
    assertThat(PredictorProfile.DEFAULTS.tuning()).isEqualTo(TUNING);
  }

  @Test
  void fewObservations_isTheDefaultsWithItsThreeSettings() {
    PredictorChoice parsed =
        PredictorChoice.parse("defaults:minObservations=1:maxSpreadRatio=1000:tailBudget=1.1");
    assertThat(parsed.config()).isEqualTo(PredictorProfile.FEW_OBSERVATIONS.config());
    assertThat(parsed.config()).isEqualTo(CONFIG.toBuilder().fewObservations().build());
    assertThat(PredictorProfile.FEW_OBSERVATIONS.tuning()).isEqualTo(TUNING);
  }

  @Test
  void table1_isSeedPaperTableOneWithNoDeparture() {
    PredictorProfile t = PredictorProfile.TABLE1;
    assertThat(t.config())
        .isEqualTo(
            CONFIG.toBuilder()
                .staleAfter(Duration.ofMinutes(30))
                .safeguard(false)
                .tailBudget(0)
                .untrustedLast(false)
                .build());
    assertThat(t.tuning())
        .isEqualTo(
            TUNING.toBuilder()
                .idleHalfLife(Duration.ofMinutes(10))
                .demoteUntrusted(false)
                .keyGuard(false)
                .borrowFromProducer(false)
                .borrowFromSize(false)
                .shiftRun(0)
                .build());
    // Table 1's own values, which the defaults keep.
    assertThat(t.config().levels()).isEqualTo(3);
    assertThat(t.config().minObservations()).isEqualTo(20);
    assertThat(t.config().maxSpreadRatio()).isEqualTo(16);
    assertThat(t.config().keyDecay()).isEqualTo(0.995);
    assertThat(t.tuning().pooledDecay()).isEqualTo(0.9999);
    assertThat(t.tuning().maxCensoredShare()).isEqualTo(0.05);
    assertThat(t.tuning().boundaryMinObservations()).isEqualTo(100);
    assertThat(t.tuning().boundaryRefreshEvery()).isEqualTo(256);
  }

  @Test
  void oneDepartureProfiles_areTheDefaultsWithThatDepartureUndone() {
    assertProfile(
        PredictorProfile.WITHOUT_SIZE_BORROWING, CONFIG, TUNING.toBuilder().borrowFromSize(false));
    assertProfile(
        PredictorProfile.WITHOUT_PRODUCER_BORROWING,
        CONFIG,
        TUNING.toBuilder().borrowFromProducer(false));
    assertProfile(
        PredictorProfile.WITH_CLOCK_FORGETTING,
        CONFIG.toBuilder().staleAfter(Duration.ofMinutes(30)).build(),
        TUNING.toBuilder().idleHalfLife(Duration.ofMinutes(10)));
    assertProfile(
        PredictorProfile.WITHOUT_TAIL_BUDGET,
        CONFIG.toBuilder().tailBudget(0).build(),
        TUNING.toBuilder());
    assertProfile(PredictorProfile.WITHOUT_SHIFT_RUN, CONFIG, TUNING.toBuilder().shiftRun(0));
    assertProfile(
        PredictorProfile.UNTRUSTED_AT_DEFAULT_LEVEL,
        CONFIG.toBuilder().untrustedLast(false).build(),
        TUNING.toBuilder());
    assertProfile(
        PredictorProfile.WITHOUT_SAFEGUARDS,
        CONFIG.toBuilder().safeguard(false).build(),
        TUNING.toBuilder().keyGuard(false));
    assertProfile(
        PredictorProfile.WITHOUT_DEMOTION, CONFIG, TUNING.toBuilder().demoteUntrusted(false));
    // Each undoes a departure the defaults have: none of them is the defaults.
    for (PredictorProfile p : PredictorProfile.values()) {
      if (p != PredictorProfile.DEFAULTS) {
        assertThat(List.of(p.config(), p.tuning()))
            .as(p.label())
            .isNotEqualTo(List.of(CONFIG, TUNING));
      }
    }
    // The departures are what the defaults have, and Table 1 has not.
    assertThat(TUNING.borrowFromSize()).isTrue();
    assertThat(TUNING.borrowFromProducer()).isTrue();
    assertThat(TUNING.shiftRun()).isEqualTo(8);
    assertThat(TUNING.keyGuard()).isTrue();
    assertThat(TUNING.demoteUntrusted()).isTrue();
    assertThat(CONFIG.tailBudget()).isEqualTo(1.25);
    assertThat(CONFIG.untrustedLast()).isTrue();
    assertThat(CONFIG.safeguard()).isTrue();
    assertThat(CONFIG.staleAfter()).isZero();
  }

  private static void assertProfile(
      PredictorProfile p, PredictorConfig config, PredictorTuning.Builder tuning) {
    assertThat(p.config()).as(p.label()).isEqualTo(config);
    assertThat(p.tuning()).as(p.label()).isEqualTo(tuning.build());
    assertThat(PredictorChoice.parse(p.label()).config()).isEqualTo(config);
  }

  @Test
  void profiles_areTheElevenNamedForWhatTheyContain() {
    assertThat(Arrays.stream(PredictorProfile.values()).map(PredictorProfile::label))
        .containsExactly(
            "defaults",
            "table1",
            "few_observations",
            "without_size_borrowing",
            "without_producer_borrowing",
            "with_clock_forgetting",
            "without_tail_budget",
            "without_shift_run",
            "untrusted_at_default_level",
            "without_safeguards",
            "without_demotion");
  }

  @Test
  void parse_garbage_namesWhatIsWrong() {
    assertThatThrownBy(() -> PredictorChoice.parse("fastest"))
        .hasMessageStartingWith("predictor must be one of defaults, table1,")
        .hasMessageEndingWith(": fastest");
    assertThatThrownBy(() -> PredictorChoice.parse("today"))
        .hasMessageStartingWith("predictor must be one of");
    assertThatThrownBy(() -> PredictorChoice.parse("defaults:minObservations"))
        .hasMessage("an override must be NAME=VALUE: minObservations");
    assertThatThrownBy(() -> PredictorChoice.parse("defaults:"))
        .hasMessage("an override must be NAME=VALUE: ");
    assertThatThrownBy(() -> PredictorChoice.parse("defaults:colour=red"))
        .hasMessage("unknown override: colour");
    assertThatThrownBy(() -> PredictorChoice.parse("defaults:minObservations=many"))
        .hasMessage("minObservations must be a number: many");
    assertThatThrownBy(() -> PredictorChoice.parse("defaults:keyGuard=yes"))
        .hasMessage("keyGuard must be true or false: yes");
    assertThatThrownBy(() -> PredictorChoice.parse("defaults:borrowFromSize=maybe"))
        .hasMessage("borrowFromSize must be true or false: maybe");
    assertThatThrownBy(() -> PredictorChoice.parse("defaults:minObservations=0"))
        .hasMessageContaining("minObservations");
  }
}
