package io.harbinger.predictor;

/**
 * One lock shard of tracked keys: an intrusive hash table plus an intrusive recency list, least
 * recently active first.
 *
 * <p>The table chains the {@link KeyState}s themselves (each holds its key's hash and the next
 * state in its bucket) in an array of at least twice the shard's capacity, so a lookup reads the
 * bucket array and then the state, with no separate map entry between them: the publish path pays
 * one cache miss fewer than with a {@code HashMap}.
 *
 * <p>Observations move a key to the newest end of the recency list at once. Predictions only mark
 * the key (a prediction is activity too, but moving list nodes would cost the publish path more
 * cache misses); {@link #oldestByActivity()} moves marked keys to the newest end before it answers,
 * so the key it returns has been neither observed nor predicted since every key after it was (the
 * order among moved keys is approximate). Eviction still checks that key's own idle time against
 * its grace.
 *
 * <p>Not thread-safe: callers hold the shard's own monitor ({@code synchronized (shard)}) for every
 * call.
 */
final class KeyShard {

  final int capacity;
  private final KeyState[] buckets;
  private final int mask;
  private int size;
  KeyState oldest;
  KeyState newest;

  KeyShard(int capacity) {
    this.capacity = capacity;
    int length = Integer.highestOneBit(Math.max(2, capacity) * 2 - 1) << 1;
    this.buckets = new KeyState[length];
    this.mask = length - 1;
  }

  static int hash(String key) {
    int h = key.hashCode();
    return h ^ (h >>> 16);
  }

  KeyState get(String key) {
    int h = hash(key);
    for (KeyState s = buckets[h & mask]; s != null; s = s.nextInBucket) {
      if (s.hash == h && (s.key == key || s.key.equals(key))) {
        return s;
      }
    }
    return null;
  }

  int size() {
    return size;
  }

  void add(KeyState state) {
    assert get(state.key) == null : state.key;
    int index = state.hash & mask;
    state.nextInBucket = buckets[index];
    buckets[index] = state;
    size++;
    linkNewest(state);
  }

  void remove(KeyState state) {
    int index = state.hash & mask;
    KeyState previous = null;
    for (KeyState s = buckets[index]; s != null; previous = s, s = s.nextInBucket) {
      if (s == state) {
        if (previous == null) {
          buckets[index] = s.nextInBucket;
        } else {
          previous.nextInBucket = s.nextInBucket;
        }
        s.nextInBucket = null;
        size--;
        break;
      }
    }
    unlink(state);
  }

  /**
   * Returns the least recently active key, after moving keys predicted since they were last moved.
   *
   * @return the key; the shard must not be empty
   */
  KeyState oldestByActivity() {
    for (int moved = 0; oldest.predictedSinceListed && moved < size; moved++) {
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
