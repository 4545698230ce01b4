package io.harbinger.scheduler;

import static org.assertj.core.api.Assertions.assertThat;

import io.harbinger.predictor.ManualTicker;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The same cases over every selector and every aging mode: FIFO order within a level, no job lost
 * or served twice, the shares of seed paper section 3.7's figure 6, the pausing rule, starvation
 * bounds, and a caller that holds only the head of each level getting the scheduler's own order.
 */
class SchedulerContractTest {

  private static final Duration THRESHOLD = Duration.ofSeconds(5);
  private static final Duration INTERVAL = Duration.ofMillis(500);
  private static final List<Integer> WEIGHTS = List.of(8, 3, 1);

  private final ManualTicker ticker = new ManualTicker();

  static Stream<Arguments> everySelectorAndAging() {
    List<Arguments> out = new ArrayList<>();
    for (Selection s : Selection.values()) {
      for (AgingMode a : AgingMode.values()) {
        out.add(Arguments.of(s, a));
      }
    }
    return out.stream();
  }

  private LevelScheduler scheduler(Selection selection, AgingMode aging) {
    return new LevelScheduler(3, selection.newSelector(WEIGHTS), aging.newAging(THRESHOLD), ticker);
  }

  private static QueuedJob job(String name, int level, double costNanos) {
    QueuedJob job = new QueuedJob(name, name, -1, -1);
    job.place(level, costNanos);
    return job;
  }

  @ParameterizedTest
  @MethodSource("everySelectorAndAging")
  void poll_randomLoad_servesEveryJobOnceAndFifoWithinALevel(Selection selection, AgingMode aging) {
    LevelScheduler s = scheduler(selection, aging);
    SplittableRandom random = new SplittableRandom(7);
    List<List<String>> submitted = List.of(new ArrayList<>(), new ArrayList<>(), new ArrayList<>());
    List<List<String>> served = List.of(new ArrayList<>(), new ArrayList<>(), new ArrayList<>());
    for (int i = 0; i < 600; i++) {
      int level = random.nextInt(3);
      String name = "j" + i;
      s.submit(job(name, level, 1e6 * (1 + random.nextInt(50))));
      submitted.get(level).add(name);
      if (i % 3 == 0) {
        QueuedJob j = s.poll();
        served.get(j.originalLevel()).add(j.key());
      }
    }
    for (QueuedJob j = s.poll(); j != null; j = s.poll()) {
      served.get(j.originalLevel()).add(j.key());
    }
    // no time passed, so no aging: each level is served in its own arrival order
    assertThat(served).isEqualTo(submitted);
    assertThat(s.size()).isZero();
  }

  @ParameterizedTest
  @MethodSource("everySelectorAndAging")
  void poll_everyLevelBackloggedEqualCosts_sharesPullsAsFigure6(
      Selection selection, AgingMode aging) {
    LevelScheduler s = scheduler(selection, aging);
    for (int i = 0; i < 100; i++) {
      for (int level = 0; level < 3; level++) {
        s.submit(job("l" + level, level, 1e6));
      }
    }
    int[] pulls = new int[3];
    for (int i = 0; i < 48; i++) {
      pulls[s.poll().level()]++;
      s.age();
    }
    if (selection == Selection.STRICT) {
      assertThat(pulls).containsExactly(48, 0, 0);
    } else {
      // w_l / sum w of 48 pulls: 32, 12 and 4
      assertThat(pulls).containsExactly(32, 12, 4);
    }
  }

  @ParameterizedTest
  @MethodSource("everySelectorAndAging")
  void poll_everyLevelBackloggedUnequalCosts_weightedSplitsWorkerTime812(
      Selection selection, AgingMode aging) {
    LevelScheduler s = scheduler(selection, aging);
    double[] costMillis = {2, 30, 600};
    for (int i = 0; i < 3_000; i++) {
      for (int level = 0; level < 3; level++) {
        s.submit(job("l" + level, level, costMillis[level] * 1e6));
      }
    }
    double[] work = new double[3];
    for (int i = 0; i < 2_000; i++) {
      QueuedJob j = s.poll();
      work[j.level()] += costMillis[j.level()];
    }
    double total = work[0] + work[1] + work[2];
    if (selection == Selection.STRICT) {
      assertThat(work[0]).isEqualTo(total);
    } else {
      assertThat(work[0] / total).isBetween(8 / 12.0 - 0.02, 8 / 12.0 + 0.02);
      assertThat(work[1] / total).isBetween(3 / 12.0 - 0.02, 3 / 12.0 + 0.02);
      assertThat(work[2] / total).isBetween(1 / 12.0 - 0.02, 1 / 12.0 + 0.02);
    }
  }

