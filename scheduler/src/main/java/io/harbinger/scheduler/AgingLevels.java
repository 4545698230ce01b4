package io.harbinger.scheduler;

/**
 * The levels as {@link Aging} sees them: per level, its waiting jobs from the head, their times,
 * and the count of promoted jobs; and the one change aging makes, a promotion.
 *
 * <p>{@link LevelScheduler} implements it over its own queues. A caller that holds only the head of
 * each level (one broker queue per level, say) implements it too: {@link #next} returns null, so a
 * pass looks at heads only, which is all the pausing rule ever promotes.
 *
 * @param <J> the caller's job type
 */
public interface AgingLevels<J> {

  /** Returns the number of levels, level 0 served first. */
  int levels();

  /**
   * Returns whether nothing waits at a level.
   *
   * @param level in [0, levels)
   * @return true when empty
   */
  boolean isEmpty(int level);

  /**
   * Returns how many promoted jobs (waiting above their original level) wait at a level.
   *
   * @param level in [0, levels)
   * @return the count
   */
  int promoted(int level);

  /**
   * Returns the oldest job waiting at a level.
   *
   * @param level in [0, levels)
   * @return the head, or null when the level is empty
   */
  J head(int level);

  /**
   * Returns the job queued behind another at the same level.
   *
   * @param job a waiting job
   * @return the next job towards the tail, or null (always null for a caller that holds heads only)
   */
  J next(J job);

  /**
   * Returns when a job first entered the levels (its arrival, kept across promotions).
   *
   * @param job a waiting job
   * @return a ticker reading
   */
  long arrivalNanos(J job);

  /**
   * Returns when a job was last placed at its level (arrival, retry or promotion).
   *
   * @param job a waiting job
   * @return a ticker reading; never decreasing from head to tail within a level
   */
  long placedNanos(J job);

  /**
   * Returns whether a job's TTL has run out; aging never promotes an expired job.
   *
   * @param job a waiting job
   * @param nowNanos the current ticker reading
   * @return true when expired
   */
  boolean isExpired(J job, long nowNanos);

  /**
   * Moves a waiting job to the tail of the level above (level - 1) and restarts its wait.
   *
   * @param job a job waiting at a level greater than 0
   * @param nowNanos the current ticker reading, its new placement time
   */
  void promote(J job, long nowNanos);
}
