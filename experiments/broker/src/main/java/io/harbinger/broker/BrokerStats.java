package io.harbinger.broker;

import io.harbinger.scheduler.SchedulerStats;

/**
 * Counters of a broker since start.
 *
 * @param submitted messages accepted
 * @param deliveries deliveries made (redeliveries included)
 * @param completed messages acknowledged within lease and TTL
 * @param nacks accepted Nacks
 * @param leaseExpiries deliveries whose lease ran out
 * @param deadLettered messages sent to the dead-letter queue
 * @param replays settlements answered from the replay cache
 * @param learned acknowledgements the predictor learned from
 * @param queued messages waiting now
 * @param inFlight deliveries live now
 * @param promoted aging promotions
 * @param scheduler the scheduler's per-level counters
 */
public record BrokerStats(
    long submitted,
    long deliveries,
    long completed,
    long nacks,
    long leaseExpiries,
    long deadLettered,
    long replays,
    long learned,
    int queued,
    int inFlight,
    long promoted,
    SchedulerStats scheduler) {}
