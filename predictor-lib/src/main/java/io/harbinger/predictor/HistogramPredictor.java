package io.harbinger.predictor;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.LongAdder;

/**
 * The predictor of seed paper sections 3.4 and 3.5: per-key decaying duration histograms, level
 * boundaries from the pooled histogram, and trust gates that send untrusted keys to the default
 * level.
 *
 * <p>Example, with the defaults (3 levels, 20 observations, spread 16 at the 99th percentile, tail
 * budget 1.25): after 300 pooled observations spread over keys of 3 ms, 40 ms and 2 s, the first
 * boundary lies between the first two keys and the top one inside the 2 s key's mass, since that
 * key carries 98% of the work; a key with 20 observations around 3 ms is {@link Outcome#PREDICTED}
 * at level 0 (AMQP priority 2); a key with 92% of its jobs at 3 ms and 8% at 3 s has a 99th
 * percentile a thousand times its median, so its median is not trusted ({@link Outcome#SPREAD}),
 * and its mean of about 240 ms places it at level 1, behind the short keys and ahead of the 2 s
 * jobs (with equal-quantile boundaries, {@code tailBudget} 0, at level 2); a key seen 5 times at
 * about 1 ms is {@link Outcome#COLD} at the default level 1, and one seen 5 times at about 5 s is
 * {@link Outcome#COLD} at level 2.
 *
 * <p>Implementation notes. The gates run in this order, each with its own counter (the original
 * implementation's order; seed paper section 3.5 gives the conditions): invalid key, unready (no
 * boundaries yet), cold (unknown, untracked, or fewer than {@code minObservations} successful
 * observations), stale (idle longer than {@code staleAfter}), censored share, spread, mispredicted.
 * A prediction of a key that is not yet stale counts as activity (the fix of seed paper section
 * 3.5), so keys whose jobs wait in a backlog stay predicted; a stale key is revived only by an
 * observation, which first discards its history. Wall-clock decay is applied when a key is observed
 * and at least one second has passed since its last decay. Keys live in {@code shards} shards of at
 * most ceil(maxKeys / shards) keys each; a new key at a full shard evicts the least recently active
 * key only if that key has been idle for its grace (section 1.8), and is otherwise not tracked. A
 * key's median and tail are cached between observations, so a prediction of a trusted key is one
 * map lookup and a few comparisons.
 *
 * <p>Per key ({@link KeyRules}, departures from seed paper sections 3.4, 3.5 and 3.9): an untrusted
 * key is placed below the default level when its evidence already puts it there; a key that keeps
 * mispredicting is distrusted; a key whose cost shifted is re-based on its last observations.
 *
 * <p>Unmeasured keys last (on by default, {@code untrustedLast}; a further departure from section
 * 3.5): once the global safeguard has estimated the levels' gain, {@link #predict} in predictive
 * mode routes a key whose own observations give no cost to place it by ({@link
 * Outcome#isUnmeasured}: cold, stale or censored) that the placement above leaves at the default
 * level at the last level instead; the prediction keeps the default level as its predicted level,
 * so the safeguard and the drift signals judge the paper's placement, and {@link
 * #routesUntrustedLast()} tells a route table to do the same. Where most jobs are cold, as on long
 * HPC logs, the default level holds most of the work, and the jobs known to be long wait behind all
 * of it, far longer than FIFO would make them (the all-message P99 of the trace replays reached 1.4
 * to 2.3 times FIFO's); at the last level the work nobody has measured queues with them in arrival
 * order, and only keys with a cost (their own estimate, a borrowed one, a cold key's promotion, or
 * the mean of a spread or mispredicted key) go ahead of it. A spread or mispredicted key keeps the
 * level its mean gives it, at most the default: its mean is a cost, and sending it last when the
 * mean says otherwise makes it wait behind every long job (a job type whose cost shifted,
 * distrusted until its error falls back, lost most of Harbinger's gain for its messages that way on
 * RabbitMQ). It stays on while the safeguard holds FIFO order (the others then take the default
 * level): taking unmeasured keys back to the default level would put them ahead of the work already
 * queued at the last level, which the replays showed to lift the P99 to 2 to 4 times FIFO's on
 * CTC-SP2. Where nearly every key is measured, as in the production flow, it changes nothing.
 * Before the first estimate, and with the safeguard off, unmeasured keys keep the default level.
 * Unlike the sink guard below, it does not switch with an estimate.
 *
 * <p>Global safeguard (a departure from seed paper section 3.9, where drift is only signalled):
 * every observation first adds its duration to the level the current assignment gives its key
 * ({@link GainSafeguard}, once boundaries exist); while the estimated gain ({@link PriorityGain})
 * is below the margin, {@link #predict} in predictive mode returns the default level (FIFO order)
 * with the key's own verdict and predicted level, and counts it; {@link #peek} does not apply it,
 * so a route table applies {@link #holdsFifoOrder()} itself. Neither this safeguard's state nor the
 * per-key one's ({@link KeyRules}) is in snapshots: a restored predictor starts trusting and
 * re-learns within their memories. With {@code tailSink} (opt-in; a further departure from section
 * 3.5, where an untrusted key always takes the default level), the sink guard routes the keys left
 * at the default level for want of a prediction at the last level while Cobham's estimate of the
 * last level's wait under the assignment exceeds the limit: on logs where most jobs are cold, their
 * work at the default level is what the last level waits behind. Only {@link #predict} applies it,
 * not a route table.
 *
 * <p>Reach. A key whose own verdict is cold borrows its producer's aggregate ({@link
 * Keys#producerAggregate}, learned from every job type of the producer, kept in shards of its own
 * that are neither listed, counted nor saved) when that is trusted, as {@link Outcome#BORROWED};
 * the next parent, the pooled distribution, would only give the default level. With {@code
 * borrowFromSize} (on by default; it acts only where size hints are given), a key still cold, with
 * a size hint, borrows instead the aggregate of every job whose hint fell in the same size bin
 * ({@link Keys#sizeAggregate}, kept with the producers' aggregates): the pooled distribution
 * narrowed by size, where seed paper section 3.8 narrows a key by size. It serves logs where most
 * jobs belong to kinds never seen finishing but carry a hint of their size, as a batch system's
 * requested run time. Like any key, the aggregate is trusted only through the gates (its spread
 * above all), and the global safeguard counts the borrowed jobs' actual durations at the level they
 * were given. {@link #peek} has no size hint and never borrows by size; {@link #peekSize} gives a
 * route table each size bin's loan. With {@code relativeIdle}, a key's idle half-life and staleness
 * limit stretch by max(1, relativeIdle x the larger of its mean gap between observations (EWMA,
 * weight 0.1) and its estimate / staleAfter), departing from the fixed serverless time scales of
 * seed paper Table 1.
 *
 * <p>Boundaries and producers: the boundaries come from the pooled histogram with a tail budget and
 * each producer's weight capped ({@link PooledHistogram}, {@link ProducerWeights}, departures from
 * seed paper section 3.4).
 *
 * <p>Assumptions and guarantees: thread-safe. Every method holds at most one lock at a time (one
 * key shard, or the pooled histogram, or the drift monitor, or the global safeguard), except that
 * {@link #observe} records with the safeguard while holding the pooled lock (always in that order),
 * and never performs I/O while holding one; {@link #save} performs file I/O after copying state
 * shard by shard, so a snapshot is consistent per key but not across keys. Observations are never
 * lost to concurrency: each is applied under its key's shard lock and the pooled lock.
 */
