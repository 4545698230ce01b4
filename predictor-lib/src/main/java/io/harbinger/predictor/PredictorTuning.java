package io.harbinger.predictor;

import java.time.Duration;

/**
 * The lab's research hooks into the predictor: every parameter that is not one of {@link
 * PredictorConfig}'s ten settings. It is not part of the product's configuration: the sidecar's
 * YAML, the Spring Boot properties and the adapter never set it, and a product predictor ({@link
 * HistogramPredictor#HistogramPredictor(PredictorConfig, Ticker, Mode)}) runs with {@link
 * #defaults()}, the fixed values documented below. The lab (the simulator, the replays, the
 * benchmarks) varies them through {@link HistogramPredictor#HistogramPredictor(PredictorConfig,
 * PredictorTuning, Ticker, Mode)} to measure what they do.
 *
 * <p>Build one with {@link #builder()}; the compact constructor checks every rule that involves
 * only these parameters, and {@link #check(PredictorConfig)} the rules that join them to a
 * configuration ({@code maxKeys} against {@code shards}, {@code promoteColdAfter} against {@code
 * minObservations}), which a predictor applies when it is built.
 *
 * @param pooledDecay per-observation retention of the pooled histogram whose quantiles are the
 *     level boundaries, in (0, 1]; 0.9999 (seed paper Table 1)
 * @param idleHalfLife wall-clock half-life of a key's history across idle gaps, applied when the
 *     key is next touched; zero disables it; never negative; off ({@link #DEFAULT_IDLE_HALF_LIFE},
 *     Table 1: 10 minutes)
 * @param maxCensoredShare largest decayed share of censored deliveries a predicted key may have, in
 *     [0, 1]; 0.05 (Table 1)
 * @param spreadQuantile the tail quantile the spread gate looks at, in (0.5, 1); 0.99 (seed paper
 *     section 3.5)
 * @param spreadFloor the median is raised to at least this before the spread ratio is taken, so
 *     that sub-floor jitter does not count as spread; never negative; 1 ms
 * @param estimateQuantile the quantile of a key's histogram used as its expected duration, in (0,
 *     1); 0.5, the median
 * @param boundaryMinObservations pooled observations before the first boundaries are published, at
 *     least 1; 100 (Table 1)
 * @param boundaryRefreshEvery boundaries are recomputed whenever the pooled count is a multiple of
 *     this, at least 1; 256 (Table 1)
 * @param boundaryHysteresis a boundary moves only when it shifts by more than this fraction, in [0,
 *     1); 0.10
 * @param tierHysteresis a key keeps its level while its estimate stays within this fraction of its
 *     level's own interval, in [0, 1); 0.10
 * @param shards number of lock shards the keys are spread over, in [1, 256], at most {@code
 *     maxKeys}; {@value PredictorConfig#MIN_MAX_KEYS}
 * @param coldEvictionGrace idle time after which an unproven key (fewer than minObservations) may
 *     be evicted; never negative; 30 s
 * @param idleEviction idle time after which a proven key may be evicted; never negative; 10 min
 * @param demoteUntrusted whether untrusted keys whose evidence shows them costlier than the default
 *     level go below it; on
 * @param keyGuard whether a key whose recent predictions are no better than a global median falls
 *     back as {@link Outcome#MISPREDICTED} (the per-key safeguard); on
 * @param mispredictionEnter a guarded key falls back when its recent mean |log2 error| is at least
 *     this fraction of a global median's (and at least one octave), in (0, 2]; 0.8
 * @param mispredictionExit it is trusted again below this fraction, in (0, mispredictionEnter); 0.6
 * @param mispredictionMemory observations the per-key error averages span (EWMA weight 1 / this),
 *     in [2, 100000]; 32
 * @param safeguardMargin the global safeguard holds FIFO order while the estimated gain is below
 *     this share of FIFO's mean wait, in [-1, 1); 0.02
 * @param safeguardHysteresis it releases at the margin plus this, in [0, 1); 0.03
 * @param safeguardLoad the per-worker load the gain (and the tail budget's share of the work) is
 *     estimated at, in [0.05, 0.99]; 0.8
 * @param safeguardMinReports decayed reports needed before the safeguard judges, at least 1 and
 *     below 1 / (1 - safeguardDecay); 200
 * @param safeguardDecay per-report retention of the safeguard's counts, in (0, 1); 0.998
 * @param borrowFromProducer whether a cold key borrows its producer's aggregate estimate, counted
 *     as {@link Outcome#BORROWED}; on
 * @param borrowFromSize whether a key still cold after that borrows the aggregate of every job in
 *     its size hint's bin (seed paper section 3.8's size bins, pooled over keys), counted as {@link
 *     Outcome#BORROWED}; it acts only on size hints (a predictor given none learns and lends
 *     nothing by size), and learns one aggregate per bin that holds any; on
 * @param relativeIdle when positive, idle decay and staleness stretch to this many of the key's own
 *     typical gaps between observations (the larger of its mean gap and its estimate), whenever
 *     that is longer than {@code idleHalfLife} and {@code staleAfter}; zero keeps the fixed limits;
 *     in [0, 1000]; off. It acts only while {@link PredictorConfig#staleAfter} is set, which it is
 *     not by default
 * @param shiftRun when positive, a key whose last this many successful observations all lie more
 *     than an octave from its estimate, on the same side, has changed regime: its history is
 *     replaced by those observations; zero lets decay alone follow a change (seed paper section
 *     3.4); in [0, 1000]; {@value #DEFAULT_SHIFT_RUN}
 * @param promoteColdAfter when positive, a cold key with at least this many successful
 *     observations, not stale, whose highest observation is shorter than the default level's
 *     interval is placed at the level of that highest observation; zero keeps every cold key at or
 *     below the default level; 0 or in [1, minObservations) (checked by {@link #check}); off
 * @param tailLimit the tail guard, with {@code safeguard} on: while Cobham's estimate of the mean
 *     wait of the latest-served level holding 1% of the jobs exceeds this many times FIFO's, keys
 *     below the default level are routed at it, until below 0.9 of the limit; 0 (off) or [1, 100]
 * @param tailSink the sink guard, with {@code safeguard} on: while Cobham's estimate of the last
 *     level's mean wait, untrusted keys at the default level included, exceeds this many times
 *     FIFO's, keys left at the default level without a prediction of their own are routed at the
 *     last, until below 0.9 of the limit; 0 (off) or [1, 100]
 */
