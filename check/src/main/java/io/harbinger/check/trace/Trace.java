package io.harbinger.check.trace;

import java.util.Objects;

/**
 * A job trace in memory: for each job its arrival, its duration, its key and optionally a size,
 * sorted by arrival (stable: jobs that arrive together keep their input order).
 *
 * <p>Jobs are stored column-wise in parallel primitive arrays, with keys interned as {@code int}
 * ids into a table of strings, so a trace of a million jobs takes about 20 MB (8 + 8 + 4 bytes a
 * job; 28 MB when sizes are recorded) plus its key table, and a simulator streams it without
 * boxing. Job {@code i} is described by {@link #arrivalNanos(int)}, {@link #durationNanos(int)},
 * {@link #keyId(int)} (and {@link #key(int)}) and {@link #sizeHint(int)}.
 *
 * <p>Arrivals are in nanoseconds on the trace's own time line (the reader's notes say which origin:
 * seconds since an SWF log's UnixStartTime, Unix epoch time for the Alibaba trace, and so on); only
 * differences between arrivals matter to a replay. Durations are non-negative nanoseconds, recorded
 * at the trace's {@link #resolutionNanos() resolution}.
 *
 * <p>Assumptions and guarantees: immutable after construction, so safe to share between threads.
 */
public final class Trace {

  private final String name;
  private final long[] arrivalNanos;
  private final long[] durationNanos;
  private final int[] keyIds;
  private final long[] sizes;
  private final String[] keys;
  private final long resolutionNanos;
  private final ReadReport report;

  Trace(
      String name,
      long[] arrivalNanos,
      long[] durationNanos,
      int[] keyIds,
      long[] sizes,
      String[] keys,
      long resolutionNanos,
      ReadReport report) {
    this.name = Objects.requireNonNull(name, "name");
    this.arrivalNanos = arrivalNanos;
    this.durationNanos = durationNanos;
    this.keyIds = keyIds;
    this.sizes = sizes;
    this.keys = keys;
    this.resolutionNanos = resolutionNanos;
    this.report = Objects.requireNonNull(report, "report");
    assert arrivalNanos.length == durationNanos.length && keyIds.length == arrivalNanos.length;
    assert sizes == null || sizes.length == arrivalNanos.length;
  }

  /**
   * Returns the trace's name: the specification it was read from.
   *
   * @return for example {@code "swf:/data/LPC-EGEE.swf.gz?key=user-queue"}
   */
  public String name() {
    return name;
  }

  /**
   * Returns the number of jobs.
   *
   * @return at least 1 for a trace read from a file
   */
  public int size() {
    return arrivalNanos.length;
  }

  /**
   * Returns a job's arrival.
   *
   * @param job the job's index in [0, size()), in arrival order
   * @return nanoseconds on the trace's time line; never less than the previous job's
   */
  public long arrivalNanos(int job) {
    return arrivalNanos[job];
  }

  /**
   * Returns a job's duration.
   *
   * @param job the job's index in [0, size())
   * @return nanoseconds, at least 0
   */
  public long durationNanos(int job) {
    return durationNanos[job];
  }

  /**
   * Returns a job's interned key.
   *
   * @param job the job's index in [0, size())
   * @return the key's id in [0, keyCount())
   */
  public int keyId(int job) {
    return keyIds[job];
  }

  /**
   * Returns a job's key.
   *
   * @param job the job's index in [0, size())
   * @return the key string
   */
  public String key(int job) {
    return keys[keyIds[job]];
  }

  /**
   * Returns the number of distinct keys.
   *
   * @return the size of the key table
   */
  public int keyCount() {
    return keys.length;
  }

  /**
   * Returns the key with a given id.
   *
   * @param keyId the id in [0, keyCount())
   * @return the key string
   */
  public String keyName(int keyId) {
    return keys[keyId];
  }

  /**
   * Returns whether the trace records job sizes.
   *
   * @return true when {@link #sizeHint(int)} can return something other than -1
   */
  public boolean hasSizes() {
    return sizes != null;
  }

  /**
   * Returns a job's size (processors for SWF, a chosen column for CSV traces).
   *
   * @param job the job's index in [0, size())
   * @return the size, or -1 when unknown
   */
  public long sizeHint(int job) {
    return sizes == null ? -1 : sizes[job];
  }

  /**
   * Returns the resolution of the recorded durations: 1 s for SWF and the Alibaba trace, 1 ms for
   * Azure.
   *
   * @return nanoseconds, at least 1
   */
  public long resolutionNanos() {
    return resolutionNanos;
  }

  /**
   * Returns what the reader read, used and skipped.
   *
   * @return the reader's report
   */
  public ReadReport report() {
    return report;
  }
}
