package io.harbinger.scheduler;

import java.util.HashMap;
import java.util.Map;

/**
 * Running averages of acknowledged handler durations per key, each kept as a level's is (an
 * exponentially weighted average, alpha 0.05, the first sample taken as is, as in the original
 * implementation), for a consumer that wants a job's expected duration when its level's average
 * mixes short and long kinds of job.
 *
 * <p>Bounded: once it holds {@code maxKeys} keys, a new key is not tracked and reads as unknown, so
 * a flood of distinct keys costs at most that many averages.
 *
 * <p>Not thread-safe: the caller serialises every call.
 */
public final class KeyedCostAverage {

  private final int maxKeys;
  private final Map<String, CostAverage> averages = new HashMap<>();

  /**
   * Creates empty averages.
   *
   * @param maxKeys the most keys tracked, positive
   */
  public KeyedCostAverage(int maxKeys) {
    if (maxKeys < 1) {
      throw new IllegalArgumentException("maxKeys must be positive: " + maxKeys);
    }
    this.maxKeys = maxKeys;
  }

  /**
   * Adds a finished job's duration to its key's average; a negative, infinite or NaN duration is
   * ignored, as is a new key once {@code maxKeys} are tracked.
   *
   * @param key the job's key, not null
   * @param durationNanos how long its handler ran
   */
  public void add(String key, double durationNanos) {
    CostAverage average = averages.get(key);
    if (average == null) {
      if (averages.size() >= maxKeys || !(durationNanos >= 0) || Double.isInfinite(durationNanos)) {
        return;
      }
      average = new CostAverage();
      averages.put(key, average);
    }
    average.add(durationNanos);
  }

  /**
   * Returns a key's running average.
   *
   * @param key the key
   * @return the average in milliseconds, NaN for a key with no finished job tracked
   */
  public double averageMillis(String key) {
    CostAverage average = averages.get(key);
    return average == null ? Double.NaN : average.averageMillis();
  }

  /**
   * Returns how many keys are tracked.
   *
   * @return at most {@code maxKeys}
   */
  public int keys() {
    return averages.size();
  }
}
