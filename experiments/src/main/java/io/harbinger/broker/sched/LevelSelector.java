package io.harbinger.broker.sched;

/**
 * Chooses which level a pull is served from.
 *
 * <p>Implementations: {@link StrictLevelSelector} (the lowest non-empty level) and {@link
 * WeightedLevelSelector} (worker-time shares by virtual clocks, seed paper equation 4). Not
 * thread-safe.
 */
public interface LevelSelector {

  /**
   * Chooses the level to serve.
   *
   * @param queues the level queues
   * @return a non-empty level, or -1 when every level is empty
   */
  int select(LevelQueues queues);

  /**
   * Charges a level for one pull.
   *
   * @param level the level served
   * @param costMillis the expected cost, at least 1 ms
   */
  void charge(int level, double costMillis);

  /**
   * Refunds the charge of a pull that was put back at the front of its level.
   *
   * @param level the level charged
   * @param costMillis the amount charged
   */
  void refund(int level, double costMillis);

  /**
   * Called when a level goes from empty to non-empty.
   *
   * @param level the level
   */
  void activated(int level);

  /** Returns whether pulls need a cost (so the scheduler can skip computing it). */
  boolean usesCost();
}
