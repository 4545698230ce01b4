package io.harbinger.rabbit.internal;

import io.harbinger.rabbit.Stamp;
import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.Iterator;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Set;

/**
 * A read-only view of the caller's headers plus a {@link Stamp}'s headers, which replace any caller
 * value of the same name.
 *
 * <p>Implementation notes. {@code AMQP.BasicProperties} copies the headers map it is given into a
 * {@code HashMap} of its own, so handing it this view instead of a merged copy saves one map per
 * publish without ever exposing or changing the caller's map (copy on write, DESIGN.md).
 *
 * <p>Not thread-safe; lives for one publish.
 */
final class StampedHeaders extends AbstractMap<String, Object> {

  private final Map<String, Object> caller;
  private final Long publishedAtMicros;
  private final Integer level;
  private final String mode;

  StampedHeaders(Map<String, Object> caller, Stamp stamp) {
    this(caller, stamp.publishedAtMicros(), stamp.level(), stamp.mode());
  }

  StampedHeaders(Map<String, Object> caller, Long publishedAtMicros, Integer level, String mode) {
    this.caller = caller;
    this.publishedAtMicros = publishedAtMicros;
    this.level = level;
    this.mode = mode;
  }

  private Object value(int index) {
    return Stamp.headerValue(index, publishedAtMicros, level, mode);
  }

  private static int ours(Object name) {
    return Stamp.HEADER_NAMES.indexOf(name);
  }

  @Override
  public int size() {
    int own = Stamp.HEADER_NAMES.size();
    if (caller == null) {
      return own;
    }
    int overlap = 0;
    for (int i = 0; i < own; i++) {
      if (caller.containsKey(Stamp.HEADER_NAMES.get(i))) {
        overlap++;
      }
    }
    return caller.size() + own - overlap;
  }

  @Override
  public Object get(Object name) {
    int i = ours(name);
    if (i >= 0) {
      return value(i);
    }
    return caller == null ? null : caller.get(name);
  }

  @Override
  public boolean containsKey(Object name) {
    return ours(name) >= 0 || (caller != null && caller.containsKey(name));
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
        if (ours(e.getKey()) < 0) {
          next = e;
          return true;
        }
      }
      if (own >= Stamp.HEADER_NAMES.size()) {
        return false;
      }
      next = new SimpleImmutableEntry<>(Stamp.HEADER_NAMES.get(own), value(own));
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
