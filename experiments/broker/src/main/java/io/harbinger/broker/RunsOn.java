package io.harbinger.broker;

/** Where a comparison arm runs. */
public enum RunsOn {
  /** The discrete-event simulator, on a trace ({@code ./harbinger simulate}). */
  SIMULATOR,
  /** Harbinger's own broker, in the benchmark's JVM or as {@code ./harbinger broker}. */
  BROKER,
  /** A RabbitMQ classic queue; the producer sets the priority from the arm's policy. */
  RABBITMQ,
  /** A Redis list used as a reliable queue. */
  REDIS;

  /**
   * Returns whether arms of this kind can take their level from a policy.
   *
   * @param policy the policy
   * @return true when supported
   */
  public boolean supports(Policy policy) {
    return switch (this) {
      case SIMULATOR ->
          switch (policy) {
            case FIFO,
                STATIC_HISTORY,
                STATIC_HINDSIGHT,
                STATIC_RANDOM,
                ORACLE,
                PREDICTIVE,
                PREDICTIVE_WARM ->
                true;
            default -> false;
          };
      case BROKER -> policy.runsOnBroker();
      case RABBITMQ ->
          switch (policy) {
            case FIFO, STATIC_TUNED, PREDICTIVE, SIDECAR, ORACLE -> true;
            default -> false;
          };
      case REDIS -> policy == Policy.FIFO;
    };
  }
}
