package io.harbinger.experiments.sim;

import io.harbinger.predictor.HistogramPredictor;
import io.harbinger.predictor.Mode;
import io.harbinger.predictor.PredictorConfig;
import io.harbinger.predictor.PredictorTuning;
import io.harbinger.predictor.Ticker;
import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * The predictors the simulator can compare, by name ({@code simulate --predictors
 * defaults,table1}), each named for what it contains: the product's defaults, seed paper Table 1
 * with none of the defaults' departures, the opt-in few-observation settings, and the defaults with
 * one departure from the paper undone each, so that a replay shows what that departure does.
 *
 * <p>Every profile is a {@link PredictorConfig} (the product's ten settings) and a {@link
 * PredictorTuning} (the lab's research hooks); {@link #DEFAULTS} follows the product's defaults
 * whatever they are, and the others are built on them. Any profile can be varied further with
 * {@link PredictorChoice}'s overrides.
 */
public enum PredictorProfile {
  /**
   * The product's defaults: {@link PredictorConfig#defaults()} and {@link
   * PredictorTuning#defaults()}.
   */
  DEFAULTS(PredictorConfig.builder(), PredictorTuning.builder()),
  /**
   * Seed paper Table 1 and section 3 with none of the defaults' departures: an idle half-life of 10
   * minutes and a staleness limit of 30, every untrusted key at the default level ({@code
   * demoteUntrusted} and {@code untrustedLast} off), neither the per-key nor the global safeguard,
   * no borrowing from the producer or the size bin, no shift run and equal-quantile boundaries
   * ({@code tailBudget} 0).
   */
  TABLE1(
      PredictorConfig.builder()
          .staleAfter(Duration.ofMinutes(30))
          .safeguard(false)
          .tailBudget(0)
          .untrustedLast(false),
      PredictorTuning.builder()
          .idleHalfLife(Duration.ofMinutes(10))
          .demoteUntrusted(false)
          .keyGuard(false)
          .borrowFromProducer(false)
          .borrowFromSize(false)
          .shiftRun(0)),
  /**
   * The defaults with {@link PredictorConfig.Builder#fewObservations()}: a key predicted from its
   * first observation ({@code minObservations} 1), without the spread gate ({@code maxSpreadRatio}
   * 1000), under a tail budget of 1.1. Opt-in in the product, for logs whose job kinds recur a few
   * times each.
   */
  FEW_OBSERVATIONS(PredictorConfig.builder().fewObservations(), PredictorTuning.builder()),
  /**
   * The defaults without borrowing a cold key's estimate from its size bin ({@code borrowFromSize}
   * off).
   */
  WITHOUT_SIZE_BORROWING(
      PredictorConfig.builder(), PredictorTuning.builder().borrowFromSize(false)),
  /**
   * The defaults without borrowing a cold key's estimate from its producer ({@code
   * borrowFromProducer} off).
   */
  WITHOUT_PRODUCER_BORROWING(
      PredictorConfig.builder(), PredictorTuning.builder().borrowFromProducer(false)),
  /**
   * The defaults with seed paper Table 1's forgetting by the clock: an idle half-life of 10 minutes
   * ({@code idleHalfLife}) and a staleness limit of 30 ({@code staleAfter}).
   */
  WITH_CLOCK_FORGETTING(
      PredictorConfig.builder().staleAfter(Duration.ofMinutes(30)),
      PredictorTuning.builder().idleHalfLife(Duration.ofMinutes(10))),
  /**
   * The defaults with every boundary at the equal quantiles of seed paper equation 2 ({@code
   * tailBudget} 0).
   */
  WITHOUT_TAIL_BUDGET(PredictorConfig.builder().tailBudget(0), PredictorTuning.builder()),
  /** The defaults with decay alone following a change of regime ({@code shiftRun} 0). */
  WITHOUT_SHIFT_RUN(PredictorConfig.builder(), PredictorTuning.builder().shiftRun(0)),
  /**
   * The defaults with unmeasured keys (cold, stale, censored) at the default level of seed paper
   * section 3.5 rather than the last ({@code untrustedLast} off).
   */
  UNTRUSTED_AT_DEFAULT_LEVEL(
      PredictorConfig.builder().untrustedLast(false), PredictorTuning.builder()),
  /**
   * The defaults without the per-key and the global safeguards ({@code keyGuard} and {@code
   * safeguard} off): no key is taken off its level for mispredicting, and the levels are never held
   * in FIFO order (the gain is still estimated, so unmeasured keys still go last).
   */
  WITHOUT_SAFEGUARDS(
      PredictorConfig.builder().safeguard(false), PredictorTuning.builder().keyGuard(false)),
  /**
   * The defaults with every untrusted key at the default level even where its evidence shows it
   * costlier ({@code demoteUntrusted} off).
   */
  WITHOUT_DEMOTION(PredictorConfig.builder(), PredictorTuning.builder().demoteUntrusted(false));

  private final PredictorConfig config;
  private final PredictorTuning tuning;

  PredictorProfile(PredictorConfig.Builder config, PredictorTuning.Builder tuning) {
    this.config = config.build();
    this.tuning = tuning.build();
  }

  /**
   * Returns the product settings.
   *
   * @return the configuration
   */
  public PredictorConfig config() {
    return config;
  }

  /**
   * Returns the lab's tuning.
   *
   * @return the tuning
   */
  public PredictorTuning tuning() {
    return tuning;
  }

  /**
   * Creates a cold predictor of this profile in predictive mode.
   *
   * @param ticker the source of time
   * @return the predictor
   */
  public HistogramPredictor predictor(Ticker ticker) {
    return new HistogramPredictor(config, tuning, ticker, Mode.PREDICTIVE);
  }

  /**
   * Returns the lower-case name used on the command line and in arm names.
   *
   * @return the label, such as {@code few_observations}
   */
  public String label() {
    return name().toLowerCase(Locale.ROOT);
  }

  /**
   * Returns the profile of a name.
   *
   * @param name a profile's label (defaults, table1, few_observations, without_size_borrowing,
   *     without_producer_borrowing, with_clock_forgetting, without_tail_budget, without_shift_run,
   *     untrusted_at_default_level, without_safeguards, without_demotion), in any case
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
