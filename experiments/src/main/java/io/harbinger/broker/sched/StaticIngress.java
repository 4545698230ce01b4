package io.harbinger.broker.sched;

import java.util.Map;

/**
 * A fixed map from job type to level; unmapped job types take the default level (the middle one).
 *
 * <p>The two maps of the production-flow workload (reference section 4.4) are built in: {@link
 * #tuned} (an operator's informed map) and {@link #misconfigured} (priority by business
 * importance). Both go stale when the workload shifts.
 */
public final class StaticIngress implements IngressPolicy {

  private final String name;
  private final Map<String, Integer> levelsByJobType;
  private final int defaultLevel;

  /**
   * Creates a static map.
   *
   * @param name the arm's name
   * @param levels the number of levels, in [2, 10]
   * @param levelsByJobType the level of each job type, each in [0, levels)
   */
  public StaticIngress(String name, int levels, Map<String, Integer> levelsByJobType) {
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

  /**
   * Returns the hand-tuned map of the production flow.
   *
   * @param levels at least 3
   * @return the policy
   */
  public static StaticIngress tuned(int levels) {
    return new StaticIngress(
        Policy.STATIC_TUNED.label(),
        levels,
        Map.of(
            "reserve_inventory", 0,
            "push_notification", 0,
            "reindex_product", 0,
            "send_order_email", 1,
            "generate_invoice", 1,
            "send_sms", 1,
            "deliver_webhook", 1,
            "resize_image", 2,
            "export_report", 2));
  }

  /**
   * Returns the misconfigured map of the production flow.
   *
   * @param levels at least 3
   * @return the policy
   */
  public static StaticIngress misconfigured(int levels) {
    return new StaticIngress(
        Policy.STATIC_MISCONFIGURED.label(),
        levels,
        Map.of(
            "send_order_email", 0,
            "generate_invoice", 0,
            "reserve_inventory", 0,
            "deliver_webhook", 0,
            "export_report", 0,
            "push_notification", 1,
            "send_sms", 1,
            "resize_image", 1,
            "reindex_product", 2));
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public void route(Job job) {
    job.place(levelsByJobType.getOrDefault(job.flow(), defaultLevel));
  }
}
