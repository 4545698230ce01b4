package io.harbinger.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.opentest4j.TestAbortedException;

class PrerequisiteTest {

  private static final Prerequisite TRACES =
      Prerequisite.of("the shared traces folder", "Set HARBINGER_TRACES to it");

  private static final Environment LOCAL = Environment.of(Map.of());
  private static final Environment CI = Environment.of(Map.of("CI", "true"));

  private final Set<String> printed = new HashSet<>();
  private final List<String> out = new ArrayList<>();

  @Test
  void require_present_neitherThrowsNorPrints() {
    TRACES.require(true, "unused", CI, printed, out::add);

    assertThat(out).isEmpty();
  }

  @Test
  void require_missingOutsideCi_skipsEveryTestButPrintsOneLine() {
    for (int test = 0; test < 3; test++) {
      assertThatThrownBy(() -> TRACES.require(false, "no folder /x", LOCAL, printed, out::add))
          .isInstanceOf(TestAbortedException.class)
          .hasMessage(
              "the shared traces folder is not available (no folder /x). Set HARBINGER_TRACES to"
                  + " it.");
    }

    assertThat(out)
        .containsExactly(
            "[skip] the shared traces folder is not available (no folder /x). Set"
                + " HARBINGER_TRACES to it. The tests that need it are skipped; with CI=true they"
                + " fail.");
  }

  @Test
  void require_missingUnderCi_failsSayingWhy() {
    assertThatThrownBy(() -> TRACES.require(false, "no folder /x", CI, printed, out::add))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("Set HARBINGER_TRACES to it.")
        .hasMessageEndingWith("CI=true: a missing prerequisite fails the run.");

    assertThat(out).singleElement().asString().startsWith("[fail] the shared traces folder");
  }

  @Test
  void require_anotherReason_printsAnotherLine() {
    for (String detail : List.of("no folder /x", "no folder /x", "no file /x/a.swf")) {
      assertThatThrownBy(() -> TRACES.require(false, detail, LOCAL, printed, out::add))
          .isInstanceOf(TestAbortedException.class);
    }

    assertThat(out).hasSize(2);
  }

  @Test
  void of_blank_refused() {
    assertThatThrownBy(() -> Prerequisite.of(" ", "Set X"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("must not be blank");
  }
}
