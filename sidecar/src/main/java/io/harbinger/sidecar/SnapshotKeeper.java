package io.harbinger.sidecar;

import io.harbinger.predictor.HistogramPredictor;
import io.harbinger.predictor.Mode;
import io.harbinger.predictor.PredictorConfig;
import io.harbinger.predictor.SnapshotException;
import io.harbinger.predictor.SnapshotRecovery;
import io.harbinger.predictor.Ticker;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Restores the predictor from its snapshot at start and saves it on demand, keeping the outcome for
 * metrics.
 *
 * <p>A missing snapshot starts cold quietly. A refused one (corrupt, truncated, another
 * configuration) is moved aside to {@code FILE.refused} and the rollback copy {@code FILE.prev} is
 * restored instead; only when that is refused or missing too does the sidecar start cold. Either
 * way the reason is logged at WARN and kept in {@link #restoreStatus()}. Because the refused file
 * is moved aside, the next save cannot turn it into the rollback copy ({@link
 * HistogramPredictor#recover}). Saving is serialised.
 *
 * <p>Assumptions and guarantees: thread-safe; {@link #save} blocks on file I/O.
 */
final class SnapshotKeeper {

  private static final Logger LOG = LoggerFactory.getLogger(SnapshotKeeper.class);

  private final Optional<Path> path;
  private final String context;
  private final Clock clock;
  private final ColdStart coldStart;
  private final AtomicLong lastSaveMillis = new AtomicLong(-1);
  private final AtomicLong failures = new AtomicLong();
  private volatile String restoreStatus = "not attempted";
  private volatile boolean restoreRejected;
  private volatile boolean rolledBack;

  SnapshotKeeper(Optional<Path> path, String context, Clock clock) {
    this(path, context, clock, HistogramPredictor::new);
  }

  SnapshotKeeper(Optional<Path> path, String context, Clock clock, ColdStart coldStart) {
    this.path = path;
    this.context = context;
    this.clock = clock;
    this.coldStart = coldStart;
  }

  /**
   * Makes the predictor the sidecar starts with when no snapshot is restored: the product's, or in
   * a test one that the settings alone do not describe. A restored predictor is always the
   * product's.
   */
  @FunctionalInterface
  interface ColdStart {
    /**
     * Creates a cold predictor.
     *
     * @param config the settings
     * @param ticker the source of time
     * @param mode the initial mode
     * @return the predictor
     */
    HistogramPredictor create(PredictorConfig config, Ticker ticker, Mode mode);
  }

  /** Restores a predictor, or creates a cold one and records why. */
  HistogramPredictor restore(PredictorConfig config, Ticker ticker, Mode mode) {
    if (path.isEmpty()) {
      restoreStatus = "disabled; starting cold";
      return coldStart.create(config, ticker, mode);
    }
    try {
      SnapshotRecovery r = HistogramPredictor.recover(path.get(), context, config, ticker, mode);
      HistogramPredictor restored = r.predictor();
      if (r.rolledBack()) {
        SnapshotException refused = r.refused().get(0);
        restoreRejected = true;
        rolledBack = true;
        restoreStatus =
            "rejected ("
                + refused.reason()
                + "); restored from "
                + r.restoredFrom().getFileName()
                + ", the refused file kept as "
                + path.get().getFileName()
                + ".refused";
        LOG.warn(
            "snapshot {} refused ({}); restored the previous one, {}: {} keys",
            path.get(),
            refused.getMessage(),
            r.restoredFrom(),
            restored.stats().keys());
      } else {
        restoreStatus = "restored";
        LOG.info("restored predictor from {}: {} keys", path.get(), restored.stats().keys());
      }
      return restored;
    } catch (SnapshotException e) {
      if (e.reason() == SnapshotException.Reason.ABSENT) {
        restoreStatus = "absent; starting cold";
        LOG.info("no snapshot at {}; starting cold", path.get());
      } else {
        restoreRejected = true;
        restoreStatus = "rejected (" + e.reason() + "); starting cold";
        LOG.warn(
            "snapshot {} refused, and no usable {}.prev; starting cold: {}",
            path.get(),
            path.get().getFileName(),
            e.getMessage());
      }
      return coldStart.create(config, ticker, mode);
    }
  }

  /** Saves now; returns the file's size in bytes. */
  synchronized long save(HistogramPredictor predictor) throws IOException {
    Path file =
        path.orElseThrow(
            () -> new IllegalStateException("snapshots are disabled (snapshot.path is empty)"));
    try {
      Path parent = file.toAbsolutePath().getParent();
      if (parent != null) {
        Files.createDirectories(parent);
      }
      predictor.save(file, context);
      lastSaveMillis.set(clock.millis());
      return Files.size(file);
    } catch (IOException | RuntimeException e) {
      failures.incrementAndGet();
      throw e;
    }
  }

  /** Saves, logging instead of throwing: for the periodic and shutdown saves. */
  void saveQuietly(HistogramPredictor predictor) {
    if (path.isEmpty()) {
      return;
    }
    try {
      save(predictor);
    } catch (IOException | RuntimeException e) {
      LOG.warn("snapshot to {} failed: {}", path.get(), e.toString());
    }
  }

  Optional<Path> path() {
    return path;
  }

  String restoreStatus() {
    return restoreStatus;
  }

  /** Whether the snapshot found at start was refused (whether or not the rollback copy helped). */
  boolean restoreRejected() {
    return restoreRejected;
  }

  /** Whether the predictor came from the rollback copy. */
  boolean rolledBack() {
    return rolledBack;
  }

  long failures() {
    return failures.get();
  }

  /** When the last successful save finished, epoch milliseconds, or -1 before the first. */
  long lastSaveMillis() {
    return lastSaveMillis.get();
  }
}