  @ParameterizedTest
  @MethodSource("everySelectorAndAging")
  void age_overdueLevels_promoteAsTheModeSays(Selection selection, AgingMode aging) {
    LevelScheduler s = scheduler(selection, aging);
    for (int i = 0; i < 5; i++) {
      s.submit(job("low" + i, 2, Double.NaN));
      s.submit(job("mid" + i, 1, Double.NaN));
    }
    ticker.advance(THRESHOLD);
    int moved = s.age();
    switch (aging) {
      case NONE -> assertThat(moved).isZero();
      case PLAIN -> {
        // every overdue job moves up one level in one pass
        assertThat(moved).isEqualTo(10);
        assertThat(s.size(0)).isEqualTo(5);
        assertThat(s.size(1)).isEqualTo(5);
      }
      case PAUSING -> {
        // at most one promotion per level per pass
        assertThat(moved).isEqualTo(2);
        assertThat(s.promoted(0)).isEqualTo(1);
        assertThat(s.promoted(1)).isEqualTo(1);
      }
    }
  }

  @ParameterizedTest
  @MethodSource("everySelectorAndAging")
  void age_levelAboveBehind_pausingPromotesNothingIntoIt(Selection selection, AgingMode aging) {
    LevelScheduler s = scheduler(selection, aging);
    s.submit(job("early", 2, Double.NaN));
    ticker.advance(THRESHOLD);
    s.age(); // early climbs to level 1, as a promoted job, under plain and pausing
    s.submit(job("low", 2, Double.NaN));
    ticker.advance(THRESHOLD);
    // level 1 now holds a promoted job that arrived 10 s ago: it is behind
    int moved = s.age();
    switch (aging) {
      case PAUSING -> {
        // low stays while level 1 is behind; early still climbs into level 0, which is not
        assertThat(moved).isEqualTo(1);
        assertThat(s.size(2)).isEqualTo(1);
        assertThat(s.size(0)).isEqualTo(1);
      }
      case PLAIN -> {
        assertThat(moved).isEqualTo(2);
        assertThat(s.size(2)).isZero();
      }
      case NONE -> assertThat(moved).isZero();
    }
  }

  @ParameterizedTest
  @MethodSource("everySelectorAndAging")
  void poll_streamOfShortWork_longJobStartsWithinTheBoundUnlessStrictWithoutAging(
      Selection selection, AgingMode aging) {
    LevelScheduler s = scheduler(selection, aging);
    long service = Duration.ofMillis(100).toNanos();
    s.submit(job("short", 0, service));
    s.submit(job("short", 0, service));
    s.submit(job("long", 2, 600 * 1e6));
    long longStarted = -1;
    long horizon = Duration.ofSeconds(60).toNanos();
    while (ticker.nanos() < horizon && longStarted < 0) {
      QueuedJob j = s.poll();
      if (j.key().equals("long")) {
        longStarted = ticker.nanos();
        break;
      }
      ticker.advanceNanos(service);
      s.completed(j, service);
      s.submit(job("short", 0, service)); // level 0 never runs dry
      if (ticker.nanos() % INTERVAL.toNanos() == 0) {
        s.age();
      }
    }
    if (selection == Selection.STRICT && aging == AgingMode.NONE) {
      assertThat(longStarted).as("strict priority without aging starves level 2").isNegative();
    } else {
      // two promotions (one threshold each, on the next pass), then at most two short jobs ahead
      long bound = 2 * (THRESHOLD.toNanos() + INTERVAL.toNanos()) + 2 * service;
      assertThat(longStarted).isBetween(0L, bound);
    }
  }