public final class HistogramPredictor implements Predictor {

  /** Durations above this are rejected as absurd rather than stored (one day). */
  static final double MAX_ACCEPTED_NANOS = Duration.ofDays(1).toNanos();

  private static final long ONE_SECOND = 1_000_000_000L;

  /** EWMA weight of a key's gap between observations, for {@code relativeIdle}. */
  private static final double GAP_WEIGHT = 0.1;

  private final PredictorConfig config;
  private final PredictorTuning tuning;
  private final Ticker ticker;
  private final KeyShard[] shards;
  private final KeyShard[] aggregates;
  private final PooledHistogram pooled;
  private final DriftMonitor drift = new DriftMonitor();
  private final KeyRules rules;
  private final GainSafeguard safeguard;
  private final double inverseKeyDecay;
  private final long idleHalfLifeNanos;
  private final long coldGraceNanos;
  private final long idleEvictionNanos;
  private final int defaultLevel;
  private volatile Mode mode;

  private final LongAdder[] predictions = new LongAdder[Outcome.values().length];
  private final LongAdder parentFallbacks = new LongAdder();
  private final LongAdder accepted = new LongAdder();
  private final LongAdder censored = new LongAdder();
  private final LongAdder rejectedKeys = new LongAdder();
  private final LongAdder rejectedDurations = new LongAdder();
  private final LongAdder untracked = new LongAdder();
  private final LongAdder saturated = new LongAdder();
  private final LongAdder evictions = new LongAdder();
  private final LongAdder rebases = new LongAdder();
  private final LongAdder safeguardHeld = new LongAdder();
  private final LongAdder tailLifted = new LongAdder();
  private final LongAdder tailSunk = new LongAdder();

