package io.harbinger.predictor;

import java.nio.file.Path;
import java.util.List;
import java.util.Objects;

/**
 * A predictor restored by {@link HistogramPredictor#recover}, with the file it came from and the
 * files that were refused on the way.
 *
 * @param predictor the restored predictor
 * @param restoredFrom the snapshot file or its rollback copy {@code FILE.prev}
 * @param refused why files were refused before one was accepted (the snapshot file first), empty
 *     when the snapshot file itself was accepted
 */
public record SnapshotRecovery(
    HistogramPredictor predictor, Path restoredFrom, List<SnapshotException> refused) {

  /** Checks the values and copies the list. */
  public SnapshotRecovery {
    Objects.requireNonNull(predictor, "predictor");
    Objects.requireNonNull(restoredFrom, "restoredFrom");
    refused = List.copyOf(refused);
  }

  /** Returns whether the rollback copy had to be used. */
  public boolean rolledBack() {
    return !refused.isEmpty();
  }
}
