package io.harbinger.rabbit;

import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.Iterator;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Set;

/**
 * A read-only view of the caller's headers plus the {@link HarbingerHeaders#STAMP} header, which
 * replaces any caller value of that name.
 *
 * <p>Implementation notes. {@code AMQP.BasicProperties} copies the headers map it is given into a
 * {@code HashMap} of its own, so handing it this view instead of a merged copy saves one map per
 * publish without ever exposing or changing the caller's map (copy on write, DESIGN.md).
 *
 * <p>Not thread-safe; lives for one publish.
 */
final class StampedHeaders extends AbstractMap<String, Object> {

  private static final String NAME = HarbingerHeaders.STAMP;

  private final Map<String, Object> caller;
  private final String stamp;

  StampedHeaders(Map<String, Object> caller, Stamp stamp) {
    this(caller, stamp.headerValue());
  }

  /**
   * Creates the view.
   *
   * @param caller the caller's headers, or null
   * @param stamp the value of the stamp header
   */
  StampedHeaders(Map<String, Object> caller, String stamp) {
    this.caller = caller;
    this.stamp = stamp;
  }

  @Override
  public int size() {
    if (caller == null) {
      return 1;
    }
    return caller.containsKey(NAME) ? caller.size() : caller.size() + 1;
  }

  @Override
  public Object get(Object name) {
    if (NAME.equals(name)) {
      return stamp;
    }
    return caller == null ? null : caller.get(name);
  }

  @Override
  public boolean containsKey(Object name) {
    return NAME.equals(name) || (caller != null && caller.containsKey(name));
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
    private boolean ownDone;

    @Override
    public boolean hasNext() {
      if (next != null) {
        return true;
      }
      while (callerEntries != null && callerEntries.hasNext()) {
        Entry<String, Object> e = callerEntries.next();
        if (!NAME.equals(e.getKey())) {
          next = e;
          return true;
        }
      }
      if (ownDone) {
        return false;
      }
      next = new SimpleImmutableEntry<>(NAME, stamp);
      ownDone = true;
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