  /**
   * Creates a cold predictor with the product's fixed tuning ({@link PredictorTuning#defaults()}).
   *
   * @param config the settings
   * @param ticker the source of time
   * @param mode the initial mode
   * @throws IllegalArgumentException when {@code config.maxKeys()} is below {@value
   *     PredictorConfig#MIN_MAX_KEYS}, the number of lock shards
   */
  public HistogramPredictor(PredictorConfig config, Ticker ticker, Mode mode) {
    this(config, PredictorTuning.defaults(), ticker, mode);
  }

  /**
   * Creates a cold predictor with the lab's tuning of the parameters that are not settings of the
   * product; {@link PredictorTuning} says what each does.
   *
   * @param config the settings
   * @param tuning the lab's research hooks
   * @param ticker the source of time
   * @param mode the initial mode
   * @throws IllegalArgumentException when a rule joining {@code config} and {@code tuning} is
   *     broken ({@link PredictorTuning#check})
   */
  public HistogramPredictor(
      PredictorConfig config, PredictorTuning tuning, Ticker ticker, Mode mode) {
    this.config = Objects.requireNonNull(config, "config");
    this.tuning = Objects.requireNonNull(tuning, "tuning");
    this.ticker = Objects.requireNonNull(ticker, "ticker");
    this.mode = Objects.requireNonNull(mode, "mode");
    tuning.check(config);
    int perShard = (config.maxKeys() + tuning.shards() - 1) / tuning.shards();
    shards = new KeyShard[tuning.shards()];
    for (int i = 0; i < shards.length; i++) {
      shards[i] = new KeyShard(perShard);
    }
    aggregates =
        new KeyShard[tuning.borrowFromProducer() || tuning.borrowFromSize() ? tuning.shards() : 0];
    for (int i = 0; i < aggregates.length; i++) {
      aggregates[i] = new KeyShard(perShard);
    }
    safeguard = new GainSafeguard(config, tuning);
    pooled = new PooledHistogram(config, tuning, safeguard);
    inverseKeyDecay = 1 / config.keyDecay();
    idleHalfLifeNanos = tuning.idleHalfLife().toNanos();
    coldGraceNanos = tuning.coldEvictionGrace().toNanos();
    idleEvictionNanos = tuning.idleEviction().toNanos();
    defaultLevel = config.defaultLevel();
    rules = new KeyRules(config, tuning);
    for (int i = 0; i < predictions.length; i++) {
      predictions[i] = new LongAdder();
    }
  }

  /**
   * Creates a cold predictor in predictive mode on the system ticker.
   *
   * @param config the parameters
   */
  public HistogramPredictor(PredictorConfig config) {
    this(config, Ticker.SYSTEM, Mode.PREDICTIVE);
  }

  @Override
  public Prediction predict(String key) {
    return predict(key, -1);
  }

