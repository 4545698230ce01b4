package io.harbinger.experiments.sim;

import io.harbinger.predictor.HistogramPredictor;
import io.harbinger.predictor.Mode;
import io.harbinger.predictor.PredictorConfig;
import io.harbinger.predictor.PredictorTuning;
import io.harbinger.predictor.Ticker;
import java.util.Objects;

/**
 * A predictor the simulator runs: a {@link PredictorProfile}, optionally with {@link
 * PredictorOverrides} after it, as in {@code defaults:minObservations=3:shiftRun=0}. Its label
 * names the arms it runs ({@code ARM@LABEL}), so a committed replay says exactly which predictor
 * each row had.
 *
 * @param label the profile's label followed by the overrides as given
 * @param config the product settings
 * @param tuning the lab's tuning
 */
public record PredictorChoice(String label, PredictorConfig config, PredictorTuning tuning) {

  /** Checks that the settings and the tuning go together ({@link PredictorTuning#check}). */
  public PredictorChoice {
    Objects.requireNonNull(label, "label");
    Objects.requireNonNull(config, "config");
    Objects.requireNonNull(tuning, "tuning");
    tuning.check(config);
  }

  /**
   * Returns the choice of a profile.
   *
   * @param profile the profile
   * @return the profile's choice, labelled as the profile
   */
  public static PredictorChoice of(PredictorProfile profile) {
    return new PredictorChoice(profile.label(), profile.config(), profile.tuning());
  }

  /**
   * Parses {@code PROFILE[:NAME=VALUE...]}.
   *
   * @param text a profile's name, optionally followed by overrides separated by colons
   * @return the choice
   * @throws IllegalArgumentException naming the profile or override that is wrong, or the range
   *     that the overrides leave
   */
  public static PredictorChoice parse(String text) {
    String[] parts = text.trim().split(":", -1);
    PredictorProfile profile = PredictorProfile.of(parts[0]);
    if (parts.length == 1) {
      return of(profile);
    }
    PredictorConfig.Builder config = profile.config().toBuilder();
    PredictorTuning.Builder tuning = profile.tuning().toBuilder();
    StringBuilder label = new StringBuilder(profile.label());
    for (int i = 1; i < parts.length; i++) {
      PredictorOverrides.apply(config, tuning, parts[i]);
      label.append(':').append(parts[i]);
    }
    return new PredictorChoice(label.toString(), config.build(), tuning.build());
  }

  /**
   * Creates a cold predictor of this choice in predictive mode.
   *
   * @param ticker the source of time
   * @return the predictor
   */
  public HistogramPredictor predictor(Ticker ticker) {
    return new HistogramPredictor(config, tuning, ticker, Mode.PREDICTIVE);
  }
}
