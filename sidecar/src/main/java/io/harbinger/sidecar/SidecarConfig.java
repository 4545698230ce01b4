package io.harbinger.sidecar;

import io.harbinger.predictor.Mode;
import io.harbinger.predictor.PredictorConfig;
import io.harbinger.rabbit.TrustedReporters;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;

/**
 * The sidecar's settings, as read by {@link ConfigLoader}; {@code reference.yaml} in the jar
 * documents each one.
 *
 * @param replicaId names this replica and its durable report queue
 * @param rabbit the broker connection
 * @param reports whose reports are learned, and this replica's report queue
 * @param grpcBindAddress the address the gRPC server listens on, loopback by default
 * @param grpcPort the gRPC port; 0 picks a free one
 * @param tls certificate chain and private key, or empty for plaintext
 * @param tokenFile a file holding the bearer token, or empty for no authentication
 * @param allowUnauthenticatedRemote whether a non-loopback gRPC address without a token is accepted
 *     (with a WARN at start)
 * @param metricsBindAddress the address {@code /metrics} and {@code /ready} listen on
 * @param metricsPort the Prometheus port; 0 picks a free one, -1 disables
 * @param mode the initial routing mode
 * @param jobTypeHeader the header naming the job type
 * @param predictor the predictor's parameters
 * @param snapshotPath where snapshots go, or empty to disable them
 * @param snapshotInterval how often snapshots are saved
 * @param publishInterval how often route changes are pushed to watchers
 * @param sweepInterval how often every key is re-checked
 * @param heartbeatInterval how often an idle route stream carries a heartbeat
 */
public record SidecarConfig(
    String replicaId,
    Rabbit rabbit,
    Reports reports,
    String grpcBindAddress,
    int grpcPort,
    Optional<Tls> tls,
    Optional<Path> tokenFile,
    boolean allowUnauthenticatedRemote,
    String metricsBindAddress,
    int metricsPort,
    Mode mode,
    String jobTypeHeader,
    PredictorConfig predictor,
    Optional<Path> snapshotPath,
    Duration snapshotInterval,
    Duration publishInterval,
    Duration sweepInterval,
    Duration heartbeatInterval) {

  /**
   * The broker connection.
   *
   * @param uri the AMQP URI, without credentials
   * @param username the user
   * @param password the password; never logged ({@link #toString()} hides it)
   * @param reportsExchange the fanout exchange of duration reports
   * @param prefetch unacknowledged report batches accepted at once
   * @param maxInboundMessageBytes the largest message body the report connection accepts
   * @param startupRetry how long the first connection is retried at start; zero for one try
   */
  public record Rabbit(
      String uri,
      String username,
      String password,
      String reportsExchange,
      int prefetch,
      int maxInboundMessageBytes,
      Duration startupRetry) {
    @Override
    public String toString() {
      return "Rabbit[uri="
          + uri
          + ", username="
          + username
          + ", password=(hidden), reportsExchange="
          + reportsExchange
          + ", prefetch="
          + prefetch
          + ", maxInboundMessageBytes="
          + maxInboundMessageBytes
          + ", startupRetry="
          + startupRetry
          + "]";
    }
  }

  /**
   * Whose reports are learned, and the bounds of this replica's report queue.
   *
   * @param trustedReporters the users whose report batches are accepted
   * @param maxKeysPerReporter the most distinct keys one reporter may bring in
   * @param queueMaxLength the most batches the report queue holds (RabbitMQ refuses more)
   * @param queueExpiry how long the report queue lives without a consumer
   */
  public record Reports(
      TrustedReporters trustedReporters,
      int maxKeysPerReporter,
      int queueMaxLength,
      Duration queueExpiry) {}

  /**
   * TLS material for the gRPC server.
   *
   * @param certChain PEM certificate chain
   * @param privateKey PEM private key
   */
  public record Tls(Path certChain, Path privateKey) {}

  /** Returns the users whose report batches are accepted. */
  public TrustedReporters trustedReporters() {
    return reports.trustedReporters();
  }

  /** Returns the most distinct keys one reporter may bring in. */
  public int maxKeysPerReporter() {
    return reports.maxKeysPerReporter();
  }

  /** Returns the most batches this replica's report queue holds. */
  public int reportQueueMaxLength() {
    return reports.queueMaxLength();
  }

  /** Returns how long this replica's report queue lives without a consumer. */
  public Duration reportQueueExpiry() {
    return reports.queueExpiry();
  }

  /**
   * Returns the arguments this replica's report queue is declared with: its length limit (beyond
   * which RabbitMQ refuses new batches, so that a flood cannot push out the batches queued) and its
   * expiry.
   *
   * @return {@code x-max-length}, {@code x-overflow} and {@code x-expires}
   */
  public Map<String, Object> reportQueueArguments() {
    return Map.of(
        "x-max-length",
        reports.queueMaxLength(),
        "x-overflow",
        "reject-publish",
        "x-expires",
        Math.toIntExact(reports.queueExpiry().toMillis()));
  }

  /**
   * Returns the name of this replica's durable report queue.
   *
   * @return {@code harbinger.reports.<replicaId>}
   */
  public String reportQueue() {
    return rabbit.reportsExchange() + "." + replicaId;
  }

  /**
   * Returns the context a snapshot must match: the key policy, which changes what keys mean.
   *
   * @return the snapshot context
   */
  public String snapshotContext() {
    return "sidecar|job-type-header=" + jobTypeHeader;
  }
}
