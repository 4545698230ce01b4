package io.harbinger.rabbit.internal;

import io.harbinger.rabbit.HarbingerHeaders;
import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.Iterator;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Set;

/**
 * A read-only view of the caller's headers plus the three {@code x-harbinger-*} headers, which
 * replace any caller value of the same name.
 *
 * <p>Implementation notes. {@code AMQP.BasicProperties} copies the headers map it is given into a
 * {@code HashMap} of its own, so handing it this view instead of a merged copy saves one map per
 * publish without ever exposing or changing the caller's map (copy on write, DESIGN.md).
 *
 * <p>Not thread-safe; lives for one publish.
 */
final class StampedHeaders extends AbstractMap<String, Object> {

  private final Map<String, Object> caller;
  private final Object publishedAt;
  private final Object level;
  private final Object mode;

  StampedHeaders(Map<String, Object> caller, Object publishedAt, Object level, Object mode) {
    this.caller = caller;
    this.publishedAt = publishedAt;
    this.level = level;
    this.mode = mode;
  }

  private static boolean isOurs(Object name) {
    return HarbingerHeaders.PUBLISHED_AT.equals(name)
        || HarbingerHeaders.LEVEL.equals(name)
        || HarbingerHeaders.MODE.equals(name);
  }

  @Override
  public int size() {
    if (caller == null) {
      return 3;
    }
    int overlap =
        (caller.containsKey(HarbingerHeaders.PUBLISHED_AT) ? 1 : 0)
            + (caller.containsKey(HarbingerHeaders.LEVEL) ? 1 : 0)
            + (caller.containsKey(HarbingerHeaders.MODE) ? 1 : 0);
    return caller.size() + 3 - overlap;
  }

  @Override
  public Object get(Object name) {
    if (HarbingerHeaders.PUBLISHED_AT.equals(name)) {
      return publishedAt;
    }
    if (HarbingerHeaders.LEVEL.equals(name)) {
      return level;
    }
    if (HarbingerHeaders.MODE.equals(name)) {
      return mode;
    }
    return caller == null ? null : caller.get(name);
  }

  @Override
  public boolean containsKey(Object name) {
    return isOurs(name) || (caller != null && caller.containsKey(name));
  }

  @Override
  public Set<Entry<String, Object>> entrySet() {
    return new AbstractSet<>() {
      @Override
      public Iterator<Entry<String, Object>> iterator() {
        return new Entries();
      }

      @Override
      public int size() {
        return StampedHeaders.this.size();
      }
    };
  }

  private final class Entries implements Iterator<Entry<String, Object>> {
    private final Iterator<Entry<String, Object>> callerEntries =
        caller == null ? null : caller.entrySet().iterator();
    private Entry<String, Object> next;
    private int own;

    @Override
    public boolean hasNext() {
      if (next != null) {
        return true;
      }
      while (callerEntries != null && callerEntries.hasNext()) {
        Entry<String, Object> e = callerEntries.next();
        if (!isOurs(e.getKey())) {
          next = e;
          return true;
        }
      }
      switch (own) {
        case 0 -> next = new SimpleImmutableEntry<>(HarbingerHeaders.PUBLISHED_AT, publishedAt);
        case 1 -> next = new SimpleImmutableEntry<>(HarbingerHeaders.LEVEL, level);
        case 2 -> next = new SimpleImmutableEntry<>(HarbingerHeaders.MODE, mode);
        default -> {
          return false;
        }
      }
      own++;
      return true;
    }

    @Override
    public Entry<String, Object> next() {
      if (!hasNext()) {
        throw new NoSuchElementException();
      }
      Entry<String, Object> e = next;
      next = null;
      return e;
    }
  }
}
