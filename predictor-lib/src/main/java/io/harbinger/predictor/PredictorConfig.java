package io.harbinger.predictor;

import java.time.Duration;
import java.util.Objects;

/**
 * The ten settings of the predictor that a product configuration exposes, each with its default:
 * the same names in this builder, in the sidecar's YAML (under {@code predictor:}) and in the
 * Spring Boot properties (under {@code harbinger.}). Every other parameter is fixed for the product
 * (the lab varies them through {@link PredictorTuning}, which is not part of the product's
 * configuration).
 *
 * <p>Example: {@code PredictorConfig.builder().levels(5).build()} is the defaults with five levels:
 * queues declared with {@code x-max-priority} 4, keys predicted after 20 successful observations,
 * unmeasured keys routed at level 4 once the global safeguard has judged the levels. {@code
 * PredictorConfig.builder().fewObservations().build()} is the opt-in preset for job kinds that
 * recur a few times each.
 *
 * <p>Each setting below says what it does, its default, when to change it, and the measurement
 * behind the default. The numbers of the seed paper (seed paper Table 1, section 5.5 and Table 12
 * for its one-at-a-time sweep) and of this project's runs are quoted with where they come from. The
 * compact constructor checks every rule and names the offending value, so an invalid configuration
 * never reaches a running predictor.
 *
 * @param levels number of priority levels L, in [2, 10]; level 0 is served first, and a key the
 *     predictor cannot place by its own cost goes to the default level, the middle one ({@code
 *     levels / 2}). Default {@value #DEFAULT_LEVELS}. Change it to match queues declared with
 *     another {@code x-max-priority} (L - 1). Seed paper Table 1 has 3; in its sweep (Table 12) two
 *     levels flipped both simulation gates, and on RabbitMQ five learned levels gave no more than
 *     three on the production flow (-61.5% against -61.9% mean latency; docs/evidence.md)
 * @param keyDecay per-observation retention of a key's history, in (0, 1]: after ln(1/2) /
 *     ln(keyDecay) observations an old regime carries half the weight. Default {@value
 *     #DEFAULT_KEY_DECAY}, a half-life of about 138 observations. Lower it where job costs change
 *     often and old observations should fade sooner; raise it where a key's durations are noisy but
 *     stable. Seed paper Table 1's value; its sweep (Table 12) flipped the strict-priority gate at
 *     0.98, 0.999 and 1.0 and left the weighted design's gate robust
 * @param staleAfter a key idle longer than this is not predicted, and its history is discarded at
 *     its next observation; zero turns staleness off; never negative. Default off (zero). Set it
 *     (seed paper Table 1 has 30 minutes) where keys recur within minutes and a key back after a
 *     long pause should not be placed by its old history. Off because keys that come back after
 *     hours or days lost their history to it: seed paper section 5.2 found 53% of LPC-EGEE's jobs
 *     on keys whose history had expired, and with Table 1's idle limits the HPC logs lost nearly
 *     all of the gain, while turning the limits off changed nothing on the production flow (section
 *     5.4, Table 11)
 * @param minObservations successful observations a key needs before it is predicted (n_min), at
 *     least 1. Default {@value #DEFAULT_MIN_OBSERVATIONS}. Lower it, with {@link
 *     Builder#fewObservations()}, for job kinds that recur only a few times each (long HPC-style
 *     logs). Seed paper Table 1's value; its sweep (Table 12) flipped the strict-priority gate at 5
 *     and at 100
 * @param maxSpreadRatio largest ratio of a key's 99th percentile to its median for the key to be
 *     predicted, finite and at least 1; a key over it is placed by its mean, never above the
 *     default level. Default {@value #DEFAULT_MAX_SPREAD_RATIO}. Raise it, with {@link
 *     Builder#fewObservations()}, where keys have too few observations for a tail. Seed paper Table
 *     1's value, chosen after a test showed the 90th percentile routed a bimodal key (92% fast, 8%
 *     thousands of times slower) to a fast level (section 3.5); its sweep (Table 12) flipped the
 *     strict-priority gate at 4
 * @param maxKeys most keys tracked at once, at least 1 (a {@link HistogramPredictor} needs at least
 *     {@value #MIN_MAX_KEYS}, one per lock shard); a new key finds room only once the least
 *     recently active key of its shard has been idle for its grace, and is otherwise counted as
 *     untracked. Default {@value #DEFAULT_MAX_KEYS}. Raise it when more distinct keys are active at
 *     once (the untracked count grows). A tracked key retains about 520 bytes of heap ({@code
 *     MemoryFootprint} in experiments/benchmarks, 100,000 keys of 25 observations each), so the
 *     default bounds the keys at about 8.5 MB
 * @param sizeBins whether a message's size hint extends its key with a log2 size bin, each job
 *     teaching both the bin and its un-binned parent, which lends its estimate to a bin not yet
 *     trusted (seed paper section 3.8). Default off. Turn it on where jobs of one type cost what
 *     their input costs and producers and consumers send size hints. Off because it did not pay
 *     under load: in seed paper section 3.8 it cut the typical error from 1.9x to 1.2x, but mean
 *     latency changed by +0.7% [+0.5, +0.9] against job-type keys, and one type whose cost does not
 *     follow its size did 8.7% worse
 * @param safeguard whether the global safeguard may hold routing in FIFO order: from the reports it
 *     estimates, with Cobham's formulas, the share of FIFO's mean wait the current levels save, and
 *     below a margin of 2% sends every message to the default level until the gain reaches 5%
 *     (shadow mode only reports it). The estimate is made whether it may hold or not, and {@link
 *     #untrustedLast} acts once it exists. Default on. Turn it off only to compare with the
 *     unguarded predictor. On because prediction can hurt where a key's median misleads: the seed
 *     paper's DAS2-fs2 log (+89% mean latency), and this project's synthetic {@code decoy} case
 *     built to that description (+12.5% mean and 2.97x P99 at load 0.95 for the seed paper's
 *     predictor); without the safeguards 16 of 81 safety cells of the trace replays fail
 *     (docs/evidence.md)
 * @param tailBudget when above 1, the boundary above the last level is raised while Cobham's
 *     estimate of that level's mean wait stays within this many times FIFO's (at a per-worker load
 *     of 0.8): the levels above take the shortest durations carrying up to (1 - 1/tailBudget) / 0.8
 *     of the pooled work, and the boundary is never set below the equal quantile; zero keeps every
 *     boundary at the equal quantiles of the pooled observations (seed paper equation 2); 0 or in
 *     (1, 100]. Default {@value #DEFAULT_TAIL_BUDGET}, the bound the project holds the all-message
 *     P99 to. Lower it towards 1 to protect the long jobs' wait more ({@link
 *     Builder#fewObservations()} uses 1.1), raise it to let short work go ahead more. The default
 *     since it is worth 4 points of mean latency on the replayed production flow (-61.8% against
 *     -57.7% with equal quantiles; docs/evidence.md)
 * @param untrustedLast whether a key whose own observations give no cost to place it by (cold,
 *     stale or censored), which the seed paper sends to the default level (section 3.5), is routed
 *     at the last level once the global safeguard has estimated the levels' gain (whether {@link
 *     #safeguard} may hold or not), so that work nobody has measured queues with the long jobs in
 *     arrival order rather than ahead of them; a spread or mispredicted key keeps the level its
 *     mean gives it. Default on. Turn it off to keep the seed paper's default level for such keys.
 *     The default since it keeps the all-message P99 within 1.25x FIFO's in every trace replay,
 *     where the default level fails 14 of 81 safety cells, with a P99 up to 3.03x FIFO's
 *     (docs/evidence.md)
 */