  @ParameterizedTest
  @MethodSource("everySelectorAndAging")
  void headsOnlyCaller_arbiterAndAging_servesInTheSchedulersOrder(
      Selection selection, AgingMode aging) {
    if (aging == AgingMode.PLAIN) {
      return; // plain aging moves jobs behind the head, which a heads-only caller cannot see
    }
    LevelScheduler s = scheduler(selection, aging);
    Heads heads = new Heads(new LevelArbiter(3, selection.newSelector(WEIGHTS)));
    Aging rule = aging.newAging(THRESHOLD);
    SplittableRandom random = new SplittableRandom(11);
    List<String> fromScheduler = new ArrayList<>();
    List<String> fromHeads = new ArrayList<>();
    for (int step = 0; step < 2_000; step++) {
      int level = random.nextInt(3);
      double cost = 1e6 * (1 + random.nextInt(40));
      String name = "j" + step;
      s.submit(job(name, level, cost));
      heads.add(name, level, cost, ticker.nanos());
      if (random.nextInt(3) == 0) {
        QueuedJob j = s.poll();
        fromScheduler.add(j.key());
        fromHeads.add(heads.poll());
        double duration = 1e6 * (1 + random.nextInt(40));
        s.completed(j, duration);
        heads.arbiter.finished(j.pulledLevel(), duration);
      }
      ticker.advance(Duration.ofMillis(250));
      if (ticker.nanos() % INTERVAL.toNanos() == 0) {
        s.age();
        rule.pass(heads, ticker.nanos());
      }
    }
    assertThat(fromHeads).isEqualTo(fromScheduler);
  }

  /** A caller that keeps one queue per level and shows the scheduling core only their heads. */
  private static final class Heads implements AgingLevels<Heads.Entry> {
    record Entry(String name, int originalLevel, double cost, long arrival, long placed) {}

    private final LevelArbiter arbiter;
    private final List<ArrayDeque<Entry>> lanes =
        List.of(new ArrayDeque<>(), new ArrayDeque<>(), new ArrayDeque<>());
    private final int[] promoted = new int[3];
    private int mask;

    Heads(LevelArbiter arbiter) {
      this.arbiter = arbiter;
    }

    void add(String name, int level, double cost, long now) {
      put(level, new Entry(name, level, cost, now, now));
    }

    private void put(int level, Entry e) {
      lanes.get(level).addLast(e);
      if (level < e.originalLevel()) {
        promoted[level]++;
      }
      if ((mask & (1 << level)) == 0) {
        mask |= 1 << level;
        arbiter.activated(level);
      }
    }

    private Entry take(int level) {
      Entry e = lanes.get(level).pollFirst();
      if (level < e.originalLevel()) {
        promoted[level]--;
      }
      if (lanes.get(level).isEmpty()) {
        mask &= ~(1 << level);
      }
      return e;
    }

    String poll() {
      int level = arbiter.next(mask);
      Entry e = take(level);
      arbiter.started(level, e.cost());
      return e.name();
    }

    @Override
    public int levels() {
      return 3;
    }

    @Override
    public boolean isEmpty(int level) {
      return lanes.get(level).isEmpty();
    }

    @Override
    public int promoted(int level) {
      return promoted[level];
    }

    @Override
    public Entry head(int level) {
      return lanes.get(level).peekFirst();
    }

    @Override
    public Entry next(Entry job) {
      return null;
    }

    @Override
    public long arrivalNanos(Entry job) {
      return job.arrival();
    }

    @Override
    public long placedNanos(Entry job) {
      return job.placed();
    }

    @Override
    public boolean isExpired(Entry job, long nowNanos) {
      return false;
    }

    @Override
    public void promote(Entry job, long nowNanos) {
      for (int level = 1; level < 3; level++) {
        if (lanes.get(level).peekFirst() == job) {
          take(level);
          put(
              level - 1,
              new Entry(job.name(), job.originalLevel(), job.cost(), job.arrival(), nowNanos));
          return;
        }
      }
      throw new AssertionError("only heads are promoted: " + job);
    }
  }
}
