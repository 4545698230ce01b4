package io.harbinger.broker;

/**
 * How a RabbitMQ arm lays out its queue: one classic priority queue, or one queue per level (lanes)
 * of a type, served by the lanes consumer's scheduling.
 */
public enum QueueLayout {
  /** One classic queue, with {@code x-max-priority} unless the arm is FIFO. */
  PRIORITY_QUEUE,
  /** One classic queue per level. */
  CLASSIC_LANES,
  /** One quorum queue per level. */
  QUORUM_LANES;

  /** Returns whether this layout is lanes. */
  public boolean isLanes() {
    return this == CLASSIC_LANES || this == QUORUM_LANES;
  }
}