  @Override
  public Prediction predict(String key, long sizeHint) {
    Mode m = mode;
    Prediction p;
    if (m == Mode.OFF) {
      p = Prediction.fallback(defaultLevel, Outcome.OFF, m);
    } else {
      p = evaluate(key, sizeHint, m, true);
      if (m == Mode.PREDICTIVE && p.level() != defaultLevel && safeguard.holding()) {
        safeguardHeld.increment();
        p = new Prediction(defaultLevel, p.predictedLevel(), p.outcome(), p.estimateNanos(), m);
      } else if (m == Mode.PREDICTIVE && p.level() > defaultLevel && safeguard.lifting()) {
        tailLifted.increment();
        p = new Prediction(defaultLevel, p.predictedLevel(), p.outcome(), p.estimateNanos(), m);
      } else if (m == Mode.PREDICTIVE
          && p.level() == defaultLevel
          && ((safeguard.sinking() && p.outcome().isUntrusted())
              || (routesUntrustedLast() && p.outcome().isUnmeasured()))) {
        tailSunk.increment();
        p =
            new Prediction(
                config.levels() - 1, p.predictedLevel(), p.outcome(), p.estimateNanos(), m);
      }
    }
    predictions[p.outcome().ordinal()].increment();
    return p;
  }

  @Override
  public Prediction peek(String key) {
    return evaluate(key, -1, mode == Mode.OFF ? Mode.PREDICTIVE : mode, false);
  }

  @Override
  public Prediction peekSize(long sizeHint) {
    Mode m = mode == Mode.OFF ? Mode.PREDICTIVE : mode;
    Boundaries b = pooled.boundaries();
    if (b == null) {
      return Prediction.fallback(defaultLevel, Outcome.UNREADY, m);
    }
    Prediction p =
        tuning.borrowFromSize() && sizeHint >= 0
            ? borrowed(Keys.sizeAggregate(sizeHint), b, m, ticker.nanos())
            : null;
    return p == null ? Prediction.fallback(defaultLevel, Outcome.COLD, m) : p;
  }

  @Override
  public ObserveResult observe(String key, double durationNanos) {
    return observe(key, -1, durationNanos);
  }

  @Override
  public ObserveResult observe(String key, long sizeHint, double durationNanos) {
    if (!Keys.isValid(key)) {
      rejectedKeys.increment();
      return ObserveResult.REJECTED_KEY;
    }
    if (!(durationNanos >= 0 && durationNanos <= MAX_ACCEPTED_NANOS)) {
      rejectedDurations.increment();
      return ObserveResult.REJECTED_DURATION;
    }
    long now = ticker.nanos();
    Prediction assigned = evaluate(key, sizeHint, Mode.PREDICTIVE, false);
    boolean tracked = learn(key, durationNanos, now, false, true);
    String binned = binnedKey(key, sizeHint);
    if (binned != null) {
      tracked &= learn(binned, durationNanos, now, false, true);
    }
    String aggregate = tuning.borrowFromProducer() ? Keys.producerAggregate(key) : null;
    if (aggregate != null) {
      // A mixture of job types: a run of one type there is no change of regime.
      learn(aggregate, durationNanos, now, false, false);
    }
    if (tuning.borrowFromSize() && sizeHint >= 0) {
      learn(Keys.sizeAggregate(sizeHint), durationNanos, now, false, false);
    }
    pooled.add(
        key, durationNanos, assigned.outcome() == Outcome.UNREADY ? -1 : assigned.predictedLevel());
    accepted.increment();
    if (durationNanos > HistogramLayout.MAX_NANOS) {
      saturated.increment();
    }
    return tracked ? ObserveResult.ACCEPTED : ObserveResult.UNTRACKED;
  }

  @Override
  public ObserveResult observeCensored(String key, long sizeHint) {
    if (!Keys.isValid(key)) {
      rejectedKeys.increment();
      return ObserveResult.REJECTED_KEY;
    }
    long now = ticker.nanos();
    boolean tracked = learn(key, 0, now, true, false);
    String binned = binnedKey(key, sizeHint);
    if (binned != null) {
      tracked &= learn(binned, 0, now, true, false);
    }
    String aggregate = tuning.borrowFromProducer() ? Keys.producerAggregate(key) : null;
    if (aggregate != null) {
      learn(aggregate, 0, now, true, false);
    }
    if (tuning.borrowFromSize() && sizeHint >= 0) {
      learn(Keys.sizeAggregate(sizeHint), 0, now, true, false);
    }
    censored.increment();
    return tracked ? ObserveResult.ACCEPTED : ObserveResult.UNTRACKED;
  }

