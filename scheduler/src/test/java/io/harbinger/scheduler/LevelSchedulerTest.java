package io.harbinger.scheduler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.harbinger.predictor.ManualTicker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.assertj.core.data.Offset;
import org.assertj.core.data.Percentage;
import org.junit.jupiter.api.Test;

class LevelSchedulerTest {

  private static final Duration THRESHOLD = Duration.ofSeconds(5);
  private static final Duration INTERVAL = Duration.ofMillis(500);

  private final ManualTicker ticker = new ManualTicker();

  private LevelScheduler scheduler(LevelSelector selector, Aging aging) {
    return new LevelScheduler(3, selector, aging, ticker);
  }

  private static QueuedJob job(String name, int level) {
    QueuedJob job = new QueuedJob(name, name, -1, -1);
    job.place(level);
    return job;
  }

  private static QueuedJob job(String name, int level, double costNanos) {
    QueuedJob job = new QueuedJob(name, name, -1, -1);
    job.place(level, costNanos);
    return job;
  }

  private static List<String> drain(Scheduler s) {
    List<String> keys = new ArrayList<>();
    for (QueuedJob j = s.poll(); j != null; j = s.poll()) {
      keys.add(j.key());
    }
    return keys;
  }

  @Test
  void poll_strict_servesLowestLevelFirstAndFifoWithin() {
    LevelScheduler s = scheduler(StrictLevelSelector.INSTANCE, Aging.NONE);
    s.submit(job("c1", 2));
    s.submit(job("b1", 1));
    s.submit(job("a1", 0));
    s.submit(job("b2", 1));
    s.submit(job("a2", 0));

    assertThat(drain(s)).containsExactly("a1", "a2", "b1", "b2", "c1");
    assertThat(s.size()).isZero();
  }

