package io.harbinger.experiments.sim;

import io.harbinger.predictor.PredictorConfig;
import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * The predictor configurations the simulator can compare, by name ({@code simulate --predictors
 * today,new}).
 *
 * <p>{@link #DEFAULT} is {@link PredictorConfig#defaults()}, whatever they are. The others pin
 * every choice they compare, so that a committed replay keeps its figures when a default changes.
 * {@link #TODAY} is the predictor before the safeguards and borrowing: seed paper Table 1 with
 * untrusted keys placed by their evidence. {@link #NEW} adds the per-key and global safeguards and
 * producer borrowing, with fixed idle limits and no shift run: the defaults until the shift run
 * became one. {@link #GLOBAL} is today's predictor with only the global safeguard added. {@link
 * #REACH} adds idle limits relative to each key's own gaps ({@code relativeIdle} 10), which is
 * opt-in. {@link #SHIFT} adds the shift run ({@code shiftRun} 8), now the default. {@link #FEW}
 * places a cold key with at least 3 observations by its highest one when that is short ({@code
 * promoteColdAfter} 3, opt-in), and {@link #REACH_FEW} does both that and {@link #REACH}'s idle
 * limits. {@link #TAIL} and {@link #TAIL15} add the tail guard, and {@link #BUDGET} the tail budget
 * ({@code tailBudget} 1.25), now the default. {@link #REACH_BUDGET} and {@link #REACH_FEW_BUDGET}
 * are the defaults with the opt-in reach options; {@link #REACH_BUDGET_TAIL17} and {@link
 * #REACH_BUDGET_TAIL17_SLOW} add the tail guard at 1.7x to the first. The sink profiles and those
 * two are built on {@link #BUDGET}. Only {@link #DEFAULT}, {@link #SHIFT} and the profiles built on
 * {@link #BUDGET} have the shift run, and only {@link #DEFAULT} and those built on {@link #BUDGET}
 * the tail budget: {@link #SHIFT} is the defaults before the budget became one. Every profile but
 * {@link #DEFAULT} and those built on {@link #LAST} keeps untrusted keys at the default level
 * ({@code untrustedLast} false): {@link #BUDGET} is the defaults before untrusted keys went last,
 * {@link #LAST} the defaults since, and {@link #REACH_LAST} and {@link #REACH_FEW_LAST} add the
 * opt-in reach options to it. Every profile but {@link #DEFAULT} and the steady ones keeps Table
 * 1's idle half-life and staleness (10 and 30 minutes). {@link #STEADY} is {@link #LAST} with idle
 * decay and staleness off. {@link #STEADY_N5} also predicts a key from 5 observations, and {@link
 * #STEADY_N5_NOSPREAD} also drops the spread gate (Table 1 has 20 and 16). {@link #STEADY_REACH}
 * predicts a key from one observation without the spread gate, under a tail budget of 1.1. Every
 * profile but {@link #DEFAULT} and the two size profiles keeps {@code borrowFromSize} off: {@link
 * #STEADY} is the defaults before it, {@link #STEADY_SIZE} the defaults now, and {@link
 * #STEADY_REACH_SIZE} adds it to {@link #STEADY_REACH}. Any profile can be varied further with
 * {@link PredictorChoice}'s overrides.
 */
public enum PredictorProfile {
  /** The product's defaults as they are. */
  DEFAULT(PredictorConfig.defaults()),
  /** The predictor without the safeguards and borrowing. */
  TODAY(
      tableOneIdle()
          .keyGuard(false)
          .safeguard(false)
          .borrowFromProducer(false)
          .shiftRun(0)
          .tailBudget(0)
          .untrustedLast(false)
          .build()),
  /** Today's predictor with the global safeguard alone, to show what it does by itself. */
  GLOBAL(
      tableOneIdle()
          .keyGuard(false)
          .safeguard(true)
          .borrowFromProducer(false)
          .shiftRun(0)
          .tailBudget(0)
          .untrustedLast(false)
          .build()),
  /** Both safeguards and producer borrowing, fixed idle limits, no shift run. */
  NEW(tableOneIdle().relativeIdle(0).shiftRun(0).tailBudget(0).untrustedLast(false).build()),
  /** {@link #NEW} with idle limits relative to each key's own time scale. */
  REACH(tableOneIdle().relativeIdle(10).shiftRun(0).tailBudget(0).untrustedLast(false).build()),
  /** {@link #NEW} with a key's history replaced after a run of 8 one-sided observations. */
  SHIFT(tableOneIdle().relativeIdle(0).shiftRun(8).tailBudget(0).untrustedLast(false).build()),
  /** {@link #NEW} with a cold key placed by its highest of at least 3 observations. */
  FEW(
      tableOneIdle()
          .relativeIdle(0)
          .shiftRun(0)
          .promoteColdAfter(3)
          .tailBudget(0)
          .untrustedLast(false)
          .build()),
  /** Relative idle limits and cold keys placed by their highest of at least 3 observations. */
  REACH_FEW(
      tableOneIdle()
          .relativeIdle(10)
          .shiftRun(0)
          .promoteColdAfter(3)
          .tailBudget(0)
          .untrustedLast(false)
          .build()),
  /** {@link #NEW} with the tail guard at 2x. */
  TAIL(
      tableOneIdle()
          .relativeIdle(0)
          .shiftRun(0)
          .tailLimit(2)
          .tailBudget(0)
          .untrustedLast(false)
          .build()),
  /** {@link #NEW} with the tail guard at 1.5x. */
  TAIL15(
      tableOneIdle()
          .relativeIdle(0)
          .shiftRun(0)
          .tailLimit(1.5)
          .tailBudget(0)
          .untrustedLast(false)
          .build()),
  /** {@link #SHIFT} with the last boundary set by a tail budget of 1.25, now the default. */
  BUDGET(tableOneIdle().relativeIdle(0).shiftRun(8).tailBudget(1.25).untrustedLast(false).build()),
  /**
   * {@link #BUDGET} with the sink guard at 1.25x: unpredicted keys go last while it is exceeded.
   */
  SINK(
      tableOneIdle()
          .relativeIdle(0)
          .shiftRun(8)
          .tailBudget(1.25)
          .tailSink(1.25)
          .untrustedLast(false)
          .build()),
  /** {@link #BUDGET} with the sink guard at 1.5x. */
  SINK15(
      tableOneIdle()
          .relativeIdle(0)
          .shiftRun(8)
          .tailBudget(1.25)
          .tailSink(1.5)
          .untrustedLast(false)
          .build()),
  /** {@link #BUDGET} with idle limits relative to each key's own time scale. */
  REACH_BUDGET(
      tableOneIdle().relativeIdle(10).shiftRun(8).tailBudget(1.25).untrustedLast(false).build()),
  /**
   * {@link #BUDGET} with relative idle limits and cold keys placed by their highest of at least 3
   * observations: the defaults with both reach options on.
   */
  REACH_FEW_BUDGET(
      tableOneIdle()
          .relativeIdle(10)
          .shiftRun(8)
          .promoteColdAfter(3)
          .tailBudget(1.25)
          .untrustedLast(false)
          .build()),
  /** {@link #REACH_BUDGET} with the tail guard at 1.7x. */
  REACH_BUDGET_TAIL17(
      tableOneIdle()
          .relativeIdle(10)
          .shiftRun(8)
          .tailBudget(1.25)
          .tailLimit(1.7)
          .untrustedLast(false)
          .build()),
  /** {@link #REACH_BUDGET} with the tail guard at 1.7x judged over a ten times longer memory. */
  REACH_BUDGET_TAIL17_SLOW(
      tableOneIdle()
          .relativeIdle(10)
          .shiftRun(8)
          .tailBudget(1.25)
          .tailLimit(1.7)
          .safeguardDecay(0.9998)
          .untrustedLast(false)
          .build()),
  /**
   * {@link #BUDGET} with unmeasured keys (cold, stale, censored) at the last level: the defaults
   * since they go there, pinned.
   */
  LAST(tableOneIdle().relativeIdle(0).shiftRun(8).tailBudget(1.25).untrustedLast(true).build()),
  /** {@link #LAST} with idle limits relative to each key's own time scale. */
  REACH_LAST(
      tableOneIdle().relativeIdle(10).shiftRun(8).tailBudget(1.25).untrustedLast(true).build()),
  /**
   * {@link #REACH_LAST} with cold keys placed by their highest of at least 3 observations: the
   * defaults with both reach options on.
   */
  REACH_FEW_LAST(
      tableOneIdle()
          .relativeIdle(10)
          .shiftRun(8)
          .promoteColdAfter(3)
          .tailBudget(1.25)
          .untrustedLast(true)
          .build()),
  /**
   * {@link #LAST} without idle decay or staleness ({@code idleHalfLife} and {@code staleAfter}
   * zero): a key's history fades only as it is observed again. The defaults before {@code
   * borrowFromSize}, pinned.
   */
  STEADY(
      measured()
          .idleHalfLife(Duration.ZERO)
          .staleAfter(Duration.ZERO)
          .relativeIdle(0)
          .shiftRun(8)
          .tailBudget(1.25)
          .untrustedLast(true)
          .build()),
  /** {@link #STEADY} with 5 observations enough to predict a key ({@code minObservations} 5). */
  STEADY_N5(
      measured()
          .idleHalfLife(Duration.ZERO)
          .staleAfter(Duration.ZERO)
          .minObservations(5)
          .relativeIdle(0)
          .shiftRun(8)
          .tailBudget(1.25)
          .untrustedLast(true)
          .build()),
  /** {@link #STEADY_N5} without the spread gate ({@code maxSpreadRatio} 1e9). */
  STEADY_N5_NOSPREAD(
      measured()
          .idleHalfLife(Duration.ZERO)
          .staleAfter(Duration.ZERO)
          .minObservations(5)
          .maxSpreadRatio(1e9)
          .relativeIdle(0)
          .shiftRun(8)
          .tailBudget(1.25)
          .untrustedLast(true)
          .build()),
  /**
   * {@link #STEADY} with {@link PredictorConfig.Builder#fewObservations()}, for logs whose job
   * kinds recur a few times each: a key is predicted from its first observation ({@code
   * minObservations} 1), without the spread gate ({@code maxSpreadRatio} 1000), and the last
   * level's budget is tighter ({@code tailBudget} 1.1), which keeps the tail of the many keys now
   * predicted from few observations within 1.25x FIFO's. Opt-in.
   */
  STEADY_REACH(
      measured()
          .idleHalfLife(Duration.ZERO)
          .staleAfter(Duration.ZERO)
          .relativeIdle(0)
          .shiftRun(8)
          .untrustedLast(true)
          .fewObservations()
          .build()),
  /**
   * {@link #STEADY} with {@code borrowFromSize}: a key still cold borrows the aggregate of every
   * job in its size hint's bin. With a log's requested run times as size hints ({@code swf:...?
   * size=requested}) the jobs of never-seen kinds go by their users' own estimate of their size.
   */
  STEADY_SIZE(STEADY.config().toBuilder().borrowFromSize(true).build()),
  /** {@link #STEADY_REACH} with {@code borrowFromSize}, as {@link #STEADY_SIZE}. */
  STEADY_REACH_SIZE(STEADY_REACH.config().toBuilder().borrowFromSize(true).build()),
  /** {@link #REACH_FEW} with the tail guard at 2x. */
  REACH_FEW_TAIL(
      tableOneIdle()
          .relativeIdle(10)
          .shiftRun(0)
          .promoteColdAfter(3)
          .tailLimit(2)
          .tailBudget(0)
          .untrustedLast(false)
          .build());

  private final PredictorConfig config;

  /**
   * Returns a builder of the defaults without {@code borrowFromSize}, which every profile measured
   * before it became a default keeps off, so that their replays stay reproducible.
   */
  private static PredictorConfig.Builder measured() {
    return PredictorConfig.builder().borrowFromSize(false);
  }

  /**
   * Returns a builder with seed paper Table 1's idle half-life (10 min) and staleness (30 min), the
   * defaults until they were turned off, so that the profiles measured with them keep them.
   */
  private static PredictorConfig.Builder tableOneIdle() {
    return measured().paperIdleLimits();
  }

  PredictorProfile(PredictorConfig config) {
    this.config = config;
  }

  /** Returns the predictor's configuration. */
  public PredictorConfig config() {
    return config;
  }

  /** Returns the lower-case name used on the command line and in arm names. */
  public String label() {
    return name().toLowerCase(Locale.ROOT);
  }

  /**
   * Returns the profile of a name.
   *
   * @param name a profile's label (default, today, global, new, reach, shift, few, reach_few, tail,
   *     tail15, budget, sink, sink15, reach_budget, reach_few_budget, reach_budget_tail17,
   *     reach_budget_tail17_slow, last, reach_last, reach_few_last, steady, steady_n5,
   *     steady_n5_nospread, steady_reach, steady_size, steady_reach_size, reach_few_tail), in any
   *     case
   * @return the profile
   * @throws IllegalArgumentException for any other name, listing the names
   */
  public static PredictorProfile of(String name) {
    for (PredictorProfile p : values()) {
      if (p.label().equals(name.trim().toLowerCase(Locale.ROOT))) {
        return p;
      }
    }
    throw new IllegalArgumentException(
        "predictor must be one of "
            + Arrays.stream(values()).map(PredictorProfile::label).collect(Collectors.joining(", "))
            + ": "
            + name);
  }
}
