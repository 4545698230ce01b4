package io.harbinger.check.trace;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Collects jobs in any order and builds a {@link Trace} sorted by arrival.
 *
 * <p>Example: {@code new TraceBuilder("test", 1_000_000).add(0, 5_000_000, "a", -1).build(report)}
 * is a one-job trace with a 5 ms job of key {@code "a"} and millisecond resolution.
 *
 * <p>Implementation notes: columns grow by doubling; keys are interned through a hash map into ids
 * in order of first appearance, so the same input gives the same ids. {@link #build} sorts with a
 * stable merge sort on an index permutation, skipped when the input is already in order (the usual
 * case for logs). Not thread-safe.
 */
public final class TraceBuilder {

  private final String name;
  private final long resolutionNanos;
  private final Map<String, Integer> keyIds = new HashMap<>();
  private String[] keys = new String[16];
  private long[] arrivals = new long[1024];
  private long[] durations = new long[1024];
  private int[] ids = new int[1024];
  private long[] sizes;
  private int count;
  private boolean sorted = true;

  /**
   * Creates an empty builder.
   *
   * @param name the trace's name, for reports
   * @param resolutionNanos the resolution of the recorded durations, at least 1
   */
  public TraceBuilder(String name, long resolutionNanos) {
    this.name = Objects.requireNonNull(name, "name");
    if (resolutionNanos < 1) {
      throw new IllegalArgumentException("resolutionNanos must be at least 1: " + resolutionNanos);
    }
    this.resolutionNanos = resolutionNanos;
  }

  /**
   * Returns the id of a key, adding it to the table if new.
   *
   * @param key a non-empty key
   * @return its id, in order of first appearance from 0
   */
  public int intern(String key) {
    Integer id = keyIds.get(key);
    if (id != null) {
      return id;
    }
    if (key.isEmpty()) {
      throw new IllegalArgumentException("key must not be empty");
    }
    int next = keyIds.size();
    if (next == keys.length) {
      keys = Arrays.copyOf(keys, next * 2);
    }
    keys[next] = key;
    keyIds.put(key, next);
    return next;
  }

  /**
   * Adds a job.
   *
   * @param arrivalNanos its arrival, any value on the trace's time line
   * @param durationNanos its duration, at least 0
   * @param key its key, non-empty
   * @param sizeHint its size, or -1 when unknown
   * @return this builder
   */
  public TraceBuilder add(long arrivalNanos, long durationNanos, String key, long sizeHint) {
    requireDuration(durationNanos);
    return add(arrivalNanos, durationNanos, intern(key), sizeHint);
  }

  /**
   * Adds a job whose key was interned with {@link #intern}.
   *
   * @param arrivalNanos its arrival, any value on the trace's time line
   * @param durationNanos its duration, at least 0
   * @param keyId an id returned by {@link #intern}
   * @param sizeHint its size, or -1 when unknown
   * @return this builder
   */
  public TraceBuilder add(long arrivalNanos, long durationNanos, int keyId, long sizeHint) {
    requireDuration(durationNanos);
    if (keyId < 0 || keyId >= keyIds.size()) {
      throw new IllegalArgumentException("keyId must be in [0, " + keyIds.size() + "): " + keyId);
    }
    if (count == arrivals.length) {
      int capacity = count * 2;
      arrivals = Arrays.copyOf(arrivals, capacity);
      durations = Arrays.copyOf(durations, capacity);
      ids = Arrays.copyOf(ids, capacity);
      if (sizes != null) {
        sizes = Arrays.copyOf(sizes, capacity);
      }
    }
    if (sizeHint >= 0 && sizes == null) {
      sizes = new long[arrivals.length];
      Arrays.fill(sizes, 0, count, -1);
    }
    if (count > 0 && arrivalNanos < arrivals[count - 1]) {
      sorted = false;
    }
    arrivals[count] = arrivalNanos;
    durations[count] = durationNanos;
    ids[count] = keyId;
    if (sizes != null) {
      sizes[count] = sizeHint < 0 ? -1 : sizeHint;
    }
    count++;
    return this;
  }

  private static void requireDuration(long durationNanos) {
    if (durationNanos < 0) {
      throw new IllegalArgumentException("durationNanos must be at least 0: " + durationNanos);
    }
  }

  /**
   * Returns the number of jobs added so far.
   *
   * @return the count
   */
  public int size() {
    return count;
  }

  /**
   * Builds the trace, sorted by arrival with ties in the order they were added.
   *
   * @param report the reader's report
   * @return the trace
   */
  public Trace build(ReadReport report) {
    long[] a = Arrays.copyOf(arrivals, count);
    long[] d = Arrays.copyOf(durations, count);
    int[] k = Arrays.copyOf(ids, count);
    long[] s = sizes == null ? null : Arrays.copyOf(sizes, count);
    if (!sorted) {
      int[] order = stableOrder(a);
      a = permute(a, order);
      d = permute(d, order);
      k = permute(k, order);
      s = s == null ? null : permute(s, order);
    }
    String[] table = Arrays.copyOf(keys, keyIds.size());
    return new Trace(name, a, d, k, s, table, resolutionNanos, report);
  }

  private static int[] stableOrder(long[] keys) {
    int n = keys.length;
    int[] order = new int[n];
    for (int i = 0; i < n; i++) {
      order[i] = i;
    }
    int[] buffer = new int[n];
    for (int width = 1; width < n; width *= 2) {
      for (int lo = 0; lo < n; lo += 2 * width) {
        int mid = Math.min(lo + width, n);
        int hi = Math.min(lo + 2 * width, n);
        int i = lo;
        int j = mid;
        int out = lo;
        while (i < mid && j < hi) {
          buffer[out++] = keys[order[j]] < keys[order[i]] ? order[j++] : order[i++];
        }
        while (i < mid) {
          buffer[out++] = order[i++];
        }
        while (j < hi) {
          buffer[out++] = order[j++];
        }
      }
      int[] swap = order;
      order = buffer;
      buffer = swap;
    }
    return order;
  }

  private static long[] permute(long[] values, int[] order) {
    long[] out = new long[values.length];
    for (int i = 0; i < order.length; i++) {
      out[i] = values[order[i]];
    }
    return out;
  }

  private static int[] permute(int[] values, int[] order) {
    int[] out = new int[values.length];
    for (int i = 0; i < order.length; i++) {
      out[i] = values[order[i]];
    }
    return out;
  }
}
