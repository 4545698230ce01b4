package io.harbinger.experiments.stats;

import java.util.List;

/**
 * The verdicts of a gate's criteria, in the order the gate lists them.
 *
 * @param verdicts one verdict per criterion
 */
public record GateResult(List<Verdict> verdicts) {

  /** Copies the list. */
  public GateResult {
    verdicts = List.copyOf(verdicts);
  }

  /**
   * Returns whether the gate passed.
   *
   * @return true when there is at least one criterion and every one passed
   */
  public boolean passed() {
    return !verdicts.isEmpty() && verdicts.stream().allMatch(Verdict::passed);
  }
}
