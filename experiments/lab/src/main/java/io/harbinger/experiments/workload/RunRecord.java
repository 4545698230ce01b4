package io.harbinger.experiments.workload;

import java.util.BitSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * Everything one run of one arm produced: what it ran and what happened to every message.
 *
 * @param arm the arm name, such as {@code fifo} or {@code rabbitmq_predictive}; letters, digits,
 *     {@code _}, {@code -} and {@code .}
 * @param seed the workload seed
 * @param handlers the handler mode
 * @param config the workload configuration (rate and time scale)
 * @param submitErrors publishes that failed, at least 0
 * @param attributes free-form facts of the run (broker version, start time, lookups), may be empty
 * @param messages one record per message, in any order, sequence numbers unique
 */
public record RunRecord(
    String arm,
    long seed,
    HandlerMode handlers,
    WorkloadConfig config,
    long submitErrors,
    Map<String, String> attributes,
    List<MessageRecord> messages) {

  /** Checks the fields and copies the collections. */
  public RunRecord {
    Objects.requireNonNull(arm, "arm");
    Objects.requireNonNull(handlers, "handlers");
    Objects.requireNonNull(config, "config");
    if (!arm.matches("[A-Za-z0-9_.-]{1,64}")) {
      throw new IllegalArgumentException(
          "arm must be 1-64 letters, digits, '_', '-' or '.': '" + arm + "'");
    }
    if (submitErrors < 0) {
      throw new IllegalArgumentException("submitErrors must be >= 0: " + submitErrors);
    }
    if (config.seed() != seed) {
      throw new IllegalArgumentException(
          "seed must match the workload's: " + seed + " vs " + config.seed());
    }
    attributes = Map.copyOf(new TreeMap<>(attributes));
    messages = List.copyOf(messages);
    BitSet seen = new BitSet();
    for (MessageRecord m : messages) {
      if (m.seq() > Integer.MAX_VALUE - 1) {
        throw new IllegalArgumentException(
            "seq must be below " + Integer.MAX_VALUE + ": " + m.seq());
      }
      if (seen.get((int) m.seq())) {
        throw new IllegalArgumentException(
            "seq must be unique within a run: " + m.seq() + " repeats");
      }
      seen.set((int) m.seq());
    }
  }
}
