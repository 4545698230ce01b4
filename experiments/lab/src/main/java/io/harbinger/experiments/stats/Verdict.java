package io.harbinger.experiments.stats;

import java.util.Objects;

/**
 * The outcome of one criterion, with the numbers behind it.
 *
 * @param criterion the criterion judged
 * @param status pass, fail or unevaluable (which counts as failure)
 * @param pairs the paired values, or null for {@link Criterion.NoLostWork}
 * @param interval the mean of the paired values with its interval, or null when unevaluable or not
 *     paired
 * @param reason a sentence that restates the rule and shows the values it was judged on
 */
public record Verdict(
    Criterion criterion, Status status, PairedValues pairs, Interval interval, String reason) {

  /** Pass, fail or unevaluable. */
  public enum Status {
    /** The rule held. */
    PASS,
    /** The rule did not hold. */
    FAIL,
    /** The rule could not be judged (too few pairs, zero baseline, no runs); counts as failure. */
    UNEVALUABLE
  }

  /** Checks the fields. */
  public Verdict {
    Objects.requireNonNull(criterion, "criterion");
    Objects.requireNonNull(status, "status");
    Objects.requireNonNull(reason, "reason");
    if (status != Status.UNEVALUABLE
        && criterion instanceof Criterion.Paired
        && (interval == null || pairs == null)) {
      throw new IllegalArgumentException(
          "an evaluated paired criterion needs its pairs and interval: " + criterion.id());
    }
  }

  /**
   * Returns whether the criterion passed.
   *
   * @return true only for {@link Status#PASS}
   */
  public boolean passed() {
    return status == Status.PASS;
  }
}
