package io.harbinger.sidecar;

import io.harbinger.predictor.HistogramPredictor;
import io.harbinger.predictor.Mode;
import io.harbinger.predictor.PredictorConfig;
import io.harbinger.predictor.SnapshotException;
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
 * <p>A missing snapshot starts cold quietly; a refused one (corrupt, truncated, another
 * configuration) starts cold with the reason logged at WARN and kept in {@link #restoreStatus()}.
 * Saving is serialised.
 *
 * <p>Assumptions and guarantees: thread-safe; {@link #save} blocks on file I/O.
 */
final class SnapshotKeeper {

  private static final Logger LOG = LoggerFactory.getLogger(SnapshotKeeper.class);

  private final Optional<Path> path;
  private final String context;
  private final Clock clock;
  private final AtomicLong lastSaveMillis = new AtomicLong(-1);
  private final AtomicLong failures = new AtomicLong();
  private volatile String restoreStatus = "not attempted";

  SnapshotKeeper(Optional<Path> path, String context, Clock clock) {
    this.path = path;
    this.context = context;
    this.clock = clock;
  }

  /** Restores a predictor, or creates a cold one and records why. */
  HistogramPredictor restore(PredictorConfig config, Ticker ticker, Mode mode) {
    if (path.isEmpty()) {
      restoreStatus = "disabled; starting cold";
      return new HistogramPredictor(config, ticker, mode);
    }
    try {
      HistogramPredictor restored =
          HistogramPredictor.restore(path.get(), context, config, ticker, mode);
      restoreStatus = "restored";
      LOG.info("restored predictor from {}: {} keys", path.get(), restored.stats().keys());
      return restored;
    } catch (SnapshotException e) {
      if (e.reason() == SnapshotException.Reason.ABSENT) {
        restoreStatus = "absent; starting cold";
        LOG.info("no snapshot at {}; starting cold", path.get());
      } else {
        restoreStatus = "rejected (" + e.reason() + "); starting cold";
        LOG.warn("snapshot {} refused, starting cold: {}", path.get(), e.getMessage());
      }
      return new HistogramPredictor(config, ticker, mode);
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

  boolean restoreRejected() {
    return restoreStatus.startsWith("rejected");
  }

  long failures() {
    return failures.get();
  }

  /** Seconds since the last successful save, or -1 before the first. */
  double ageSeconds() {
    long last = lastSaveMillis.get();
    return last < 0 ? -1 : (clock.millis() - last) / 1000.0;
  }
}