  @Override
  public void score(int predictedLevel, double estimateNanos, double actualNanos) {
    Boundaries b = pooled.boundaries();
    if (b == null
        || predictedLevel < 0
        || predictedLevel >= config.levels()
        || !(actualNanos >= 0)
        || Double.isInfinite(actualNanos)) {
      return;
    }
    drift.score(predictedLevel, estimateNanos, actualNanos, b);
  }

  @Override
  public int levels() {
    return config.levels();
  }

  @Override
  public int defaultLevel() {
    return defaultLevel;
  }

  @Override
  public Mode mode() {
    return mode;
  }

  @Override
  public void setMode(Mode mode) {
    this.mode = Objects.requireNonNull(mode, "mode");
  }

  @Override
  public Optional<Boundaries> boundaries() {
    return Optional.ofNullable(pooled.boundaries());
  }

  @Override
  public Optional<KeyStats> keyStats(String key) {
    if (!Keys.isValid(key)) {
      return Optional.empty();
    }
    KeyShard shard = shardOf(key);
    long now = ticker.nanos();
    synchronized (shard) {
      KeyState s = shard.get(key);
      return s == null ? Optional.empty() : Optional.of(statsOf(s, now));
    }
  }

  @Override
  public List<KeyStats> keyStats() {
    long now = ticker.nanos();
    List<KeyStats> all = new ArrayList<>();
    for (KeyShard shard : shards) {
      synchronized (shard) {
        for (KeyState s = shard.oldest; s != null; s = s.newer) {
          all.add(statsOf(s, now));
        }
      }
    }
    return all;
  }

  @Override
  public PredictorStats stats() {
    Map<Outcome, Long> byOutcome = new EnumMap<>(Outcome.class);
    for (Outcome o : Outcome.values()) {
      byOutcome.put(o, predictions[o.ordinal()].sum());
    }
    int keys = 0;
    for (KeyShard shard : shards) {
      synchronized (shard) {
        keys += shard.size();
      }
    }
    return new PredictorStats(
        mode,
        byOutcome,
        parentFallbacks.sum(),
        accepted.sum(),
        censored.sum(),
        rejectedKeys.sum(),
        rejectedDurations.sum(),
        untracked.sum(),
        saturated.sum(),
        evictions.sum(),
        rebases.sum(),
        safeguardHeld.sum(),
        tailLifted.sum(),
        tailSunk.sum(),
        keys,
        pooled.observations(),
        pooled.publications(),
        pooled.degenerateRefreshes(),
        drift.signals(),
        safeguard.status());
  }

  @Override
  public boolean holdsFifoOrder() {
    return safeguard.holding();
  }

  @Override
  public boolean liftsBelowDefault() {
    return safeguard.lifting();
  }

  @Override
  public boolean routesUntrustedLast() {
    return config.untrustedLast() && safeguard.judged();
  }

  /**
   * Returns the global safeguard's decision and its inputs.
   *
   * @return the status now
   */
  public SafeguardStatus safeguard() {
    return safeguard.status();
  }

  @Override
  public PredictorConfig config() {
    return config;
  }

  /**
   * Writes a snapshot of the learned state atomically, keeping the previous file as {@code
   * FILE.prev}.
   *
   * @param file the snapshot file
   * @param context an application string that a restoring process must match (for example the key
   *     policy); at most 1,024 characters
   * @throws IOException if the file cannot be written; the previous snapshot is then left in place
   */
  public void save(Path file, String context) throws IOException {
    SnapshotCodec.write(this, file, context);
  }

  /**
   * Creates a predictor from a snapshot, validating the whole file before using any of it.
   *
   * @param file the snapshot file
   * @param context the application string the snapshot must have been saved with
   * @param config the parameters; the snapshot must match its levels, histogram layout and size-bin
   *     setting
   * @param ticker the source of time; key idle times are restored relative to it
   * @param mode the initial mode
   * @return the restored predictor
   * @throws SnapshotException naming why the file was refused; the caller then starts cold
   */
  public static HistogramPredictor restore(
      Path file, String context, PredictorConfig config, Ticker ticker, Mode mode)
      throws SnapshotException {
    return SnapshotCodec.read(file, context, config, ticker, mode);
  }

