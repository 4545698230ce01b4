package io.harbinger.predictor;

import java.util.HashMap;

/**
 * One lock shard of tracked keys: a hash map plus an intrusive recency list, least recently active
 * first.
 *
 * <p>Not thread-safe: callers hold the shard's own monitor ({@code synchronized (shard)}) for every
 * call.
 */
final class KeyShard {

  final int capacity;
  final HashMap<String, KeyState> keys;
  KeyState oldest;
  KeyState newest;

  KeyShard(int capacity) {
    this.capacity = capacity;
    this.keys = HashMap.newHashMap(capacity);
  }

  KeyState get(String key) {
    return keys.get(key);
  }

  int size() {
    return keys.size();
  }

  void add(KeyState state) {
    keys.put(state.key, state);
    linkNewest(state);
  }

  void remove(KeyState state) {
    keys.remove(state.key);
    unlink(state);
  }

  /**
   * Returns the least recently active key, after moving keys predicted since they were last moved.
   *
   * @return the key; the shard must not be empty
   */
  KeyState oldestByActivity() {
    for (int moved = 0; oldest.predictedSinceListed && moved < keys.size(); moved++) {
      markActive(oldest);
    }
    return oldest;
  }

  void markActive(KeyState state) {
    state.predictedSinceListed = false;
    if (newest != state) {
      unlink(state);
      linkNewest(state);
    }
  }

  private void linkNewest(KeyState state) {
    state.older = newest;
    state.newer = null;
    if (newest != null) {
      newest.newer = state;
    } else {
      oldest = state;
    }
    newest = state;
  }

  private void unlink(KeyState state) {
    if (state.older != null) {
      state.older.newer = state.newer;
    } else {
      oldest = state.newer;
    }
    if (state.newer != null) {
      state.newer.older = state.older;
    } else {
      newest = state.older;
    }
    state.older = null;
    state.newer = null;
  }
}
