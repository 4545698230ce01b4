package io.harbinger.experiments.levels;

import static org.assertj.core.api.Assertions.assertThat;

import io.harbinger.experiments.workload.Job;
import io.harbinger.experiments.workload.JobType;
import io.harbinger.experiments.workload.Phase;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class TypeSearchTest {

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "flaky | 3 | 11 | webhooks must be failing or succeeding: flaky",
        "succeeding | x | 11 | LEVELS must be an integer: x",
        "succeeding | 9 | 11 | LEVELS must be in [2, 5]: 9",
        "succeeding | 3 | 11,zz | SEEDS must be integers: zz",
      })
  void run_badArguments_exitTwoNamingWhatIsWrong(
      String webhooks, String levels, String seeds, String message) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code =
        TypeSearch.run(
            new String[] {webhooks, levels, seeds},
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
    assertThat(code).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8)).contains(message);
    assertThat(out.size()).isZero();
  }

  @Test
  void run_wrongArgumentCount_exitsTwo() {
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    assertThat(
            TypeSearch.run(
                new String[] {"succeeding"},
                new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8)))
        .isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8))
        .contains("expected WEBHOOKS LEVELS SEEDS, got 1");
  }

  @Test
  void cuts_listEveryNonDecreasingSplit() {
    // Two cuts in [0, 3]: C(3 + 2, 2) = 10 splits, from everything last to everything first.
    List<int[]> cuts = TypeSearch.cuts(3, 2);
    assertThat(cuts).hasSize(10);
    assertThat(cuts.get(0)).containsExactly(0, 0);
    assertThat(cuts.get(cuts.size() - 1)).containsExactly(3, 3);
    assertThat(cuts).allMatch(c -> c[0] <= c[1]);
    assertThat(TypeSearch.cuts(9, 2)).hasSize(55);
  }

  @Test
  void split_isGuardedOnlyWithinBothGuardrails() {
    assertThat(new TypeSearch.Split(new int[] {4, 5}, -0.6, 1.25, 2.0).guarded()).isTrue();
    assertThat(new TypeSearch.Split(new int[] {4, 6}, -0.7, 1.26, 1.5).guarded()).isFalse();
    assertThat(new TypeSearch.Split(new int[] {6, 8}, -0.8, 1.1, 7.4).guarded()).isFalse();
  }

  @Test
  void byType_placesEveryJobOfATypeAtItsLevel() {
    Map<JobType, Integer> level = new EnumMap<>(JobType.class);
    for (JobType t : JobType.values()) {
      level.put(t, t == JobType.EXPORT_REPORT ? 2 : 0);
    }
    Placement p = Placement.byType(level, 3);
    assertThat(p.levels()).isEqualTo(3);
    assertThat(p.boundariesMillis()).isEmpty();
    Job export = new Job(0, JobType.EXPORT_REPORT, Phase.STEADY, 0, 1, 1, 4, 0, 5, 0);
    Job sms = new Job(1, JobType.SEND_SMS, Phase.STEADY, 0, 1, 1, 4, 0, 5, 0);
    assertThat(p.place(export, 0).level()).isEqualTo(2);
    assertThat(p.place(sms, 0).level()).isZero();
  }
}
