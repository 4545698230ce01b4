package io.harbinger.sidecar;

import io.harbinger.predictor.Mode;
import io.harbinger.predictor.PredictorConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;

/**
 * The sidecar's settings, as read by {@link ConfigLoader}; {@code reference.yaml} in the jar
 * documents each one.
 *
 * @param replicaId names this replica and its durable report queue
 * @param rabbit the broker connection
 * @param grpcPort the gRPC port; 0 picks a free one
 * @param grpcBindAddress the address the gRPC server listens on, or empty for every interface
 * @param tls certificate chain and private key, or empty for plaintext
 * @param tokenFile a file holding the bearer token, or empty for no authentication
 * @param metricsPort the Prometheus port; 0 picks a free one, -1 disables
 * @param metricsBindAddress the address the metrics endpoint listens on, or empty for every
 *     interface
 * @param mode the initial routing mode
 * @param jobTypeHeader the header naming the job type
 * @param predictor the predictor's parameters
 * @param snapshotPath where snapshots go, or empty to disable them
 * @param snapshotInterval how often snapshots are saved
 * @param publishInterval how often route changes are pushed to watchers
 * @param sweepInterval how often every key is re-checked
 */
public record SidecarConfig(
    String replicaId,
    Rabbit rabbit,
    int grpcPort,
    Optional<String> grpcBindAddress,
    Optional<Tls> tls,
    Optional<Path> tokenFile,
    int metricsPort,
    Optional<String> metricsBindAddress,
    Mode mode,
    String jobTypeHeader,
    PredictorConfig predictor,
    Optional<Path> snapshotPath,
    Duration snapshotInterval,
    Duration publishInterval,
    Duration sweepInterval) {

  /**
   * The broker connection.
   *
   * @param uri the AMQP URI, without credentials
   * @param username the user
   * @param password the password; never logged ({@link #toString()} hides it)
   * @param reportsExchange the fanout exchange of duration reports
   * @param prefetch unacknowledged report batches accepted at once
   * @param startupRetry how long the first connection is retried at start; zero for one try
   */
  public record Rabbit(
      String uri,
      String username,
      String password,
      String reportsExchange,
      int prefetch,
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
          + ", startupRetry="
          + startupRetry
          + "]";
    }
  }

  /**
   * TLS material for the gRPC server.
   *
   * @param certChain PEM certificate chain
   * @param privateKey PEM private key
   */
  public record Tls(Path certChain, Path privateKey) {}

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
