package io.harbinger.broker;

import io.harbinger.scheduler.SchedulerConfig;
import java.time.Duration;
import java.util.Objects;

/**
 * The broker's settings, modelled on the original implementation's broker (defaults in {@link
 * #defaults}).
 *
 * @param scheduler levels, selection and aging
 * @param policy the ingress arm
 * @param lease how long a delivery may stay unsettled; positive (30 s)
 * @param maxRetries failed deliveries after which a message is dead-lettered, in [1, 100] (3: the
 *     third failure dead-letters)
 * @param maxPullWait the longest a Pull waits, positive (5 s)
 * @param defaultTtl the TTL of a message submitted without one; zero for none (zero)
 * @param completionRetention how long settled attempts are remembered for replays; positive (60 s)
 * @param completionCacheSize the most settled attempts remembered, positive (10,000)
 * @param dlqCapacity the most dead letters kept; the oldest are dropped beyond it (100,000)
 * @param maxPayloadBytes the largest payload accepted (1 MiB)
 * @param maxClients the most producers, and the most consumers, that may register (100,000)
 * @param jobTypeHeader the header naming the job type ({@code x-job-type})
 */
public record BrokerConfig(
    SchedulerConfig scheduler,
    Policy policy,
    Duration lease,
    int maxRetries,
    Duration maxPullWait,
    Duration defaultTtl,
    Duration completionRetention,
    int completionCacheSize,
    int dlqCapacity,
    int maxPayloadBytes,
    int maxClients,
    String jobTypeHeader) {

  /** Checks the fields. */
  public BrokerConfig {
    Objects.requireNonNull(scheduler, "scheduler");
    Objects.requireNonNull(policy, "policy");
    Objects.requireNonNull(jobTypeHeader, "jobTypeHeader");
    positive("lease", lease);
    positive("maxPullWait", maxPullWait);
    positive("completionRetention", completionRetention);
    Objects.requireNonNull(defaultTtl, "defaultTtl");
    if (defaultTtl.isNegative()) {
      throw new IllegalArgumentException("defaultTtl must not be negative: " + defaultTtl);
    }
    if (maxRetries < 1 || maxRetries > 100) {
      throw new IllegalArgumentException("maxRetries must be in [1, 100]: " + maxRetries);
    }
    atLeastOne("completionCacheSize", completionCacheSize);
    atLeastOne("dlqCapacity", dlqCapacity);
    atLeastOne("maxPayloadBytes", maxPayloadBytes);
    atLeastOne("maxClients", maxClients);
    if (jobTypeHeader.isEmpty()) {
      throw new IllegalArgumentException("jobTypeHeader must not be empty");
    }
  }

  private static void positive(String name, Duration value) {
    Objects.requireNonNull(value, name);
    if (value.isNegative() || value.isZero()) {
      throw new IllegalArgumentException(name + " must be positive: " + value);
    }
  }

  private static void atLeastOne(String name, int value) {
    if (value < 1) {
      throw new IllegalArgumentException(name + " must be at least 1: " + value);
    }
  }

  /**
   * Returns the defaults: 3 strict levels with plain aging, FIFO ingress, 30 s lease, 3 retries, 5
   * s pull wait, no TTL, 60 s / 10,000 replay cache, 100,000 dead letters, 1 MiB payloads.
   *
   * @return the defaults
   */
  public static BrokerConfig defaults() {
    return new BrokerConfig(
        SchedulerConfig.defaults(),
        Policy.FIFO,
        Duration.ofSeconds(30),
        3,
        Duration.ofSeconds(5),
        Duration.ZERO,
        Duration.ofSeconds(60),
        10_000,
        100_000,
        1 << 20,
        100_000,
        "x-job-type");
  }

  /**
   * Returns a copy with another policy and scheduler.
   *
   * @param newPolicy the ingress arm
   * @param newScheduler the scheduler settings
   * @return the copy
   */
  public BrokerConfig withPolicy(Policy newPolicy, SchedulerConfig newScheduler) {
    return new BrokerConfig(
        newScheduler,
        newPolicy,
        lease,
        maxRetries,
        maxPullWait,
        defaultTtl,
        completionRetention,
        completionCacheSize,
        dlqCapacity,
        maxPayloadBytes,
        maxClients,
        jobTypeHeader);
  }

  /**
   * Returns a copy with another lease.
   *
   * @param newLease the lease
   * @return the copy
   */
  public BrokerConfig withLease(Duration newLease) {
    return new BrokerConfig(
        scheduler,
        policy,
        newLease,
        maxRetries,
        maxPullWait,
        defaultTtl,
        completionRetention,
        completionCacheSize,
        dlqCapacity,
        maxPayloadBytes,
        maxClients,
        jobTypeHeader);
  }
}
