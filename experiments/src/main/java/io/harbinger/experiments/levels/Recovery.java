package io.harbinger.experiments.levels;

import io.harbinger.experiments.workload.JobType;
import io.harbinger.experiments.workload.Phase;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * How long a job type's published level takes to settle after the regime changes at the start of
 * the shifted phase.
 *
 * <p>Example: under the inversion, {@code generate_invoice} was published at level 0 before the
 * shift; its jobs in the shifted phase end at level 2. {@code of(log, GENERATE_INVOICE, 0.995)}
 * finds the first message of the phase from which, in every window of {@value #WINDOW} consecutive
 * invoices that follows, at least {@value #SETTLED_SHARE} are at level 2, and gives the time from
 * the phase's first invoice to that message, in seconds and in the key's half-lives (a key decays
 * by {@code keyDecay} per observation, so its half-life in seconds is {@code ln 0.5 / ln keyDecay}
 * observations over the type's arrival rate in the phase).
 *
 * <p>Implementation notes: the settled level is the most common level of the phase's last {@value
 * #WINDOW} messages of the type. A type whose settled level is the level it held before the shift
 * (the most common of its last {@value #WINDOW} messages before the phase) did not move, and
 * reports {@link #moved()} false.
 *
 * @param type the job type
 * @param before the level most of its messages had just before the shifted phase, or -1 without any
 * @param settled the level most of its last messages in the phase have
 * @param seconds from the phase's first message of the type to the settled point, NaN when the type
 *     never settles
 * @param halfLives {@code seconds} over the key's half-life in seconds
 */
public record Recovery(JobType type, int before, int settled, double seconds, double halfLives) {

  /** The consecutive messages of a type a share is taken over. */
  public static final int WINDOW = 50;

  /** The share of a window at the settled level that counts as settled. */
  public static final double SETTLED_SHARE = 0.9;

  /** Checks the fields. */
  public Recovery {
    Objects.requireNonNull(type, "type");
  }

  /**
   * Returns whether the type's level changed with the regime.
   *
   * @return true when the settled level differs from the level before the shift
   */
  public boolean moved() {
    return before >= 0 && settled != before;
  }

  /**
   * Measures one type's recovery in a run's decisions.
   *
   * @param log the run's decisions
   * @param type the job type
   * @param keyDecay the predictor's per-observation retention, in (0, 1)
   * @param rateScale the run's rate scale, for the type's arrival rate in the shifted phase
   * @return the recovery, or null when the phase has fewer than {@value #WINDOW} messages of the
   *     type
   */
  public static Recovery of(DecisionLog log, JobType type, double keyDecay, double rateScale) {
    Objects.requireNonNull(log, "log");
    if (!(keyDecay > 0 && keyDecay < 1)) {
      throw new IllegalArgumentException("keyDecay must be in (0, 1): " + keyDecay);
    }
    List<DecisionLog.Row> earlier = new ArrayList<>();
    List<DecisionLog.Row> shifted = new ArrayList<>();
    for (DecisionLog.Row row : log.rows()) {
      if (row.job().type() == type) {
        (row.job().phase() == Phase.SHIFTED ? shifted : earlier).add(row);
      }
    }
    if (shifted.size() < WINDOW) {
      return null;
    }
    shifted.sort((a, b) -> Double.compare(a.atSeconds(), b.atSeconds()));
    earlier.sort((a, b) -> Double.compare(a.atSeconds(), b.atSeconds()));
    int levels = log.levels();
    int before =
        earlier.isEmpty()
            ? -1
            : mode(earlier.subList(Math.max(0, earlier.size() - WINDOW), earlier.size()), levels);
    int settled = mode(shifted.subList(shifted.size() - WINDOW, shifted.size()), levels);
    // Walk back from the end: the settled point is the earliest start of a run of windows that all
    // hold the share.
    int n = shifted.size();
    int[] at = new int[n + 1];
    for (int i = 0; i < n; i++) {
      at[i + 1] = at[i] + (shifted.get(i).level() == settled ? 1 : 0);
    }
    int need = (int) Math.ceil(SETTLED_SHARE * WINDOW);
    int from = -1;
    for (int start = n - WINDOW; start >= 0; start--) {
      if (at[start + WINDOW] - at[start] >= need) {
        from = start;
      } else {
        break;
      }
    }
    double seconds =
        from < 0 ? Double.NaN : shifted.get(from).atSeconds() - shifted.getFirst().atSeconds();
    double halfLifeObservations = Math.log(0.5) / Math.log(keyDecay);
    double halfLifeSeconds = halfLifeObservations / type.ratePerSecond(Phase.SHIFTED, rateScale);
    return new Recovery(type, before, settled, seconds, seconds / halfLifeSeconds);
  }

  private static int mode(List<DecisionLog.Row> rows, int levels) {
    int[] counts = new int[levels];
    for (DecisionLog.Row r : rows) {
      counts[r.level()]++;
    }
    int best = 0;
    for (int l = 1; l < levels; l++) {
      if (counts[l] > counts[best]) {
        best = l;
      }
    }
    return best;
  }
}
