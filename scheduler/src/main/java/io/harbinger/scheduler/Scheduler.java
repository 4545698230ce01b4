package io.harbinger.scheduler;

/**
 * Holds waiting jobs and decides which one a consumer gets next: the broker's queue, without
 * delivery semantics (leases, retries counting, dead letters and TTL belong to the caller).
 *
 * <p>Implementations: {@link LevelScheduler} (L levels with a {@link LevelSelector} and an {@link
 * Aging}) and {@link FairScheduler} (a queue per job type in equal shares of worker time). Build
 * them with {@link SchedulerConfig#newScheduler} or {@code new FairScheduler(ticker)}.
 *
 * <p>Assumptions and guarantees: not thread-safe; the caller serialises every call (the broker
 * under its lock, the simulator on its thread). Time comes from the ticker given at construction.
 * No method allocates per call, except the first job of a new flow in {@link FairScheduler}.
 */
public interface Scheduler {

  /**
   * Returns the number of levels; 1 for a scheduler without levels.
   *
   * @return in [1, 10]
   */
  int levels();

  /**
   * Adds a newly arrived job at the tail of the level its ingress policy chose, and stamps its
   * arrival and placement time.
   *
   * @param job a job placed by {@link QueuedJob#place} at a level in [0, levels), not queued
   * @throws IllegalArgumentException if the job's level is out of range
   * @throws IllegalStateException if the job is already queued
   */
  void submit(QueuedJob job);

  /**
   * Takes the next job to deliver and charges its level.
   *
   * @return the job, or null when nothing waits
   */
  QueuedJob poll();

  /**
   * Puts back a job that {@link #poll} just returned but that could not be delivered: at the front
   * of the level it was taken from, its charge refunded and all its times kept.
   *
   * @param job the job
   */
  void requeueFront(QueuedJob job);

  /**
   * Puts a failed delivery back at the tail of its original level (the paper's retry path) and
   * restarts its wait; its arrival time is kept.
   *
   * @param job a job that is not queued
   */
  void retry(QueuedJob job);

  /**
   * Removes a waiting job (TTL expiry).
   *
   * @param job the job
   * @return true when it was queued here and is now removed
   */
  boolean remove(QueuedJob job);

  /**
   * Runs one aging pass now; does nothing for a scheduler without aging.
   *
   * @return the number of jobs promoted
   */
  int age();

  /**
   * Learns the handler duration of a job acknowledged within its lease and TTL, for the expected
   * cost of later pulls.
   *
   * @param job the job, as returned by {@link #poll}
   * @param durationNanos the handler's duration; negative or non-finite values are ignored
   */
  void completed(QueuedJob job, double durationNanos);

  /**
   * Returns how many jobs wait.
   *
   * @return the total over levels
   */
  int size();

  /**
   * Returns how many jobs wait at a level.
   *
   * @param level in [0, levels)
   * @return the count
   */
  int size(int level);

  /**
   * Returns how many promoted jobs wait at a level.
   *
   * @param level in [0, levels)
   * @return the count
   */
  int promoted(int level);

  /**
   * Returns the pull count, charged time and average cost of each level.
   *
   * @return a snapshot
   */
  SchedulerStats stats();
}
