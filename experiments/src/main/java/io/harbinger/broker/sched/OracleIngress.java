package io.harbinger.broker.sched;

/**
 * The true cost tier carried by the message ({@link Job#oracleTier}); a missing or out-of-range
 * tier takes the default level (reference section 2.8). No cost is attached, so weighted selection
 * charges the level averages.
 */
final class OracleIngress implements IngressPolicy {

  private final int levels;

  OracleIngress(int levels) {
    this.levels = levels;
  }

  @Override
  public String name() {
    return Policy.ORACLE.label();
  }

  @Override
  public void route(Job job) {
    int tier = job.oracleTier();
    job.place(tier >= 0 && tier < levels ? tier : levels / 2);
  }
}
