package io.harbinger.rabbit;

/**
 * Test fixtures for the modules that build on the adapter (the metrics and Spring integrations):
 * what their tests need to set up or observe of the adapter's package-private state, without that
 * state becoming public API. Shipped in the adapter's test jar only.
 */
public final class AdapterFixtures {

  private AdapterFixtures() {}

  /**
   * Changes the gauge of deliveries that lanes consumers hold, as a lanes consumer does.
   *
   * @param stats the counters
   * @param delta deliveries received (positive) or handed off or dropped (negative)
   */
  public static void laneHeldChanged(AdapterStats stats, int delta) {
    stats.laneHeldChanged(delta);
  }

  /**
   * Counts one hand-off of a held lane delivery, as a lanes consumer does.
   *
   * @param stats the counters
   * @param heldNanos how long the delivery was held
   */
  public static void laneHandedOff(AdapterStats stats, long heldNanos) {
    stats.laneHandedOff(heldNanos);
  }

  /**
   * Counts one {@code basic.get} of a pulling lanes consumer that took a message.
   *
   * @param stats the counters
   */
  public static void laneGet(AdapterStats stats) {
    stats.increment(Counter.LANE_GET);
  }

  /**
   * Counts one {@code basic.get} of a pulling lanes consumer that found its lane empty.
   *
   * @param stats the counters
   */
  public static void laneEmptyGet(AdapterStats stats) {
    stats.increment(Counter.LANE_EMPTY_GET);
  }

  /**
   * Counts one message a pulling lanes consumer took ahead.
   *
   * @param stats the counters
   */
  public static void laneTakenAhead(AdapterStats stats) {
    stats.increment(Counter.LANE_TAKEN_AHEAD);
  }

  /**
   * Returns the type this process recorded for a queue, which stamps for it follow.
   *
   * @param queue the queue's name
   * @return its type, or null when it was never declared or recorded in this process
   */
  public static QueueType recordedType(String queue) {
    return DeclaredQueues.SHARED.type(queue);
  }
}
