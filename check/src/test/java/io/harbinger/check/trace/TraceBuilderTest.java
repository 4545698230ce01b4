package io.harbinger.check.trace;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class TraceBuilderTest {

  private static final ReadReport REPORT =
      new ReadReport("test", 0, 0, List.of(), List.of(), List.of());

  @Test
  void build_manyShuffledJobs_sortsByArrivalKeepingTiesInInputOrder() {
    TraceBuilder b = new TraceBuilder("t", 1);
    SplittableRandom r = new SplittableRandom(3);
    int n = 10_000;
    for (int i = 0; i < n; i++) {
      b.add(r.nextInt(100), i, "k" + (i % 7), -1);
    }

    Trace t = b.build(REPORT);

    assertThat(t.size()).isEqualTo(n);
    for (int i = 1; i < n; i++) {
      assertThat(t.arrivalNanos(i)).isGreaterThanOrEqualTo(t.arrivalNanos(i - 1));
      if (t.arrivalNanos(i) == t.arrivalNanos(i - 1)) {
        assertThat(t.durationNanos(i)).isGreaterThan(t.durationNanos(i - 1));
      }
      assertThat(t.key(i)).isEqualTo("k" + (t.durationNanos(i) % 7));
    }
  }

  @Test
  void intern_assignsIdsInOrderOfFirstAppearance() {
    TraceBuilder b = new TraceBuilder("t", 1);
    b.add(0, 1, "b", -1).add(1, 1, "a", -1).add(2, 1, "b", -1);

    Trace t = b.build(REPORT);

    assertThat(t.keyCount()).isEqualTo(2);
    assertThat(t.keyName(0)).isEqualTo("b");
    assertThat(t.keyId(2)).isZero();
    assertThat(t.hasSizes()).isFalse();
    assertThat(t.sizeHint(0)).isEqualTo(-1);
  }

  @Test
  void add_sizeAfterJobsWithout_marksEarlierJobsUnknown() {
    Trace t = new TraceBuilder("t", 1).add(0, 1, "a", -1).add(1, 1, "a", 9).build(REPORT);

    assertThat(t.sizeHint(0)).isEqualTo(-1);
    assertThat(t.sizeHint(1)).isEqualTo(9);
  }

  @Test
  void add_badValues_failWithTheRule() {
    TraceBuilder b = new TraceBuilder("t", 1);

    assertThatThrownBy(() -> b.add(0, -1, "a", -1))
        .hasMessage("durationNanos must be at least 0: -1");
    assertThatThrownBy(() -> b.add(0, 1, "", -1)).hasMessage("key must not be empty");
    assertThatThrownBy(() -> b.add(0, 1, 3, -1)).hasMessage("keyId must be in [0, 0): 3");
    assertThatThrownBy(() -> new TraceBuilder("t", 0))
        .hasMessage("resolutionNanos must be at least 1: 0");
  }
}
