package io.harbinger.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The progress-bounded wait, on a clock that only moves when the wait sleeps. */
class ProgressWaitTest {

  /** A clock whose time passes only in the wait's sleeps. */
  private static final class FakeTime implements ProgressWait.Time {
    long nanos;
    int sleeps;

    @Override
    public long nanoTime() {
      return nanos;
    }

    @Override
    public void sleep(Duration duration) {
      nanos += duration.toNanos();
      sleeps++;
    }

    long seconds() {
      return Duration.ofNanos(nanos).toSeconds();
    }
  }

  private final FakeTime time = new FakeTime();

  /** A counter that goes up by one every {@code every}, from 0 at the start. */
  private long steps(Duration every) {
    return time.nanos / every.toNanos();
  }

  @Test
  void untilAtLeast_slowSteadyProgress_passesLongAfterTheStallWindow() throws Exception {
    long reached =
        ProgressWait.on("reports learned", () -> steps(Duration.ofSeconds(20)))
            .time(time)
            .untilAtLeast(10);

    assertThat(reached).isEqualTo(10);
    // 200 s: more than six stall windows, each step within one.
    assertThat(time.seconds()).isBetween(200L, 201L);
  }

  @Test
  void untilAtLeast_counterStops_failsOneStallWindowAfterItsLastChangeNamingCountAndGoal() {
    ProgressWait wait =
        ProgressWait.on("reports learned", () -> Math.min(412, steps(Duration.ofMillis(100))))
            .time(time);

    assertThatThrownBy(() -> wait.untilAtLeast(600))
        .isInstanceOf(AssertionError.class)
        .hasMessage(
            "waited 71.2 s for at least 600 reports learned: reports learned stalled at 412"
                + " (no change in 30 s)");
    // The 412th report came at 41.2 s; the wait gave up one stall window later.
    assertThat(time.nanos).isEqualTo(Duration.ofMillis(41_200 + 30_000).toNanos());
  }

  @Test
  void until_nothingEverMoves_failsAfterTheStallWindowFromTheStart() {
    ProgressWait wait =
        ProgressWait.on("messages delivered", () -> 0).stall(Duration.ofSeconds(5)).time(time);

    assertThatThrownBy(() -> wait.until("the queue drained", () -> false))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("for the queue drained")
        .hasMessageContaining("messages delivered stalled at 0 (no change in 5 s)");
    assertThat(time.seconds()).isEqualTo(5);
  }

  @Test
  void until_progressNeverEndsButNeverMeetsTheGoal_failsAtTheLimit() {
    ProgressWait wait =
        ProgressWait.on("keys known", () -> steps(Duration.ofSeconds(1)))
            .limit(Duration.ofMinutes(2))
            .time(time);

    assertThatThrownBy(() -> wait.until("the key learned", () -> false))
        .isInstanceOf(AssertionError.class)
        .hasMessage(
            "waited 120.0 s for the key learned: keys known still moved, to 120, but the limit of"
                + " 120 s passed");
  }

  @Test
  void until_counterGoesDown_countsAsProgress() throws Exception {
    // A queue draining: its depth falls by one every 20 s, from 10.
    long depth =
        ProgressWait.on("messages ready", () -> Math.max(0, 10 - steps(Duration.ofSeconds(20))))
            .time(time)
            .until("the queue empty", () -> steps(Duration.ofSeconds(20)) >= 10);

    assertThat(depth).isZero();
    assertThat(time.seconds()).isEqualTo(200);
  }

  @Test
  void until_conditionAlreadyMet_returnsWithoutSleeping() throws Exception {
    assertThat(ProgressWait.on("reports learned", () -> 7).time(time).untilAtLeast(7)).isEqualTo(7);
    assertThat(time.sleeps).isZero();
  }

  @Test
  void until_conditionThrows_endsTheWaitWithItsException() {
    AtomicInteger polls = new AtomicInteger();
    ProgressWait wait = ProgressWait.on("polls", polls::get).time(time);

    assertThatThrownBy(
            () ->
                wait.until(
                    "the queue drained",
                    () -> {
                      if (polls.incrementAndGet() == 3) {
                        throw new IOException("channel closed");
                      }
                      return false;
                    }))
        .isInstanceOf(IOException.class)
        .hasMessage("channel closed");
    assertThat(polls).hasValue(3);
  }

  @Test
  void stallAndLimit_outOfRange_refusedRestatingTheRule() {
    ProgressWait wait = ProgressWait.on("reports learned", () -> 0);

    assertThatThrownBy(() -> wait.stall(Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("the stall window must be positive and at most the limit (PT5M): PT0S");
    assertThatThrownBy(() -> wait.stall(Duration.ofMinutes(6)))
        .hasMessageContaining("at most the limit (PT5M): PT6M");
    assertThatThrownBy(() -> wait.limit(Duration.ofSeconds(10)))
        .hasMessage("the stall window must be positive and at most the limit (PT10S): PT30S");
  }
}
