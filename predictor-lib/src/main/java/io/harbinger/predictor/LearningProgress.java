package io.harbinger.predictor;

import java.util.Locale;
import java.util.Objects;

/**
 * How far a predictor has learned, for operators: which keys it trusts, which are still learning,
 * whether its level boundaries and the global safeguard's first estimate exist, and so whether it
 * reorders anything yet.
 *
 * <p>Reordering starts when three things hold (seed paper section 3.5 for the per-key gate, section
 * 3.3 for the boundaries): the pooled reports reach {@code boundaryMinObservations} (100) and the
 * first boundaries are published; at least one key has {@code minObservations} (20) successful
 * observations with its spread within limits, so that it is trusted; and the global safeguard is
 * not holding FIFO order. The safeguard's first estimate, after {@code safeguardMinReports} (200)
 * reports, is what lets unmeasured keys go to the last level. On the production flow's two job
 * types, that is about 51 jobs of each before anything moves.
 *
 * <p>Example: {@code LearningProgress.of(predictor).describe()} gives {@code "reordering: 3 keys
 * trusted, 1 learning, 0 untrusted; 4,096 reports pooled (levels from 100); safeguard estimate made
 * (from 200 reports)"}.
 *
 * @param mode the predictor's mode
 * @param trustedKeys keys routed by their own estimate now ({@link Outcome#PREDICTED})
 * @param learningKeys keys not routed by their own estimate yet because learning is incomplete:
 *     fewer successful observations than {@code minObservations} ({@link Outcome#COLD}), or no
 *     boundaries yet ({@link Outcome#UNREADY})
 * @param untrustedKeys keys with enough observations that fall back for another reason (spread,
 *     misprediction, staleness, censoring)
 * @param minObservations observations a key needs to be trusted
 * @param pooledReports reports in the pooled histogram the boundaries come from
 * @param boundaryMinReports pooled reports before the first boundaries are published (the product's
 *     fixed value; a lab predictor tuned otherwise still shows it)
 * @param boundaries whether level boundaries have been published
 * @param safeguardFirstReports reports from a cold start before the global safeguard makes its
 *     first estimate (from the product's fixed values)
 * @param safeguardEstimate whether the global safeguard has an estimate
 * @param safeguardHolding whether the global safeguard holds FIFO order now
 */
public record LearningProgress(
    Mode mode,
    long trustedKeys,
    long learningKeys,
    long untrustedKeys,
    int minObservations,
    long pooledReports,
    int boundaryMinReports,
    boolean boundaries,
    int safeguardFirstReports,
    boolean safeguardEstimate,
    boolean safeguardHolding) {

  /** Checks the parts. */
  public LearningProgress {
    Objects.requireNonNull(mode, "mode");
  }

  /**
   * Reads a predictor's progress. Walks its keys once, so call it at the pace of a health check or
   * a metrics scrape, not per message.
   *
   * @param predictor the predictor
   * @return its progress now
   */
  public static LearningProgress of(Predictor predictor) {
    long trusted = 0;
    long learning = 0;
    long untrusted = 0;
    for (KeyStats k : predictor.keyStats()) {
      switch (k.verdict()) {
        case PREDICTED -> trusted++;
        case COLD, UNREADY -> learning++;
        default -> untrusted += k.verdict().isUntrusted() ? 1 : 0;
      }
    }
    PredictorStats stats = predictor.stats();
    PredictorTuning tuning = PredictorTuning.defaults();
    return new LearningProgress(
        predictor.mode(),
        trusted,
        learning,
        untrusted,
        predictor.config().minObservations(),
        stats.pooledObservations(),
        tuning.boundaryMinObservations(),
        predictor.boundaries().isPresent(),
        tuning.boundaryMinObservations() + reportsToWeigh(tuning),
        !Double.isNaN(stats.safeguard().estimatedGain()),
        stats.safeguard().holding());
  }

  /**
   * Reports whose decayed weight first reaches the safeguard's minimum: the smallest n with (1 -
   * decay^n) / (1 - decay) at least the minimum.
   */
  private static int reportsToWeigh(PredictorTuning tuning) {
    double decay = tuning.safeguardDecay();
    double needed = tuning.safeguardMinReports();
    return (int) Math.ceil(Math.log(1 - needed * (1 - decay)) / Math.log(decay) - 1e-9);
  }

  /**
   * Returns whether the predictor gives different keys different levels now: in predictive mode,
   * with boundaries, at least one trusted key, and the safeguard not holding FIFO order.
   *
   * @return true while learned levels reorder messages
   */
  public boolean reordering() {
    return mode == Mode.PREDICTIVE && boundaries && trustedKeys > 0 && !safeguardHolding;
  }

  /**
   * Returns the progress in one line, for logs and demos.
   *
   * @return for example {@code "learning: 0 keys trusted, 2 learning (20 observations each), 0
   *     untrusted; 38 reports pooled (levels from 100); safeguard estimate after 356 reports"}
   */
  public String describe() {
    String state =
        reordering()
            ? "reordering"
            : mode != Mode.PREDICTIVE
                ? mode.name().toLowerCase(Locale.ROOT) + " mode, not reordering"
                : safeguardHolding ? "holding FIFO order (safeguard)" : "learning";
    return String.format(
        Locale.ROOT,
        "%s: %,d key%s trusted, %,d learning (%d observations each), %,d untrusted; %,d reports"
            + " pooled (levels %s); safeguard estimate %s",
        state,
        trustedKeys,
        trustedKeys == 1 ? "" : "s",
        learningKeys,
        minObservations,
        untrustedKeys,
        pooledReports,
        boundaries ? "published" : "from " + boundaryMinReports,
        safeguardEstimate ? "made" : "after " + safeguardFirstReports + " reports");
  }
}
