package io.harbinger.rabbit;

/**
 * Whether waiting for a lane's next delivery has lately paid off: the share of a lane's settlements
 * of used-up credit that were followed by a delivery of the lane within the anticipation.
 *
 * <p>A settlement that frees a lane's used-up credit lets RabbitMQ send the lane's next message,
 * but only if the lane has one that no other consumer took: with several consumers on a lane that
 * is rarely backed up, the expected delivery mostly never comes, and every wait for it idles a
 * worker for the whole anticipation. So each such settlement opens a probe; the lane's next
 * delivery closes it as a hit if it came within the anticipation, and a probe left open past the
 * anticipation is a miss. The consumer waits for a lane only while the lane's running hit share is
 * at least one half. Probes are taken whether or not the consumer waited, so a lane whose backlog
 * returns is waited for again.
 *
 * <p>Example: with an anticipation of 20 ms, a short lane that is emptied by four consumers sees
 * its probes miss; after eleven misses in a row its share falls from 1 to below one half, and the
 * consumer hands long work to a free worker at once instead of waiting 20 ms after each short job.
 *
 * <p>Not thread-safe: the consumer calls it under its lock.
 */
final class LaneForecast {

  /** The weight of the newest probe in the running share. */
  static final double WEIGHT = 1.0 / 16;

  /** The share below which the consumer stops waiting for a lane. */
  static final double MIN_SHARE = 0.5;

  private final long anticipationNanos;
  private final double[] share;
  private final long[] openedNanos;
  private final boolean[] open;

  /**
   * Creates the forecast of a consumer's lanes.
   *
   * @param lanes the number of lanes
   * @param anticipationNanos how long a probe waits for its delivery; positive
   */
  LaneForecast(int lanes, long anticipationNanos) {
    this.anticipationNanos = anticipationNanos;
    this.share = new double[lanes];
    this.openedNanos = new long[lanes];
    this.open = new boolean[lanes];
    java.util.Arrays.fill(share, 1.0);
  }

  /**
   * Records a settlement that freed a lane's used-up credit: opens a probe unless one is open.
   *
   * @param lane the lane
   * @param nowNanos now
   */
  void creditFreed(int lane, long nowNanos) {
    expire(lane, nowNanos);
    if (!open[lane]) {
      open[lane] = true;
      openedNanos[lane] = nowNanos;
    }
  }

  /**
   * Records a delivery of a lane: closes its probe as a hit if within the anticipation.
   *
   * @param lane the lane
   * @param nowNanos now
   */
  void delivered(int lane, long nowNanos) {
    if (open[lane]) {
      open[lane] = false;
      record(lane, nowNanos - openedNanos[lane] <= anticipationNanos);
    }
  }

  /**
   * Returns whether waiting for the lane's expected delivery has lately paid off.
   *
   * @param lane the lane
   * @param nowNanos now, to close an expired probe as a miss first
   * @return true while the lane's hit share is at least {@link #MIN_SHARE}
   */
  boolean worthWaiting(int lane, long nowNanos) {
    expire(lane, nowNanos);
    return share[lane] >= MIN_SHARE;
  }

  /**
   * Returns a lane's running hit share.
   *
   * @param lane the lane
   * @return in [0, 1], 1 before the first probe
   */
  double share(int lane) {
    return share[lane];
  }

  /** Forgets open probes, after the held deliveries were dropped; the shares stay. */
  void reset() {
    java.util.Arrays.fill(open, false);
  }

  private void expire(int lane, long nowNanos) {
    if (open[lane] && nowNanos - openedNanos[lane] > anticipationNanos) {
      open[lane] = false;
      record(lane, false);
    }
  }

  private void record(int lane, boolean hit) {
    share[lane] += WEIGHT * ((hit ? 1.0 : 0.0) - share[lane]);
  }
}
