/**
 * The scheduling core of Harbinger's comparison broker, shared with the discrete-event simulator:
 * level queues, level selection, aging, expected costs and ingress policies, with no gRPC and no
 * locks inside.
 *
 * <p>Public API: {@link io.harbinger.broker.sched.Scheduler} (built by {@link
 * io.harbinger.broker.sched.Schedulers#create}) holding {@link io.harbinger.broker.sched.Job}s; the
 * pluggable parts {@link io.harbinger.broker.sched.LevelSelector}, {@link
 * io.harbinger.broker.sched.Aging} and {@link io.harbinger.broker.sched.IngressPolicy}; the
 * configuration {@link io.harbinger.broker.sched.SchedulerConfig} with {@link
 * io.harbinger.broker.sched.Policy}, {@link io.harbinger.broker.sched.Selection} and {@link
 * io.harbinger.broker.sched.AgingMode}.
 *
 * <p>Assumptions and guarantees: nothing in this package is thread-safe. The broker calls it under
 * its own lock; the simulator calls it from its single thread with a ticker that reads simulated
 * time. Every queue operation is O(1) or amortised O(1) (O(levels) for selection, O(log flows) for
 * fair queueing) and allocates nothing per message beyond the caller's {@link
 * io.harbinger.broker.sched.Job}.
 */
package io.harbinger.broker.sched;
