package io.harbinger.broker;

/**
 * A consumer's Pull parked in the broker until a message arrives or its time runs out, so that no
 * thread waits for it ({@link MessageBroker#pullAsync}).
 *
 * <p>The broker calls exactly one of {@link #deliver} and {@link #timedOut}, once, outside its
 * lock.
 */
public interface PullWaiter {

  /**
   * Hands over a delivery.
   *
   * @param delivery the delivery, already in flight under its lease
   */
  void deliver(Delivered delivery);

  /** Tells the waiter that nothing arrived in time (or the broker gave up on it). */
  void timedOut();

  /**
   * Returns whether the caller has gone away; a cancelled waiter gets no message.
   *
   * @return true when cancelled
   */
  boolean isCancelled();
}
