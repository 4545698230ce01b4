package io.harbinger.rabbit;

/**
 * What the learner of a process did with the reports it read from the reports exchange: a snapshot
 * of the ingestion counters of an {@link EmbeddedRouter} (or of the sidecar), each only increasing.
 *
 * @param batches well-formed batches ingested
 * @param malformedBatches messages that were not a report batch
 * @param oversizedBatches messages over 1 MiB, or without a body
 * @param learned acknowledged durations the predictor accepted
 * @param censored censored observations the predictor accepted
 * @param notLearned nacks and rejects
 * @param untracked valid reports for keys the predictor had no room for
 * @param rejectedOutcomes reports with an unset or unknown outcome
 * @param rejectedKeys reports whose key is empty, malformed or too long
 * @param rejectedDurations acknowledged reports with a negative or absurd duration
 * @param reporterDrops reports the reporters said they dropped (saturates at 2^63 - 1)
 * @param rejectedDropCounts batches whose declared drop count was absurd and not added
 * @param untrustedBatches batches without a {@code user-id} or from a reporter not trusted
 * @param forgedReports reports about a producer their reporter may not report for
 * @param reporterKeyLimit reports of a new key from a reporter holding all its key slots
 */
public record IngestStats(
    long batches,
    long malformedBatches,
    long oversizedBatches,
    long learned,
    long censored,
    long notLearned,
    long untracked,
    long rejectedOutcomes,
    long rejectedKeys,
    long rejectedDurations,
    long reporterDrops,
    long rejectedDropCounts,
    long untrustedBatches,
    long forgedReports,
    long reporterKeyLimit) {}