public record PredictorConfig(
    int levels,
    double keyDecay,
    Duration staleAfter,
    int minObservations,
    double maxSpreadRatio,
    int maxKeys,
    boolean sizeBins,
    boolean safeguard,
    double tailBudget,
    boolean untrustedLast) {

  /** Fewest levels allowed. */
  public static final int MIN_LEVELS = 2;

  /** Most levels allowed. */
  public static final int MAX_LEVELS = 10;

  /** The default {@link #levels}. */
  public static final int DEFAULT_LEVELS = 3;

  /** The default {@link #keyDecay}. */
  public static final double DEFAULT_KEY_DECAY = 0.995;

  /** The default {@link #staleAfter}: none. */
  public static final Duration DEFAULT_STALE_AFTER = Duration.ZERO;

  /** The default {@link #minObservations}; {@link Builder#fewObservations()} lowers it to 1. */
  public static final int DEFAULT_MIN_OBSERVATIONS = 20;

  /** The default {@link #maxSpreadRatio}; {@link Builder#fewObservations()} lifts it to 1000. */
  public static final double DEFAULT_MAX_SPREAD_RATIO = 16;

  /** The default {@link #maxKeys}. */
  public static final int DEFAULT_MAX_KEYS = 16_384;

  /**
   * The fewest keys a {@link HistogramPredictor} tracks ({@link #maxKeys}): it spreads them over
   * this many lock shards, with room for at least one in each.
   */
  public static final int MIN_MAX_KEYS = 16;

  /** The default {@link #sizeBins}: off. */
  public static final boolean DEFAULT_SIZE_BINS = false;

  /** The default {@link #safeguard}: on. */
  public static final boolean DEFAULT_SAFEGUARD = true;

  /** The default {@link #tailBudget}; {@link Builder#fewObservations()} tightens it to 1.1. */
  public static final double DEFAULT_TAIL_BUDGET = 1.25;

  /** The default {@link #untrustedLast}: on. */
  public static final boolean DEFAULT_UNTRUSTED_LAST = true;

  /**
   * Checks a number of priority levels: the one range check of the project, used wherever levels
   * are configured (the predictor, the adapter, the sidecar, the scheduler, the broker).
   *
   * @param levels the number of levels
   * @return {@code levels}, when it is in [{@value #MIN_LEVELS}, {@value #MAX_LEVELS}]
   * @throws IllegalArgumentException otherwise, as {@code "levels must be in [2, 10]: 12"}
   */
  public static int checkLevels(int levels) {
    checkRange("levels", levels, MIN_LEVELS, MAX_LEVELS);
    return levels;
  }

  /** Checks every setting; see the class description for the rules. */
  public PredictorConfig {
    checkLevels(levels);
    checkDecay("keyDecay", keyDecay);
    checkNonNegative("staleAfter", staleAfter);
    checkRange("minObservations", minObservations, 1, Integer.MAX_VALUE);
    if (!(maxSpreadRatio >= 1) || Double.isInfinite(maxSpreadRatio)) {
      throw new IllegalArgumentException(
          "maxSpreadRatio must be finite and at least 1: " + maxSpreadRatio);
    }
    checkRange("maxKeys", maxKeys, 1, Integer.MAX_VALUE);
    if (!(tailBudget == 0 || (tailBudget > 1 && tailBudget <= 100))) {
      throw new IllegalArgumentException("tailBudget must be 0 or in (1, 100]: " + tailBudget);
    }
  }

  /**
   * Returns the defaults.
   *
   * @return the default configuration
   */
  public static PredictorConfig defaults() {
    return builder().build();
  }

  /**
   * Returns a builder preset with the defaults.
   *
   * @return a new builder
   */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Returns a builder preset with this configuration's values.
   *
   * @return a new builder
   */
  public Builder toBuilder() {
    return new Builder(this);
  }

  /**
   * Returns the default level, the middle one ({@code levels / 2}): where a key the predictor
   * cannot place by a cost goes.
   *
   * @return the default level
   */
  public int defaultLevel() {
    return levels / 2;
  }

  static void checkRange(String name, int value, int min, int max) {
    if (value < min || value > max) {
      String range = max == Integer.MAX_VALUE ? "at least " + min : "in [" + min + ", " + max + "]";
      throw new IllegalArgumentException(name + " must be " + range + ": " + value);
    }
  }

  static void checkDecay(String name, double value) {
    if (!(value > 0 && value <= 1)) {
      throw new IllegalArgumentException(name + " must be in (0, 1]: " + value);
    }
  }

  static void checkNonNegative(String name, Duration value) {
    Objects.requireNonNull(value, name);
    if (value.isNegative()) {
      throw new IllegalArgumentException(name + " must not be negative: " + value);
    }
  }

  /** A mutable builder of {@link PredictorConfig}; not thread-safe. */
  public static final class Builder {
    private int levels = DEFAULT_LEVELS;
    private double keyDecay = DEFAULT_KEY_DECAY;
    private Duration staleAfter = DEFAULT_STALE_AFTER;
    private int minObservations = DEFAULT_MIN_OBSERVATIONS;
    private double maxSpreadRatio = DEFAULT_MAX_SPREAD_RATIO;
    private int maxKeys = DEFAULT_MAX_KEYS;
    private boolean sizeBins = DEFAULT_SIZE_BINS;
    private boolean safeguard = DEFAULT_SAFEGUARD;
    private double tailBudget = DEFAULT_TAIL_BUDGET;
    private boolean untrustedLast = DEFAULT_UNTRUSTED_LAST;

    private Builder() {}

    private Builder(PredictorConfig c) {
      levels = c.levels;
      keyDecay = c.keyDecay;
      staleAfter = c.staleAfter;
      minObservations = c.minObservations;
      maxSpreadRatio = c.maxSpreadRatio;
      maxKeys = c.maxKeys;
      sizeBins = c.sizeBins;
      safeguard = c.safeguard;
      tailBudget = c.tailBudget;
      untrustedLast = c.untrustedLast;
    }

    /**
     * Sets the number of levels.
     *
     * @param value in [2, 10]
     * @return this builder
     */
    public Builder levels(int value) {
      levels = value;
      return this;
    }

    /**
     * Sets the per-observation retention of a key's history.
     *
     * @param value in (0, 1]
     * @return this builder
     */
    public Builder keyDecay(double value) {
      keyDecay = value;
      return this;
    }

    /**
     * Sets how long a key may be idle and still be predicted.
     *
     * @param value zero turns staleness off; never negative
     * @return this builder
     */
    public Builder staleAfter(Duration value) {
      staleAfter = value;
      return this;
    }

    /**
     * Sets the successful observations a key needs before it is predicted.
     *
     * @param value at least 1
     * @return this builder
     */
    public Builder minObservations(int value) {
      minObservations = value;
      return this;
    }

    /**
     * Sets the largest ratio of a predicted key's 99th percentile to its median.
     *
     * @param value finite, at least 1
     * @return this builder
     */
    public Builder maxSpreadRatio(double value) {
      maxSpreadRatio = value;
      return this;
    }

    /**
     * Sets the most keys tracked at once.
     *
     * @param value at least 1; a {@link HistogramPredictor} needs at least {@value
     *     PredictorConfig#MIN_MAX_KEYS}
     * @return this builder
     */
    public Builder maxKeys(int value) {
      maxKeys = value;
      return this;
    }

    /**
     * Sets whether size hints extend keys with a size bin.
     *
     * @param value true to bin by size
     * @return this builder
     */
    public Builder sizeBins(boolean value) {
      sizeBins = value;
      return this;
    }

    /**
     * Sets whether the global safeguard may hold routing in FIFO order.
     *
     * @param value true to guard
     * @return this builder
     */
    public Builder safeguard(boolean value) {
      safeguard = value;
      return this;
    }

    /**
     * Sets the bound on the last level's estimated wait against FIFO's that places the boundary
     * above it.
     *
     * @param value 0 (equal quantiles) or in (1, 100]
     * @return this builder
     */
    public Builder tailBudget(double value) {
      tailBudget = value;
      return this;
    }

    /**
     * Sets whether a key without a cost of its own (cold, stale or censored) is routed at the last
     * level once the global safeguard has judged, rather than at the default level.
     *
     * @param value true for the last level, false for the default level (seed paper section 3.5)
     * @return this builder
     */
    public Builder untrustedLast(boolean value) {
      untrustedLast = value;
      return this;
    }

    /**
     * Sets the few-observation settings, for workloads whose job kinds recur a few times each (long
     * HPC logs): a key is predicted from its first observation ({@code minObservations} 1), without
     * the spread gate ({@code maxSpreadRatio} 1000), and under a tighter tail budget ({@code
     * tailBudget} 1.1). The per-key safeguard is left to catch the keys whose few observations
     * mislead, and the budget keeps the last level's wait bounded now that far more keys are placed
     * ahead of it. Opt-in: on the trace replays it reaches more of the oracle's gain on such logs
     * with every safety target met; on a workload whose keys recur within seconds the budget moves
     * its costliest frequent type to the last level, which cost 4 points of mean latency in a
     * virtual-time replay and 0 to 2 points on RabbitMQ.
     *
     * @return this builder
     */
    public Builder fewObservations() {
      return minObservations(1).maxSpreadRatio(1000).tailBudget(1.1);
    }

    /**
     * Builds and validates the configuration.
     *
     * @return the configuration
     * @throws IllegalArgumentException naming the first invalid setting
     */
    public PredictorConfig build() {
      return new PredictorConfig(
          levels,
          keyDecay,
          staleAfter,
          minObservations,
          maxSpreadRatio,
          maxKeys,
          sizeBins,
          safeguard,
          tailBudget,
          untrustedLast);
    }
  }
}
