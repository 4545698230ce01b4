package io.harbinger.experiments.sim;

import io.harbinger.predictor.PredictorConfig;

/**
 * A predictor the simulator runs: a {@link PredictorProfile}, optionally with {@link
 * PredictorOverrides} after it, as in {@code steady:minObservations=3:maxSpreadRatio=64}. Its label
 * names the arms it runs ({@code ARM@LABEL}), so a committed replay says exactly which
 * configuration each row had.
 *
 * @param label the profile's label followed by the overrides as given
 * @param config the configuration
 */
public record PredictorChoice(String label, PredictorConfig config) {

  /**
   * Returns the choice of a profile.
   *
   * @param profile the profile
   * @return the profile's choice, labelled as the profile
   */
  public static PredictorChoice of(PredictorProfile profile) {
    return new PredictorChoice(profile.label(), profile.config());
  }

  /**
   * Parses {@code PROFILE[:NAME=VALUE...]}.
   *
   * @param text a profile's name, optionally followed by overrides separated by colons
   * @return the choice
   * @throws IllegalArgumentException naming the profile or override that is wrong, or the
   *     configuration's range that the overrides leave
   */
  public static PredictorChoice parse(String text) {
    String[] parts = text.trim().split(":", -1);
    PredictorProfile profile = PredictorProfile.of(parts[0]);
    if (parts.length == 1) {
      return of(profile);
    }
    PredictorConfig.Builder b = profile.config().toBuilder();
    StringBuilder label = new StringBuilder(profile.label());
    for (int i = 1; i < parts.length; i++) {
      PredictorOverrides.apply(b, parts[i]);
      label.append(':').append(parts[i]);
    }
    return new PredictorChoice(label.toString(), b.build());
  }
}
