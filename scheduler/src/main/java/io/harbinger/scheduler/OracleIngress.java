package io.harbinger.scheduler;

/**
 * The true cost tier carried by the job ({@link QueuedJob#oracleTier}); a missing or out-of-range
 * tier takes the default level, as in the original implementation. No cost is attached, so weighted
 * selection charges the level averages. Immutable and thread-safe.
 */
final class OracleIngress implements IngressPolicy {

  private final String name;
  private final int levels;

  OracleIngress(String name, int levels) {
    this.name = name;
    this.levels = levels;
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public void route(QueuedJob job) {
    int tier = job.oracleTier();
    job.place(tier >= 0 && tier < levels ? tier : levels / 2);
  }
}
