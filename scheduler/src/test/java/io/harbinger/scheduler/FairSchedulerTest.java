package io.harbinger.scheduler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.harbinger.predictor.ManualTicker;
import java.util.HashMap;
import java.util.Map;
import org.assertj.core.data.Percentage;
import org.junit.jupiter.api.Test;

class FairSchedulerTest {

  private final ManualTicker ticker = new ManualTicker();
  private final FairScheduler scheduler = new FairScheduler(ticker);

  private static QueuedJob job(String type) {
    QueuedJob job = new QueuedJob("p\u001F" + type, type, -1, -1);
    job.place(0);
    return job;
  }

  @Test
  void poll_backloggedFlowsOfDifferentCost_shareWorkerTimeEqually() {
    Map<String, Double> costMillis = Map.of("fast", 2.0, "mid", 30.0, "slow", 600.0);
    for (String type : costMillis.keySet()) {
      for (int i = 0; i < 4; i++) {
        scheduler.submit(job(type));
      }
    }
    Map<String, Double> workMillis = new HashMap<>();
    Map<String, Integer> pulls = new HashMap<>();
    for (int i = 0; i < 200_000; i++) {
      QueuedJob j = scheduler.poll();
      double cost = costMillis.get(j.flow());
      scheduler.completed(j, cost * 1e6);
      workMillis.merge(j.flow(), cost, Double::sum);
      pulls.merge(j.flow(), 1, Integer::sum);
      scheduler.submit(job(j.flow()));
    }
    double total = workMillis.values().stream().mapToDouble(Double::doubleValue).sum();
    for (String type : costMillis.keySet()) {
      assertThat(workMillis.get(type) / total)
          .as(type)
          .isCloseTo(1.0 / 3, Percentage.withPercentage(1));
    }
    assertThat(pulls.get("fast")).isGreaterThan(250 * pulls.get("slow"));
  }

  @Test
  void poll_withinFlow_isFifo() {
    QueuedJob a = job("t");
    QueuedJob b = job("t");
    scheduler.submit(a);
    scheduler.submit(b);
    assertThat(scheduler.poll()).isSameAs(a);
    assertThat(scheduler.poll()).isSameAs(b);
    assertThat(scheduler.poll()).isNull();
  }

  @Test
  void poll_idleFlowReturning_cannotBankCredit() {
    for (int i = 0; i < 1000; i++) {
      scheduler.submit(job("busy"));
    }
    for (int i = 0; i < 500; i++) {
      scheduler.completed(scheduler.poll(), 10e6);
    }
    for (int i = 0; i < 100; i++) {
      scheduler.submit(job("late"));
    }
    int late = 0;
    for (int i = 0; i < 40; i++) {
      QueuedJob j = scheduler.poll();
      scheduler.completed(j, 10e6);
      if (j.flow().equals("late")) {
        late++;
      }
    }
    // banked credit would give the late flow all 40 pulls; equal shares give it about half
    assertThat(late).isBetween(18, 22);
  }

  @Test
  void requeueFront_refundsAndServesTheSameJobNext() {
    scheduler.submit(job("x"));
    scheduler.submit(job("y"));
    QueuedJob first = scheduler.poll();
    scheduler.requeueFront(first);
    assertThat(scheduler.stats().pulls()).containsExactly(0L);
    assertThat(scheduler.poll()).isSameAs(first);
  }

  @Test
  void retryAndRemove_keepCountsRight() {
    QueuedJob a = job("x");
    QueuedJob b = job("x");
    scheduler.submit(a);
    scheduler.submit(b);
    QueuedJob polled = scheduler.poll();
    scheduler.retry(polled);
    assertThat(scheduler.flowSize("x")).isEqualTo(2);
    assertThat(scheduler.remove(b)).isTrue();
    assertThat(scheduler.remove(b)).isFalse();
    assertThat(scheduler.size()).isEqualTo(1);
    assertThat(scheduler.poll()).isSameAs(a);
  }

  @Test
  void size_levelOtherThanZero_isRefused() {
    assertThatThrownBy(() -> scheduler.size(1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("a fair scheduler has only level 0: 1");
  }
}