  @Test
  void submit_levelOutOfRange_isRefused() {
    LevelScheduler s = scheduler(StrictLevelSelector.INSTANCE, Aging.NONE);
    assertThatThrownBy(() -> s.submit(job("x", 3)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("job level must be in [0, 3): 3");
  }

  @Test
  void submit_queuedJob_isRefused() {
    LevelScheduler s = scheduler(StrictLevelSelector.INSTANCE, Aging.NONE);
    QueuedJob j = job("x", 1);
    s.submit(j);
    assertThatThrownBy(() -> s.submit(j)).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void plainAging_overdueLevel_promotesWholeLevelInOnePass() {
    LevelScheduler s = scheduler(StrictLevelSelector.INSTANCE, Aging.plain(THRESHOLD));
    for (int i = 0; i < 50; i++) {
      s.submit(job("low" + i, 2));
    }
    ticker.advance(THRESHOLD);

    assertThat(s.age()).isEqualTo(50);
    assertThat(s.size(2)).isZero();
    assertThat(s.size(1)).isEqualTo(50);
    assertThat(s.promoted(1)).isEqualTo(50);
    assertThat(drain(s)).first().isEqualTo("low0");
  }

  @Test
  void plainAging_promotedJob_climbsOneLevelPerPassAndItsWaitRestarts() {
    LevelScheduler s = scheduler(StrictLevelSelector.INSTANCE, Aging.plain(THRESHOLD));
    QueuedJob low = job("low", 2);
    s.submit(low);
    ticker.advance(THRESHOLD);
    s.age();
    assertThat(low.level()).isEqualTo(1);
    assertThat(low.enqueueNanos()).isEqualTo(THRESHOLD.toNanos());

    ticker.advance(INTERVAL);
    assertThat(s.age()).isZero();
    assertThat(low.level()).isEqualTo(1);

    ticker.advance(THRESHOLD.minus(INTERVAL));
    assertThat(s.age()).isEqualTo(1);
    assertThat(low.level()).isZero();
    assertThat(low.originalLevel()).isEqualTo(2);
    assertThat(s.promoted(0)).isEqualTo(1);
  }

  @Test
  void plainAging_notYetDue_staysPut() {
    LevelScheduler s = scheduler(StrictLevelSelector.INSTANCE, Aging.plain(THRESHOLD));
    s.submit(job("low", 2));
    ticker.advance(THRESHOLD.minusNanos(1));
    assertThat(s.age()).isZero();
    assertThat(s.size(2)).isEqualTo(1);
  }

  @Test
  void aging_expiredJob_isNeverPromoted() {
    LevelScheduler s = scheduler(StrictLevelSelector.INSTANCE, Aging.plain(THRESHOLD));
    QueuedJob expired = job("expired", 2);
    expired.expireAt(Duration.ofSeconds(1).toNanos());
    QueuedJob live = job("live", 2);
    s.submit(expired);
    s.submit(live);
    ticker.advance(THRESHOLD);

    assertThat(s.age()).isEqualTo(1);
    assertThat(expired.level()).isEqualTo(2);
    assertThat(live.level()).isEqualTo(1);
  }

  @Test
  void pausingAging_overdueBacklog_movesOneMessagePerPass() {
    LevelScheduler s = scheduler(StrictLevelSelector.INSTANCE, Aging.pausing(THRESHOLD));
    for (int i = 0; i < 50; i++) {
      s.submit(job("low" + i, 2));
    }
    ticker.advance(THRESHOLD);
    for (int pass = 0; pass < 50; pass++) {
      assertThat(s.age()).as("pass %d", pass).isEqualTo(1);
      assertThat(s.size(1)).isEqualTo(1);
      // a consumer takes the promoted message before the next pass, so level 1 is not behind
      assertThat(s.poll().key()).isEqualTo("low" + pass);
      ticker.advance(INTERVAL);
    }
    assertThat(s.size()).isZero();
  }

  @Test
  void followingAging_longBacklogAbove_waitsTwiceTheWaitAboveBeforePromoting() {
    LevelScheduler s = scheduler(StrictLevelSelector.INSTANCE, Aging.following(THRESHOLD));
    s.submit(job("high", 0));
    ticker.advance(Duration.ofSeconds(60));
    s.submit(job("low", 1));
    // "high" has waited 160 s at level 0, so "low" (100 s) is due only at 320 s, not at 5 s.
    ticker.advance(Duration.ofSeconds(100));
    assertThat(s.age()).isZero();
    assertThat(s.size(1)).isEqualTo(1);
    // Now "low" has waited 330 s against twice "high"'s 390 s: still not due.
    ticker.advance(Duration.ofSeconds(230));
    assertThat(s.age()).isZero();
    assertThat(s.poll().key()).isEqualTo("high");
    // With level 0 empty the configured threshold applies again: promoted at once.
    assertThat(s.age()).isEqualTo(1);
    assertThat(s.size(0)).isEqualTo(1);
  }

  @Test
  void followingAging_noBacklogAbove_promotesOneJobPerPassAfterTheThreshold() {
    LevelScheduler s = scheduler(StrictLevelSelector.INSTANCE, Aging.following(THRESHOLD));
    for (int i = 0; i < 3; i++) {
      s.submit(job("low" + i, 2));
    }
    ticker.advance(THRESHOLD.minusMillis(1));
    assertThat(s.age()).isZero();
    ticker.advance(Duration.ofMillis(1));
    assertThat(s.age()).isEqualTo(1);
    assertThat(AgingMode.fromLabel("following").newAging(THRESHOLD).mode())
        .isEqualTo(AgingMode.FOLLOWING);
  }

  @Test
  void pausingAging_levelAboveHoldsOverduePromotedWork_pauses() {
    LevelScheduler s = scheduler(StrictLevelSelector.INSTANCE, Aging.pausing(THRESHOLD));
    for (int i = 0; i < 10; i++) {
      s.submit(job("low" + i, 2));
    }
    ticker.advance(THRESHOLD);
    assertThat(s.age()).isEqualTo(1);
    // until the promoted job itself is due at level 1 (one threshold later), nothing moves
    for (int pass = 0; pass < 9; pass++) {
      ticker.advance(INTERVAL);
      assertThat(s.age()).as("pass %d", pass).isZero();
    }
    assertThat(s.size(2)).isEqualTo(9);
    assertThat(s.promoted(1)).isEqualTo(1);
  }

  @Test
  void pausingAging_behindIsCountedFromArrivalNotFromPromotion() {
    LevelScheduler s = scheduler(StrictLevelSelector.INSTANCE, Aging.pausing(THRESHOLD));
    QueuedJob first = job("first", 2);
    s.submit(first);
    s.submit(job("second", 2));
    ticker.advance(THRESHOLD);
    s.age();
    // "first" was promoted just now: its wait at level 1 restarted, but it arrived 5 s ago
    assertThat(first.enqueueNanos()).isEqualTo(ticker.nanos());
    ticker.advance(INTERVAL);
    assertThat(s.age()).isZero();
    assertThat(s.size(2)).isEqualTo(1);
  }

  @Test
  void pausingAging_freshHeadAboveWithPromotedBehind_doesNotPause() {
    LevelScheduler s = scheduler(StrictLevelSelector.INSTANCE, Aging.pausing(THRESHOLD));
    s.submit(job("low1", 2));
    s.submit(job("low2", 2));
    ticker.advance(THRESHOLD);
    assertThat(s.age()).isEqualTo(1);
    assertThat(s.poll().key()).isEqualTo("low1");
    // level 1 now: a fresh native head, with a promoted job to follow after it
    QueuedJob fresh = job("fresh", 1);
    s.submit(fresh);
    ticker.advance(INTERVAL);
    assertThat(s.age()).isEqualTo(1);
    assertThat(s.promoted(1)).isEqualTo(1);
    ticker.advance(INTERVAL);
    // the head of level 1 arrived 0.5 s ago, so level 1 is not behind even though it holds
    // promoted work; level 2 is empty now, nothing more to move
    assertThat(s.age()).isZero();
    assertThat(drain(s)).containsExactly("fresh", "low2");
  }

  @Test
  void pausingAging_onlyNativeWaitingAbove_neverPauses() {
    LevelScheduler s = scheduler(StrictLevelSelector.INSTANCE, Aging.pausing(THRESHOLD));
    s.submit(job("mid", 1));
    s.submit(job("low", 2));
    ticker.advance(THRESHOLD.multipliedBy(3));
    // level 1's head has waited long, but nothing there is promoted work
    int moved = s.age();
    assertThat(moved).isEqualTo(2);
    assertThat(s.size(0)).isEqualTo(1);
    assertThat(s.size(1)).isEqualTo(1);
  }

  @Test
  void promotedCounter_retriedMessage_isNotCounted() {
    LevelScheduler s = scheduler(StrictLevelSelector.INSTANCE, Aging.plain(THRESHOLD));
    QueuedJob low = job("low", 2);
    s.submit(low);
    ticker.advance(THRESHOLD);
    s.age();
    assertThat(s.promoted(1)).isEqualTo(1);

    QueuedJob pulled = s.poll();
    assertThat(pulled).isSameAs(low);
    assertThat(s.promoted(1)).isZero();
    s.retry(pulled);

    assertThat(low.level()).isEqualTo(2);
    assertThat(low.enqueueNanos()).isEqualTo(ticker.nanos());
    assertThat(low.arrivalNanos()).isZero();
    assertThat(s.promoted(0) + s.promoted(1) + s.promoted(2)).isZero();
  }

  @Test
  void retry_goesToTailOfOriginalLevel() {
    LevelScheduler s = scheduler(StrictLevelSelector.INSTANCE, Aging.NONE);
    s.submit(job("a", 1));
    s.submit(job("b", 1));
    QueuedJob a = s.poll();
    s.retry(a);
    assertThat(drain(s)).containsExactly("b", "a");
  }

  @Test
  void remove_queuedJob_leavesTheRest() {
    LevelScheduler s = scheduler(StrictLevelSelector.INSTANCE, Aging.NONE);
    QueuedJob a = job("a", 1);
    s.submit(a);
    s.submit(job("b", 1));
    assertThat(s.remove(a)).isTrue();
    assertThat(s.remove(a)).isFalse();
    assertThat(drain(s)).containsExactly("b");
  }

  @Test
  void weighted_allLevelsBacklogged_chargedTimeSplits8to3to1() {
    WeightedLevelSelector selector = new WeightedLevelSelector(List.of(8, 3, 1));
    LevelScheduler s = scheduler(selector, Aging.NONE);
    double[] costsMillis = {2, 30, 600};
    for (int level = 0; level < 3; level++) {
      for (int i = 0; i < 4; i++) {
        s.submit(job("l" + level, level, costsMillis[level] * 1e6));
      }
    }
    for (int pull = 0; pull < 1_000_000; pull++) {
      QueuedJob j = s.poll();
      QueuedJob refill = job(j.key(), j.originalLevel(), costsMillis[j.originalLevel()] * 1e6);
      s.submit(refill);
    }
    SchedulerStats stats = s.stats();
    double total = stats.chargedMillis().stream().mapToDouble(Double::doubleValue).sum();
    assertThat(stats.chargedMillis().get(0) / total).isCloseTo(8.0 / 12, withinPercent());
    assertThat(stats.chargedMillis().get(1) / total).isCloseTo(3.0 / 12, withinPercent());
    assertThat(stats.chargedMillis().get(2) / total).isCloseTo(1.0 / 12, withinPercent());
    assertThat(stats.pulls().get(0)).isGreaterThan(50 * stats.pulls().get(2));
  }

  private static Percentage withinPercent() {
    return Percentage.withPercentage(1);
  }

  @Test
  void weighted_idleLevel_cannotBankCredit() {
    LevelScheduler s = scheduler(new WeightedLevelSelector(List.of(8, 3, 1)), Aging.NONE);
    double cost = 10e6;
    for (int i = 0; i < 1000; i++) {
      s.submit(job("mid", 1, cost));
      s.submit(job("low", 2, cost));
    }
    for (int i = 0; i < 1000; i++) {
      s.poll();
    }
    for (int i = 0; i < 1000; i++) {
      s.submit(job("top", 0, cost));
    }
    int topPulls = 0;
    for (int i = 0; i < 120; i++) {
      if (s.poll().originalLevel() == 0) {
        topPulls++;
      }
    }
    // with banked credit level 0 would take all 120 pulls; without, about 8/12 of them
    assertThat(topPulls).isBetween(75, 85);
  }

  @Test
  void requeueFront_refundsChargeAndRestoresOrder() {
    WeightedLevelSelector selector = new WeightedLevelSelector(List.of(8, 3, 1));
    LevelScheduler s = scheduler(selector, Aging.NONE);
    s.submit(job("a", 1, 30e6));
    s.submit(job("b", 1, 30e6));
    double before = selector.clock(1);

    QueuedJob a = s.poll();
    assertThat(selector.clock(1)).isEqualTo(before + 10.0);
    s.requeueFront(a);

    assertThat(selector.clock(1)).isEqualTo(before);
    assertThat(s.stats().pulls().get(1)).isZero();
    assertThat(s.stats().chargedMillis().get(1)).isZero();
    assertThat(drain(s)).containsExactly("a", "b");
  }

  @Test
  void requeueFront_jobNotJustPolled_isRefused() {
    LevelScheduler s = scheduler(StrictLevelSelector.INSTANCE, Aging.NONE);
    QueuedJob a = job("a", 1);
    s.submit(a);
    assertThatThrownBy(() -> s.requeueFront(a)).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void cost_predictionElseLevelAverageElseOneMillisecond() {
    LevelScheduler s = scheduler(new WeightedLevelSelector(List.of(8, 3, 1)), Aging.NONE);
    s.submit(job("unknown", 1));
    QueuedJob first = s.poll();
    assertThat(first.chargedMillis()).isEqualTo(1.0);

    s.completed(first, 40e6);
    s.submit(job("unknown", 1));
    assertThat(s.poll().chargedMillis()).isEqualTo(40.0);

    s.completed(first, 60e6);
    s.submit(job("unknown", 1));
    assertThat(s.poll().chargedMillis()).isCloseTo(41.0, Offset.offset(1e-9));

    s.submit(job("predicted", 1, 7e6));
    assertThat(s.poll().chargedMillis()).isEqualTo(7.0);

    s.submit(job("tiny", 1, 0.2e6));
    assertThat(s.poll().chargedMillis()).isEqualTo(1.0);

    s.submit(job("garbage", 1, Double.POSITIVE_INFINITY));
    assertThat(s.poll().chargedMillis()).isCloseTo(41.0, Offset.offset(1e-9));
  }

  @Test
  void weightedSelector_badWeight_isRefused() {
    assertThatThrownBy(() -> new WeightedLevelSelector(List.of(8, 0, 1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("level weights must be in [1, 1000]: [8, 0, 1]");
  }

  @Test
  void aging_nonPositiveThreshold_isRefused() {
    assertThatThrownBy(() -> Aging.plain(Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("aging threshold must be positive: PT0S");
  }
}
