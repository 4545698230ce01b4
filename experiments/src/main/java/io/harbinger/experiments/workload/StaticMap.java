package io.harbinger.experiments.workload;

/**
 * The two fixed job-type-to-level maps the static-priority arms use.
 *
 * <p>Implementation notes: harbinger-reference section 4.4 ({@code kTunedTiers} and {@code
 * kMisconfiguredTiers}). Level 0 is served first. Both maps are fixed, so they go stale after the
 * cost shift at 70% of the run.
 */
public enum StaticMap {
  /** An operator's informed map: cheap work first, images and exports last. */
  HAND_TUNED,
  /** Priority by business importance: checkout and partners first, reindexing last. */
  MISCONFIGURED;

  /**
   * Returns the level of a job type, for three levels.
   *
   * @param type the job type
   * @return the level, 0 (served first) to 2
   */
  public int level(JobType type) {
    return switch (this) {
      case HAND_TUNED ->
          switch (type) {
            case RESERVE_INVENTORY, PUSH_NOTIFICATION, REINDEX_PRODUCT -> 0;
            case SEND_ORDER_EMAIL, GENERATE_INVOICE, SEND_SMS, DELIVER_WEBHOOK -> 1;
            case RESIZE_IMAGE, EXPORT_REPORT -> 2;
          };
      case MISCONFIGURED ->
          switch (type) {
            case SEND_ORDER_EMAIL,
                GENERATE_INVOICE,
                RESERVE_INVENTORY,
                DELIVER_WEBHOOK,
                EXPORT_REPORT ->
                0;
            case PUSH_NOTIFICATION, SEND_SMS, RESIZE_IMAGE -> 1;
            case REINDEX_PRODUCT -> 2;
          };
    };
  }
}
