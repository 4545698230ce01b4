package io.harbinger.rabbit;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Remembers the messages this process sent back to their queue (nack or reject with requeue, or
 * {@code basic.recover}), so that their redelivery is not mistaken for an attempt that never
 * settled.
 *
 * <p>Bounded: the oldest of more than {@code capacity} entries is forgotten, which at worst turns
 * one requeued message's redelivery into a censored observation. Thread-safe; each call holds the
 * instance lock for one map operation. Only requeues and redeliveries touch it, never a first
 * delivery or a publish.
 */
final class Requeues {

  /** The instance shared by every wrapped channel of the process. */
  static final Requeues SHARED = new Requeues(8192);

  private final Map<String, Boolean> entries;

  Requeues(int capacity) {
    entries =
        new LinkedHashMap<>(16, 0.75f, false) {
          @Override
          protected boolean removeEldestEntry(Map.Entry<String, Boolean> eldest) {
            return size() > capacity;
          }
        };
  }

  synchronized void remember(String identity) {
    entries.put(identity, Boolean.TRUE);
  }

  /** Returns whether the identity was remembered, and forgets it. */
  synchronized boolean forget(String identity) {
    return entries.remove(identity) != null;
  }
}
