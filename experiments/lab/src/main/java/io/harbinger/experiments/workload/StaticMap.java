package io.harbinger.experiments.workload;

import io.harbinger.broker.Policy;

/**
 * The fixed job-type-to-level map the static-priority arm uses, by job type: a view of the map
 * defined once in {@link Policy#TUNED_MAP}.
 *
 * <p>Implementation notes: the original implementation's hand-tuned map ({@code kTunedTiers}; seed
 * paper section 4). Level 0 is served first. The map is fixed, so it goes stale after the cost
 * shift at 70% of the run.
 */
public enum StaticMap {
  /** An operator's informed map: cheap work first, images and exports last. */
  HAND_TUNED(Policy.STATIC_TUNED);

  private final Policy policy;

  StaticMap(Policy policy) {
    this.policy = policy;
  }

  /** Returns the arms' policy that uses this map. */
  public Policy policy() {
    return policy;
  }

  /**
   * Returns the level of a job type, for three levels.
   *
   * @param type the job type
   * @return the level, 0 (served first) to 2; the middle level for a type the map does not name
   */
  public int level(JobType type) {
    return policy.staticMap().getOrDefault(type.wireName(), 1);
  }
}
