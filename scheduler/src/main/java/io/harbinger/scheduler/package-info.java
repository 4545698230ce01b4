/**
 * Harbinger's scheduling core: level queues, level selection, aging, expected costs, ingress
 * policies and per-job-type fair queueing, with no I/O and no locks inside (seed paper sections 3.2
 * to 3.7; aging, weighted selection and the baseline policies follow the original implementation's
 * details).
 *
 * <p>Public API, in two layers. Whole schedulers: {@link io.harbinger.scheduler.Scheduler}, as
 * {@link io.harbinger.scheduler.LevelScheduler} (built by {@link
 * io.harbinger.scheduler.SchedulerConfig#newScheduler}) or {@link
 * io.harbinger.scheduler.FairScheduler}, holding {@link io.harbinger.scheduler.QueuedJob}s placed
 * by an {@link io.harbinger.scheduler.IngressPolicy}. The parts, for a caller that keeps its jobs
 * elsewhere (one broker queue per level) and holds only the head of each level: {@link
 * io.harbinger.scheduler.LevelArbiter} answers "which level next" from the mask of non-empty levels
 * and is told when a job of a level started and finished, with a {@link
 * io.harbinger.scheduler.LevelSelector} inside ({@link io.harbinger.scheduler.Selection}: strict or
 * weighted); {@link io.harbinger.scheduler.Aging} ({@link io.harbinger.scheduler.AgingMode}: none,
 * plain or pausing) promotes over any {@link io.harbinger.scheduler.AgingLevels}.
 *
 * <p>Assumptions and guarantees: nothing here is thread-safe unless its Javadoc says so. The broker
 * calls it under its own lock; the simulator calls it from its single thread with a ticker that
 * reads simulated time. Every queue operation is O(1) or amortised O(1) (O(levels) for selection,
 * O(log flows) for fair queueing) and allocates nothing per message beyond the caller's {@link
 * io.harbinger.scheduler.QueuedJob}. The only runtime dependency is predictor-lib (its {@code
 * Ticker} and {@code Predictor}).
 */
package io.harbinger.scheduler;