public record PredictorTuning(
    double pooledDecay,
    Duration idleHalfLife,
    double maxCensoredShare,
    double spreadQuantile,
    Duration spreadFloor,
    double estimateQuantile,
    int boundaryMinObservations,
    int boundaryRefreshEvery,
    double boundaryHysteresis,
    double tierHysteresis,
    int shards,
    Duration coldEvictionGrace,
    Duration idleEviction,
    boolean demoteUntrusted,
    boolean keyGuard,
    double mispredictionEnter,
    double mispredictionExit,
    int mispredictionMemory,
    double safeguardMargin,
    double safeguardHysteresis,
    double safeguardLoad,
    int safeguardMinReports,
    double safeguardDecay,
    boolean borrowFromProducer,
    boolean borrowFromSize,
    double relativeIdle,
    int shiftRun,
    int promoteColdAfter,
    double tailLimit,
    double tailSink) {

  /**
   * The shift run: 8 one-sided observations, which a key with a slow share p shows by chance with
   * probability p^8 (under 1 in 10^5 for p = 0.25).
   */
  public static final int DEFAULT_SHIFT_RUN = 8;

  /**
   * The idle half-life: none. A key's history fades by its own observations ({@code keyDecay}) and
   * is replaced when it changes regime ({@code shiftRun}), not by the minutes it sits idle. Table
   * 1's 10 minutes suit keys that recur within minutes; keys that come back after hours or days
   * (the HPC logs of seed paper section 5.2) lost their history to it, and with it nearly all of
   * the gain, while turning it off changed nothing on the production flow (section 5.4, Table 11:
   * decay and idle forgetting, no effect shown).
   */
  public static final Duration DEFAULT_IDLE_HALF_LIFE = Duration.ZERO;

  /** Checks every rule that involves only these parameters; see the class description. */
  public PredictorTuning {
    PredictorConfig.checkDecay("pooledDecay", pooledDecay);
    PredictorConfig.checkNonNegative("idleHalfLife", idleHalfLife);
    if (!(maxCensoredShare >= 0 && maxCensoredShare <= 1)) {
      throw new IllegalArgumentException("maxCensoredShare must be in [0, 1]: " + maxCensoredShare);
    }
    if (!(spreadQuantile > 0.5 && spreadQuantile < 1)) {
      throw new IllegalArgumentException("spreadQuantile must be in (0.5, 1): " + spreadQuantile);
    }
    PredictorConfig.checkNonNegative("spreadFloor", spreadFloor);
    if (!(estimateQuantile > 0 && estimateQuantile < 1)) {
      throw new IllegalArgumentException("estimateQuantile must be in (0, 1): " + estimateQuantile);
    }
    PredictorConfig.checkRange(
        "boundaryMinObservations", boundaryMinObservations, 1, Integer.MAX_VALUE);
    PredictorConfig.checkRange("boundaryRefreshEvery", boundaryRefreshEvery, 1, Integer.MAX_VALUE);
    checkFraction("boundaryHysteresis", boundaryHysteresis);
    checkFraction("tierHysteresis", tierHysteresis);
    PredictorConfig.checkRange("shards", shards, 1, 256);
    PredictorConfig.checkNonNegative("coldEvictionGrace", coldEvictionGrace);
    PredictorConfig.checkNonNegative("idleEviction", idleEviction);
    if (!(mispredictionEnter > 0 && mispredictionEnter <= 2)) {
      throw new IllegalArgumentException(
          "mispredictionEnter must be in (0, 2]: " + mispredictionEnter);
    }
    if (!(mispredictionExit > 0 && mispredictionExit < mispredictionEnter)) {
      throw new IllegalArgumentException(
          "mispredictionExit must be in (0, mispredictionEnter = "
              + mispredictionEnter
              + "): "
              + mispredictionExit);
    }
    PredictorConfig.checkRange("mispredictionMemory", mispredictionMemory, 2, 100_000);
    if (!(safeguardMargin >= -1 && safeguardMargin < 1)) {
      throw new IllegalArgumentException("safeguardMargin must be in [-1, 1): " + safeguardMargin);
    }
    checkFraction("safeguardHysteresis", safeguardHysteresis);
    if (!(safeguardLoad >= 0.05 && safeguardLoad <= 0.99)) {
      throw new IllegalArgumentException("safeguardLoad must be in [0.05, 0.99]: " + safeguardLoad);
    }
    PredictorConfig.checkRange("safeguardMinReports", safeguardMinReports, 1, Integer.MAX_VALUE);
    if (!(safeguardDecay > 0 && safeguardDecay < 1)) {
      throw new IllegalArgumentException("safeguardDecay must be in (0, 1): " + safeguardDecay);
    }
    if (safeguardMinReports >= 1 / (1 - safeguardDecay)) {
      throw new IllegalArgumentException(
          "safeguardMinReports must be below the decayed weight the safeguard can reach, 1 / (1 -"
              + " safeguardDecay) = "
              + 1 / (1 - safeguardDecay)
              + ": "
              + safeguardMinReports);
    }
    if (!(relativeIdle >= 0 && relativeIdle <= 1000)) {
      throw new IllegalArgumentException("relativeIdle must be in [0, 1000]: " + relativeIdle);
    }
    PredictorConfig.checkRange("shiftRun", shiftRun, 0, 1000);
    if (!(tailLimit == 0 || (tailLimit >= 1 && tailLimit <= 100))) {
      throw new IllegalArgumentException("tailLimit must be 0 or in [1, 100]: " + tailLimit);
    }
    if (!(tailSink == 0 || (tailSink >= 1 && tailSink <= 100))) {
      throw new IllegalArgumentException("tailSink must be 0 or in [1, 100]: " + tailSink);
    }
  }

  /**
   * Checks the rules that join this tuning to a configuration: {@code maxKeys} at least {@code
   * shards}, and {@code promoteColdAfter} 0 or below {@code minObservations}. A {@link
   * HistogramPredictor} applies them when it is built.
   *
   * @param config the configuration the tuning is used with
   * @throws IllegalArgumentException naming the first rule broken, as {@code "maxKeys must be at
   *     least shards (16): 4"}
   */
  public void check(PredictorConfig config) {
    if (config.maxKeys() < shards) {
      throw new IllegalArgumentException(
          "maxKeys must be at least shards (" + shards + "): " + config.maxKeys());
    }
    if (promoteColdAfter != 0
        && (promoteColdAfter < 1 || promoteColdAfter >= config.minObservations())) {
      throw new IllegalArgumentException(
          "promoteColdAfter must be 0 or in [1, minObservations = "
              + config.minObservations()
              + "): "
              + promoteColdAfter);
    }
  }

  /**
   * Returns the values a product predictor runs with.
   *
   * @return the default tuning
   */
  public static PredictorTuning defaults() {
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
   * Returns a builder preset with this tuning's values.
   *
   * @return a new builder
   */
  public Builder toBuilder() {
    return new Builder(this);
  }

  private static void checkFraction(String name, double value) {
    if (!(value >= 0 && value < 1)) {
      throw new IllegalArgumentException(name + " must be in [0, 1): " + value);
    }
  }

  /** A mutable builder of {@link PredictorTuning}; not thread-safe. */
  public static final class Builder {
    private double pooledDecay = 0.9999;
    private Duration idleHalfLife = DEFAULT_IDLE_HALF_LIFE;
    private double maxCensoredShare = 0.05;
    private double spreadQuantile = 0.99;
    private Duration spreadFloor = Duration.ofMillis(1);
    private double estimateQuantile = 0.5;
    private int boundaryMinObservations = 100;
    private int boundaryRefreshEvery = 256;
    private double boundaryHysteresis = 0.10;
    private double tierHysteresis = 0.10;
    private int shards = PredictorConfig.MIN_MAX_KEYS;
    private Duration coldEvictionGrace = Duration.ofSeconds(30);
    private Duration idleEviction = Duration.ofMinutes(10);
    private boolean demoteUntrusted = true;
    private boolean keyGuard = true;
    private double mispredictionEnter = 0.8;
    private double mispredictionExit = 0.6;
    private int mispredictionMemory = 32;
    private double safeguardMargin = 0.02;
    private double safeguardHysteresis = 0.03;
    private double safeguardLoad = 0.8;
    private int safeguardMinReports = 200;
    private double safeguardDecay = 0.998;
    private boolean borrowFromProducer = true;
    private boolean borrowFromSize = true;
    private double relativeIdle;
    private int shiftRun = DEFAULT_SHIFT_RUN;
    private int promoteColdAfter;
    private double tailLimit;
    private double tailSink;

    private Builder() {}

    private Builder(PredictorTuning t) {
      pooledDecay = t.pooledDecay;
      idleHalfLife = t.idleHalfLife;
      maxCensoredShare = t.maxCensoredShare;
      spreadQuantile = t.spreadQuantile;
      spreadFloor = t.spreadFloor;
      estimateQuantile = t.estimateQuantile;
      boundaryMinObservations = t.boundaryMinObservations;
      boundaryRefreshEvery = t.boundaryRefreshEvery;
      boundaryHysteresis = t.boundaryHysteresis;
      tierHysteresis = t.tierHysteresis;
      shards = t.shards;
      coldEvictionGrace = t.coldEvictionGrace;
      idleEviction = t.idleEviction;
      demoteUntrusted = t.demoteUntrusted;
      keyGuard = t.keyGuard;
      mispredictionEnter = t.mispredictionEnter;
      mispredictionExit = t.mispredictionExit;
      mispredictionMemory = t.mispredictionMemory;
      safeguardMargin = t.safeguardMargin;
      safeguardHysteresis = t.safeguardHysteresis;
      safeguardLoad = t.safeguardLoad;
      safeguardMinReports = t.safeguardMinReports;
      safeguardDecay = t.safeguardDecay;
      borrowFromProducer = t.borrowFromProducer;
      borrowFromSize = t.borrowFromSize;
      relativeIdle = t.relativeIdle;
      shiftRun = t.shiftRun;
      promoteColdAfter = t.promoteColdAfter;
      tailLimit = t.tailLimit;
      tailSink = t.tailSink;
    }

    /**
     * Sets the pooled-histogram decay.
     *
     * @param value in (0, 1]
     * @return this builder
     */
    public Builder pooledDecay(double value) {
      pooledDecay = value;
      return this;
    }

    /**
     * Sets the wall-clock half-life of idle history.
     *
     * @param value zero disables; never negative
     * @return this builder
     */
    public Builder idleHalfLife(Duration value) {
      idleHalfLife = value;
      return this;
    }

    /**
     * Sets the largest censored share of a predicted key.
     *
     * @param value in [0, 1]
     * @return this builder
     */
    public Builder maxCensoredShare(double value) {
      maxCensoredShare = value;
      return this;
    }

    /**
     * Sets the tail quantile of the spread gate.
     *
     * @param value in (0.5, 1)
     * @return this builder
     */
    public Builder spreadQuantile(double value) {
      spreadQuantile = value;
      return this;
    }

    /**
     * Sets the floor applied to the median in the spread ratio.
     *
     * @param value never negative
     * @return this builder
     */
    public Builder spreadFloor(Duration value) {
      spreadFloor = value;
      return this;
    }

    /**
     * Sets the quantile used as a key's expected duration.
     *
     * @param value in (0, 1)
     * @return this builder
     */
    public Builder estimateQuantile(double value) {
      estimateQuantile = value;
      return this;
    }

    /**
     * Sets the pooled observations needed before the first boundaries.
     *
     * @param value at least 1
     * @return this builder
     */
    public Builder boundaryMinObservations(int value) {
      boundaryMinObservations = value;
      return this;
    }

    /**
     * Sets the boundary recomputation period in pooled observations.
     *
     * @param value at least 1
     * @return this builder
     */
    public Builder boundaryRefreshEvery(int value) {
      boundaryRefreshEvery = value;
      return this;
    }

    /**
     * Sets the boundary hysteresis.
     *
     * @param value in [0, 1)
     * @return this builder
     */
    public Builder boundaryHysteresis(double value) {
      boundaryHysteresis = value;
      return this;
    }

    /**
     * Sets the per-key level hysteresis.
     *
     * @param value in [0, 1)
     * @return this builder
     */
    public Builder tierHysteresis(double value) {
      tierHysteresis = value;
      return this;
    }

    /**
     * Sets the number of lock shards.
     *
     * @param value in [1, 256], at most the configuration's {@code maxKeys}
     * @return this builder
     */
    public Builder shards(int value) {
      shards = value;
      return this;
    }

    /**
     * Sets the idle grace of unproven keys before eviction.
     *
     * @param value never negative
     * @return this builder
     */
    public Builder coldEvictionGrace(Duration value) {
      coldEvictionGrace = value;
      return this;
    }

    /**
     * Sets the idle grace of proven keys before eviction.
     *
     * @param value never negative
     * @return this builder
     */
    public Builder idleEviction(Duration value) {
      idleEviction = value;
      return this;
    }

    /**
     * Sets whether untrusted keys whose evidence shows them costlier than the default level go
     * below it.
     *
     * @param value true to place them by that evidence, false for the default level
     * @return this builder
     */
    public Builder demoteUntrusted(boolean value) {
      demoteUntrusted = value;
      return this;
    }

    /**
     * Sets whether the per-key safeguard may distrust a key.
     *
     * @param value true to guard keys
     * @return this builder
     */
    public Builder keyGuard(boolean value) {
      keyGuard = value;
      return this;
    }

    /**
     * Sets the error fraction at which a guarded key falls back.
     *
     * @param value in (0, 2]
     * @return this builder
     */
    public Builder mispredictionEnter(double value) {
      mispredictionEnter = value;
      return this;
    }

    /**
     * Sets the error fraction below which a guarded key is trusted again.
     *
     * @param value in (0, mispredictionEnter)
     * @return this builder
     */
    public Builder mispredictionExit(double value) {
      mispredictionExit = value;
      return this;
    }

    /**
     * Sets the observations the per-key error averages span.
     *
     * @param value in [2, 100000]
     * @return this builder
     */
    public Builder mispredictionMemory(int value) {
      mispredictionMemory = value;
      return this;
    }

    /**
     * Sets the estimated gain below which the global safeguard holds FIFO order.
     *
     * @param value in [-1, 1)
     * @return this builder
     */
    public Builder safeguardMargin(double value) {
      safeguardMargin = value;
      return this;
    }

    /**
     * Sets how far above the margin the gain must rise to release.
     *
     * @param value in [0, 1)
     * @return this builder
     */
    public Builder safeguardHysteresis(double value) {
      safeguardHysteresis = value;
      return this;
    }

    /**
     * Sets the per-worker load the gain is estimated at.
     *
     * @param value in [0.05, 0.99]
     * @return this builder
     */
    public Builder safeguardLoad(double value) {
      safeguardLoad = value;
      return this;
    }

    /**
     * Sets the decayed reports needed before the safeguard judges.
     *
     * @param value at least 1, below 1 / (1 - safeguardDecay)
     * @return this builder
     */
    public Builder safeguardMinReports(int value) {
      safeguardMinReports = value;
      return this;
    }

    /**
     * Sets the per-report retention of the safeguard's counts.
     *
     * @param value in (0, 1)
     * @return this builder
     */
    public Builder safeguardDecay(double value) {
      safeguardDecay = value;
      return this;
    }

    /**
     * Sets whether cold keys borrow their producer's aggregate estimate.
     *
     * @param value true to borrow
     * @return this builder
     */
    public Builder borrowFromProducer(boolean value) {
      borrowFromProducer = value;
      return this;
    }

    /**
     * Sets whether keys still cold after their producer's aggregate borrow their size bin's.
     *
     * @param value true to borrow; false leaves them cold
     * @return this builder
     */
    public Builder borrowFromSize(boolean value) {
      borrowFromSize = value;
      return this;
    }

    /**
     * Sets idle decay and staleness relative to each key's own gaps; it acts only while the
     * configuration's {@code staleAfter} is set.
     *
     * @param value in [0, 1000]; zero keeps the fixed limits
     * @return this builder
     */
    public Builder relativeIdle(double value) {
      relativeIdle = value;
      return this;
    }

    /**
     * Sets the run of one-sided observations that shows a key changed regime.
     *
     * @param value in [0, 1000]; zero lets decay alone follow a change
     * @return this builder
     */
    public Builder shiftRun(int value) {
      shiftRun = value;
      return this;
    }

    /**
     * Sets the observations after which a cold key whose every observation is short goes above the
     * default level.
     *
     * @param value 0 (off) or in [1, minObservations)
     * @return this builder
     */
    public Builder promoteColdAfter(int value) {
      promoteColdAfter = value;
      return this;
    }

    /**
     * Sets the tail guard's limit on the last level's estimated wait against FIFO's.
     *
     * @param value 0 (off) or in [1, 100]
     * @return this builder
     */
    public Builder tailLimit(double value) {
      tailLimit = value;
      return this;
    }

    /**
     * Sets the sink guard's limit on the last level's estimated wait against FIFO's.
     *
     * @param value 0 (off) or in [1, 100]
     * @return this builder
     */
    public Builder tailSink(double value) {
      tailSink = value;
      return this;
    }

    /**
     * Builds and validates the tuning.
     *
     * @return the tuning
     * @throws IllegalArgumentException naming the first invalid parameter
     */
    public PredictorTuning build() {
      return new PredictorTuning(
          pooledDecay,
          idleHalfLife,
          maxCensoredShare,
          spreadQuantile,
          spreadFloor,
          estimateQuantile,
          boundaryMinObservations,
          boundaryRefreshEvery,
          boundaryHysteresis,
          tierHysteresis,
          shards,
          coldEvictionGrace,
          idleEviction,
          demoteUntrusted,
          keyGuard,
          mispredictionEnter,
          mispredictionExit,
          mispredictionMemory,
          safeguardMargin,
          safeguardHysteresis,
          safeguardLoad,
          safeguardMinReports,
          safeguardDecay,
          borrowFromProducer,
          borrowFromSize,
          relativeIdle,
          shiftRun,
          promoteColdAfter,
          tailLimit,
          tailSink);
    }
  }
}
