package io.harbinger.scheduler;

import java.util.Map;

/**
 * A fixed map from job type to level; unmapped job types take the default level (the middle one).
 * Immutable and thread-safe.
 */
final class StaticIngress implements IngressPolicy {

  private final String name;
  private final Map<String, Integer> levelsByJobType;
  private final int defaultLevel;

  StaticIngress(String name, int levels, Map<String, Integer> levelsByJobType) {
    this.name = name;
    this.levelsByJobType = Map.copyOf(levelsByJobType);
    this.levelsByJobType.forEach(
        (type, level) -> {
          if (level < 0 || level >= levels) {
            throw new IllegalArgumentException(
                "static level of " + type + " must be in [0, " + levels + "): " + level);
          }
        });
    this.defaultLevel = levels / 2;
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public void route(QueuedJob job) {
    job.place(levelsByJobType.getOrDefault(job.flow(), defaultLevel));
  }
}
