package io.harbinger.broker;

/**
 * One live delivery: a message owned by one consumer under one attempt token until its lease
 * deadline. Deliveries are linked in dispatch order, which is deadline order because every lease
 * has the same length. Guarded by the broker's lock.
 */
final class Delivery {

  final String token;
  final String consumerId;
  final StoredMessage message;
  final long deadlineNanos;
  Delivery prev;
  Delivery next;
  boolean linked;

  Delivery(String token, String consumerId, StoredMessage message, long deadlineNanos) {
    this.token = token;
    this.consumerId = consumerId;
    this.message = message;
    this.deadlineNanos = deadlineNanos;
  }
}
