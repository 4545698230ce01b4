package io.harbinger.scheduler;

import java.util.List;

/**
 * Counters of a scheduler, one entry per level.
 *
 * @param pulls jobs taken from each level (refunded pulls excluded)
 * @param chargedMillis expected cost charged to each level, in milliseconds
 * @param averageCostMillis each level's running average of acknowledged durations, NaN before the
 *     first
 * @param waiting jobs waiting at each level
 * @param promoted promoted jobs waiting at each level
 */
public record SchedulerStats(
    List<Long> pulls,
    List<Double> chargedMillis,
    List<Double> averageCostMillis,
    List<Integer> waiting,
    List<Integer> promoted) {

  /** Copies the lists. */
  public SchedulerStats {
    pulls = List.copyOf(pulls);
    chargedMillis = List.copyOf(chargedMillis);
    averageCostMillis = List.copyOf(averageCostMillis);
    waiting = List.copyOf(waiting);
    promoted = List.copyOf(promoted);
  }
}