  /**
   * Restores a predictor from a snapshot, or from its rollback copy {@code FILE.prev} when the
   * snapshot itself is refused; a refused snapshot is moved to {@code FILE.refused} first, so that
   * the next {@link #save} does not make it the rollback copy in place of the good one.
   *
   * <p>Example: {@code a.snap} is truncated and {@code a.snap.prev} is the save before it. {@code
   * recover} renames {@code a.snap} to {@code a.snap.refused} and returns the state of {@code
   * a.snap.prev} with {@link SnapshotRecovery#rolledBack()} true; the next save writes {@code
   * a.snap} and leaves {@code a.snap.prev} as it was; the save after that rotates as usual.
   *
   * @param file the snapshot file
   * @param context the application string the snapshot must have been saved with
   * @param config the parameters (see {@link #restore})
   * @param ticker the source of time
   * @param mode the initial mode
   * @return the restored predictor and where it came from
   * @throws SnapshotException for the snapshot file when neither file could be restored (the
   *     rollback copy's refusal is attached as suppressed); {@link SnapshotException.Reason#ABSENT}
   *     when neither exists
   */
  public static SnapshotRecovery recover(
      Path file, String context, PredictorConfig config, Ticker ticker, Mode mode)
      throws SnapshotException {
    return SnapshotCodec.recover(file, context, config, ticker, mode);
  }

  // Package-private access for the snapshot codec.

  Ticker ticker() {
    return ticker;
  }

  KeyShard[] shards() {
    return shards;
  }

  PooledHistogram pooled() {
    return pooled;
  }

  /** Inserts a restored key; only while the predictor is not yet shared. */
  boolean restoreKey(KeyState state) {
    KeyShard shard = shardOf(state.key);
    synchronized (shard) {
      if (shard.size() >= shard.capacity || shard.get(state.key) != null) {
        return false;
      }
      shard.add(state);
      return true;
    }
  }

  private Prediction evaluate(String key, long sizeHint, Mode m, boolean touch) {
    if (!Keys.isValid(key)) {
      return Prediction.fallback(defaultLevel, Outcome.INVALID_KEY, m);
    }
    Boundaries b = pooled.boundaries();
    if (b == null) {
      return Prediction.fallback(defaultLevel, Outcome.UNREADY, m);
    }
    long now = ticker.nanos();
    String binned = binnedKey(key, sizeHint);
    Prediction own;
    if (binned != null) {
      own = judge(binned, b, m, now, touch);
      if (own.outcome() != Outcome.COLD) {
        return own;
      }
      Prediction parent = judge(key, b, m, now, touch);
      if (parent.isPredicted()) {
        if (touch) {
          parentFallbacks.increment();
        }
        return parent;
      }
    } else {
      own = judge(key, b, m, now, touch);
    }
    if (own.outcome() != Outcome.COLD) {
      return own;
    }
    String producer = tuning.borrowFromProducer() ? Keys.producerAggregate(key) : null;
    Prediction borrowed = producer == null ? null : borrowed(producer, b, m, now);
    if (borrowed == null && tuning.borrowFromSize() && sizeHint >= 0) {
      borrowed = borrowed(Keys.sizeAggregate(sizeHint), b, m, now);
    }
    return borrowed == null ? own : borrowed;
  }

  /** Returns an aggregate's estimate as a borrowed prediction, or null when it is not trusted. */
  private Prediction borrowed(String aggregate, Boundaries b, Mode m, long now) {
    Prediction parent = judge(aggregate, b, m, now, false);
    return parent.isPredicted()
        ? new Prediction(
            parent.level(), parent.predictedLevel(), Outcome.BORROWED, parent.estimateNanos(), m)
        : null;
  }

