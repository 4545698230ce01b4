package io.harbinger.predictor;

/**
 * The rules a {@link HistogramPredictor} applies to one key: the trust gates and the level they
 * give (seed paper section 3.5), staleness and its stretch to the key's own time scale, the per-key
 * safeguard's scoring and the shift run (seed paper section 3.4).
 *
 * <p>Departure from seed paper section 3.5 (untrusted keys): the paper sends every key that fails a
 * gate to the default (middle) level. That protects against trusting a misleading median, but it
 * also promotes untrusted keys that are known to be expensive: a webhook whose rare slow calls
 * succeed has a tail 35 times its median and went to the middle level, ahead of cheaper work, and a
 * rare expensive job type stays cold (and in the middle) for its first twenty observations.
 * Shortest-expected-first ranks by expected cost, so with {@code demoteUntrusted} (the default) an
 * untrusted key goes below the default level when its evidence already places it there: a spread
 * key by its mean (the expected cost, which a slow tail raises, where the median hides it), a cold
 * key with at least {@value #COLD_DEMOTION_OBSERVATIONS} observations by its lowest one (so that
 * one cheap duration is enough doubt to keep it at the default). An untrusted key is never placed
 * above the default level, so the paper's bimodal key can only move away from the fast levels, and
 * a censored, stale or unknown key keeps the default level. The trust verdict is unchanged and
 * still counted as the fallback reason.
 *
 * <p>Few observations (opt-in, {@code promoteColdAfter} n; a further departure from section 3.5,
 * where a key with fewer than {@code minObservations} observations always takes the default level):
 * a cold key with at least n observations, not stale, is placed at the level of its highest
 * observation when that is shorter than the default level's interval. It is the mirror of the
 * demotion by the lowest observation, and as cautious: one slow observation is enough to keep the
 * key at the default level, so the paper's bimodal key (8% slow jobs) is promoted only while none
 * of its first observations was slow (0.92^n), and never once it is proven, when the spread gate
 * judges it. It serves logs whose job kinds recur a few times each (HPC executables recur about six
 * times). The verdict stays {@link Outcome#COLD}, and the global safeguard counts the promoted
 * key's actual durations at the level it was given.
 *
 * <p>Per-key safeguard (a departure from seed paper section 3.9, where drift is only signalled):
 * every observation of a key that has at least {@code minObservations} successful observations is
 * scored, before it is learned, by |log2(actual / estimate)| and by |log2(actual / pooled median)|;
 * both decay as EWMAs over about {@code mispredictionMemory} observations. After {@value
 * KeyState#GUARD_MIN_SCORED} scores, a key whose error is at least one octave and at least {@code
 * mispredictionEnter} times the global median's is distrusted ({@link Outcome#MISPREDICTED}, after
 * the spread gate) and placed by its mean like a spread key; it is trusted again when its error
 * falls below {@code mispredictionExit} times the global median's or below exit / enter octaves.
 *
 * <p>Change of regime (a departure from seed paper section 3.4, where decay alone follows a change;
 * on by default, n = 8). With {@code shiftRun} n, a proven key whose last n successful observations
 * all lie more than {@value #SHIFT_OCTAVES} octave from its estimate on the same side has its
 * history replaced by those n observations, and its held level and per-key safeguard scores are
 * forgotten. Decay alone moves a key's median after about one half-life, but a key that turned ten
 * times cheaper keeps its old tail far longer, fails the spread gate, and stays placed by a mean
 * that the old regime still dominates for three to four half-lives. A run tells a change from the
 * paper's bimodal key (section 3.5): a key with 8% slow jobs shows n slow ones in a row with
 * probability 0.08^n, while a changed key shows nothing else.
 *
 * <p>Assumptions and guarantees: a key's state is read and changed only under its shard's lock,
 * which every caller holds; this class keeps no state of its own beyond the parameters.
 */
final class KeyRules {

  private static final double LN2 = Math.log(2);

  /** Observations a cold key needs before its lowest duration may place it below the default. */
  static final int COLD_DEMOTION_OBSERVATIONS = 3;

  /** How far, in octaves, an observation lies from its key's estimate to extend a shift run. */
  static final double SHIFT_OCTAVES = 1;

  private final PredictorConfig config;
  private final PredictorTuning tuning;
  private final int defaultLevel;
  private final long staleAfterNanos;
  private final double spreadFloorNanos;

  KeyRules(PredictorConfig config, PredictorTuning tuning) {
    this.config = config;
    this.tuning = tuning;
    defaultLevel = config.defaultLevel();
    staleAfterNanos = config.staleAfter().toNanos();
    spreadFloorNanos = tuning.spreadFloor().toNanos();
  }

