package io.harbinger.rabbit;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The lanes queues this process knows, by logical queue name, so that a wrapped channel publishing
 * to a logical queue on the default exchange picks the lane of the message's level, and a wrapped
 * consumer of it consumes every lane.
 *
 * <p>Implementation notes. As {@link DeclaredQueues}, queues are known by name only, the last
 * registration winning, and the map is bounded ({@value #MAX_TRACKED} logical queues).
 *
 * <p>Thread-safe: one concurrent map, read without locking on every publish to the default
 * exchange.
 */
final class DeclaredLanes {

  /** The registry shared by every wrapped channel of the process. */
  static final DeclaredLanes SHARED = new DeclaredLanes();

  static final int MAX_TRACKED = 10_000;

  private final Map<String, LaneLayout> layouts = new ConcurrentHashMap<>();

  DeclaredLanes() {}

  /**
   * Records a layout under its logical queue's name.
   *
   * @param layout the layout
   */
  void declared(LaneLayout layout) {
    if (layouts.size() < MAX_TRACKED || layouts.containsKey(layout.queue())) {
      layouts.put(layout.queue(), layout);
    }
  }

  /**
   * Forgets a logical queue's layout.
   *
   * @param queue the logical queue's name
   */
  void forget(String queue) {
    if (queue != null) {
      layouts.remove(queue);
    }
  }

  /**
   * Returns the layout of a logical queue.
   *
   * @param queue a queue name, or null
   * @return the layout, or null when {@code queue} is not a known logical lanes queue
   */
  LaneLayout layout(String queue) {
    return queue == null ? null : layouts.get(queue);
  }
}