  private Prediction judge(String key, Boundaries b, Mode m, long now, boolean touch) {
    KeyShard shard = shardOf(key);
    synchronized (shard) {
      KeyState s = shard.get(key);
      if (s == null || s.observations == 0) {
        return Prediction.fallback(defaultLevel, Outcome.COLD, m);
      }
      return rules.decide(s, b, m, now, touch);
    }
  }

  /**
   * Applies one observation to one key; returns false when the key found no room. With {@code
   * judgeShift}, a successful observation may complete the key's shift run.
   */
  private boolean learn(
      String key, double nanos, long now, boolean isCensored, boolean judgeShift) {
    KeyShard shard = shardOf(key);
    boolean shifted = false;
    synchronized (shard) {
      KeyState s = shard.get(key);
      if (s == null) {
        s = admit(shard, key, now);
        if (s == null) {
          untracked.increment();
          return false;
        }
      } else if (rules.isStale(s, now)) {
        s.histogram.clear();
        s.heldLevel = -1;
        s.lastDecayNanos = now;
        s.resetGuard();
        s.endRun();
      } else {
        if (!isCensored && tuning.keyGuard()) {
          rules.scoreGuard(s, nanos, pooled.median());
        }
        shifted = judgeShift && tuning.shiftRun() > 0 && rules.completesShiftRun(s, nanos);
        if (idleHalfLifeNanos > 0 && now - s.lastDecayNanos >= ONE_SECOND) {
          double halfLife = idleHalfLifeNanos * rules.stretch(s);
          s.histogram.decayBy(Math.pow(0.5, (double) (now - s.lastDecayNanos) / halfLife));
          s.lastDecayNanos = now;
        }
      }
      if (s.lastObservedNanos != Long.MIN_VALUE) {
        double gap = Math.max(0, now - s.lastObservedNanos);
        s.meanGapNanos =
            Double.isNaN(s.meanGapNanos)
                ? gap
                : s.meanGapNanos + GAP_WEIGHT * (gap - s.meanGapNanos);
      }
      s.lastObservedNanos = now;
      if (isCensored) {
        s.histogram.addCensored(inverseKeyDecay);
      } else if (shifted) {
        s.rebaseOnRun(inverseKeyDecay);
        rebases.increment();
      } else {
        s.histogram.add(nanos, inverseKeyDecay);
      }
      s.changed();
      s.lastActivityNanos = now;
      shard.markActive(s);
      return true;
    }
  }

  private KeyState admit(KeyShard shard, String key, long now) {
    if (shard.size() >= shard.capacity) {
      KeyState oldest = shard.oldestByActivity();
      long grace =
          oldest.observations < config.minObservations() ? coldGraceNanos : idleEvictionNanos;
      if (now - oldest.lastActivityNanos < grace) {
        return null;
      }
      shard.remove(oldest);
      evictions.increment();
    }
    KeyState s = new KeyState(key, now);
    shard.add(s);
    return s;
  }

  private String binnedKey(String key, long sizeHint) {
    return config.sizeBins() && sizeHint >= 0 ? Keys.withSizeBin(key, sizeHint) : null;
  }

  KeyShard shardOf(String key) {
    // The shard takes the high bits of the hash; the shard's own table takes the low bits.
    KeyShard[] in = aggregates.length > 0 && Keys.isAggregate(key) ? aggregates : shards;
    return in[(int) (((KeyShard.hash(key) >>> 8) & 0xffffffL) % in.length)];
  }

  private KeyStats statsOf(KeyState s, long now) {
    double median = s.histogram.quantile(0.5);
    double tail = s.histogram.quantile(tuning.spreadQuantile());
    Boundaries b = pooled.boundaries();
    Prediction verdict =
        b == null
            ? Prediction.fallback(defaultLevel, Outcome.UNREADY, Mode.PREDICTIVE)
            : rules.decide(s, b, Mode.PREDICTIVE, now, false);
    return new KeyStats(
        s.key,
        s.observations,
        median,
        tail,
        s.histogram.mean(),
        s.histogram.censoredShare(),
        verdict.predictedLevel(),
        verdict.outcome(),
        s.lastOutcome,
        Duration.ofNanos(Math.max(0, now - s.lastActivityNanos)));
  }
}