  /**
   * Applies the gates to a key whose shard lock the caller holds. With touch, a key that is not
   * stale is marked active and keeps the level it is given; without, nothing changes.
   */
  Prediction decide(KeyState s, Boundaries b, Mode m, long now, boolean touch) {
    Outcome verdict;
    int level = defaultLevel;
    double estimate = Double.NaN;
    boolean stale = isStale(s, now);
    if (touch && !stale) {
      // Only stamped here: the recency list is brought up to date lazily, at eviction time.
      s.lastActivityNanos = now;
      s.predictedSinceListed = true;
    }
    double eq = tuning.estimateQuantile();
    double tq = tuning.spreadQuantile();
    if (s.observations < config.minObservations() || !s.hasWeight(eq, tq)) {
      verdict = Outcome.COLD;
    } else if (stale) {
      verdict = Outcome.STALE;
    } else if (s.censoredShare(eq, tq) > tuning.maxCensoredShare()) {
      verdict = Outcome.CENSORED;
    } else {
      estimate = s.estimate(eq, tq);
      double tail = s.tail(eq, tq);
      if (!(estimate >= 0)
          || Double.isInfinite(estimate)
          || tail > config.maxSpreadRatio() * Math.max(estimate, spreadFloorNanos)) {
        verdict = Outcome.SPREAD;
      } else if (tuning.keyGuard() && s.distrusted) {
        verdict = Outcome.MISPREDICTED;
      } else {
        verdict = Outcome.PREDICTED;
        level = b.levelOf(estimate, s.heldLevel, tuning.tierHysteresis());
        if (touch) {
          s.heldLevel = level;
        }
      }
    }
    if (touch) {
      s.lastOutcome = verdict;
    }
    if (verdict != Outcome.PREDICTED) {
      double cost = tuning.demoteUntrusted() ? untrustedCost(s, verdict, eq, tq) : Double.NaN;
      int demoted = Double.isNaN(cost) ? defaultLevel : b.levelOf(cost);
      if (demoted > defaultLevel) {
        return new Prediction(
            m == Mode.PREDICTIVE ? demoted : defaultLevel, demoted, verdict, cost, m);
      }
      if (verdict == Outcome.COLD && !stale && promotesCold(s, eq, tq)) {
        double highest = s.highest(eq, tq);
        int promoted = b.levelOf(highest);
        if (promoted < defaultLevel) {
          return new Prediction(
              m == Mode.PREDICTIVE ? promoted : defaultLevel, promoted, verdict, highest, m);
        }
      }
      return Prediction.fallback(defaultLevel, verdict, m);
    }
    int routed = m == Mode.PREDICTIVE ? level : defaultLevel;
    return s.prediction(routed, level, verdict, estimate, m);
  }

  /**
   * Returns the cost an untrusted key is placed by when that puts it below the default level: a
   * spread key's mean, and the lowest duration of a cold key with at least {@value
   * #COLD_DEMOTION_OBSERVATIONS} observations; NaN for every other key, which stays at the default
   * level.
   */
  private double untrustedCost(KeyState s, Outcome verdict, double eq, double tq) {
    if (verdict == Outcome.SPREAD || verdict == Outcome.MISPREDICTED) {
      double mean = s.mean(eq, tq);
      return mean >= 0 && !Double.isInfinite(mean) ? mean : Double.NaN;
    }
    if (verdict == Outcome.COLD
        && s.observations >= COLD_DEMOTION_OBSERVATIONS
        && s.hasWeight(eq, tq)) {
      return s.lowest(eq, tq);
    }
    return Double.NaN;
  }

  /**
   * Whether a cold key has enough observations of its own for {@code promoteColdAfter}: its highest
   * one may then place it above the default level.
   */
  private boolean promotesCold(KeyState s, double eq, double tq) {
    int after = tuning.promoteColdAfter();
    return after > 0 && s.observations >= after && s.hasWeight(eq, tq);
  }

  /**
   * Scores one observation of a key that was predictable against its estimate and against the
   * pooled median, for the per-key safeguard.
   */
  void scoreGuard(KeyState s, double nanos, double global) {
    double eq = tuning.estimateQuantile();
    double tq = tuning.spreadQuantile();
    if (s.observations < config.minObservations() || !s.hasWeight(eq, tq) || !(global > 0)) {
      return;
    }
    double floor = Math.max(spreadFloorNanos, 1);
    double actual = Math.max(nanos, floor);
    double keyError = Math.abs(log2(actual / Math.max(s.estimate(eq, tq), floor)));
    double globalError = Math.abs(log2(actual / Math.max(global, floor)));
    s.scoreError(
        keyError,
        globalError,
        1.0 / tuning.mispredictionMemory(),
        tuning.mispredictionEnter(),
        tuning.mispredictionExit());
  }

  /**
   * Extends the key's run of observations more than {@value #SHIFT_OCTAVES} octave from its
   * estimate on one side, for a key that is proven and holds weight, and returns whether the run is
   * now {@code shiftRun} long.
   */
  boolean completesShiftRun(KeyState s, double nanos) {
    double eq = tuning.estimateQuantile();
    double tq = tuning.spreadQuantile();
    if (s.observations < config.minObservations() || !s.hasWeight(eq, tq)) {
      s.endRun();
      return false;
    }
    double floor = Math.max(spreadFloorNanos, 1);
    double error = log2(Math.max(nanos, floor) / Math.max(s.estimate(eq, tq), floor));
    int side = error > SHIFT_OCTAVES ? 1 : error < -SHIFT_OCTAVES ? -1 : 0;
    return s.extendRun(side, nanos, tuning.shiftRun());
  }

  private static double log2(double x) {
    return Math.log(x) / LN2;
  }

  /** Whether a key has been idle past its staleness limit. */
  boolean isStale(KeyState s, long now) {
    return staleAfterNanos > 0 && now - s.lastActivityNanos > staleAfterNanos * stretch(s);
  }

  /**
   * Returns the factor by which a key's idle limits stretch to its own time scale: 1 unless {@code
   * relativeIdle} is set and that many of the key's typical gaps exceed the staleness limit.
   */
  double stretch(KeyState s) {
    double relative = tuning.relativeIdle();
    if (relative <= 0 || staleAfterNanos <= 0) {
      return 1;
    }
    double scale = Double.isNaN(s.meanGapNanos) ? 0 : s.meanGapNanos;
    if (s.observations > 0 && s.hasWeight(tuning.estimateQuantile(), tuning.spreadQuantile())) {
      double estimate = s.estimate(tuning.estimateQuantile(), tuning.spreadQuantile());
      if (estimate > scale) {
        scale = estimate;
      }
    }
    return Math.max(1, relative * scale / staleAfterNanos);
  }
}
