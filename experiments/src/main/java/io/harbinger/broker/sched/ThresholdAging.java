package io.harbinger.broker.sched;

import java.time.Duration;

/**
 * Plain and pausing aging with a wait threshold.
 *
 * <p>Implementation notes (reference section 2.6): a pass visits the levels from the lowest (L-1)
 * up to level 1. At each level it moves jobs whose wait since their last placement has reached the
 * threshold to the tail of the level above and restarts their wait, so a job climbs at most one
 * level per pass. Placement times never decrease along a level, so the scan stops at the first job
 * that is not due; expired jobs are skipped, never promoted. With pausing, a level is skipped while
 * the level above is behind (it holds promoted jobs, is non-empty, and its head arrived at least
 * the threshold ago: waiting counted from arrival, not from the last promotion), and at most one
 * job per level moves per pass.
 */
final class ThresholdAging implements Aging {

  private final long thresholdNanos;
  private final boolean pausing;

  ThresholdAging(Duration threshold, boolean pausing) {
    if (threshold == null || threshold.isNegative() || threshold.isZero()) {
      throw new IllegalArgumentException("aging threshold must be positive: " + threshold);
    }
    this.thresholdNanos = threshold.toNanos();
    this.pausing = pausing;
  }

  @Override
  public int pass(LevelQueues queues, long nowNanos) {
    int moved = 0;
    for (int level = queues.levels() - 1; level >= 1; level--) {
      if (queues.isEmpty(level) || (pausing && isBehind(queues, level - 1, nowNanos))) {
        continue;
      }
      Job job = queues.head(level);
      while (job != null && nowNanos - job.enqueueNanos >= thresholdNanos) {
        Job next = job.next;
        if (!job.isExpired(nowNanos)) {
          queues.promote(job, nowNanos);
          moved++;
          if (pausing) {
            break;
          }
        }
        job = next;
      }
    }
    return moved;
  }

  private boolean isBehind(LevelQueues queues, int level, long nowNanos) {
    if (queues.promoted(level) == 0 || queues.isEmpty(level)) {
      return false;
    }
    return nowNanos - queues.head(level).arrivalNanos >= thresholdNanos;
  }

  @Override
  public String toString() {
    return (pausing ? "pausing" : "plain") + " aging after " + Duration.ofNanos(thresholdNanos);
  }
}
