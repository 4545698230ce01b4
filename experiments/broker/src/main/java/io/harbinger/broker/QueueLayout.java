package io.harbinger.broker;

/**
 * How a RabbitMQ arm lays out its queue: one classic priority queue, one quorum queue with
 * priorities, or one queue per level (lanes) of a type, served by the lanes consumer's scheduling.
 */
public enum QueueLayout {
  /** One classic queue, with {@code x-max-priority} unless the arm is FIFO. */
  PRIORITY_QUEUE,
  /**
   * One quorum queue with the priorities its type has on the broker's version: on RabbitMQ 4.0 to
   * 4.2 level 0 is "high" and served 2:1 against every other level (rabbitmq-facts section 1.2);
   * refused on RabbitMQ 3.x, whose quorum queues have no priorities. A FIFO arm's quorum queue has
   * no priorities on any version.
   */
  QUORUM_PRIORITY_QUEUE,
  /** One classic queue per level. */
  CLASSIC_LANES,
  /** One quorum queue per level. */
  QUORUM_LANES;

  /** Returns whether this layout is lanes. */
  public boolean isLanes() {
    return this == CLASSIC_LANES || this == QUORUM_LANES;
  }
}
