package io.harbinger.check.sim;

import io.harbinger.check.trace.Trace;
import java.util.Arrays;
import java.util.Objects;

/**
 * A trace prepared for simulation: split into history and evaluation, with arrivals compressed so
 * that the evaluation part offers a target load to the workers.
 *
 * <p>Example: an evaluation half spanning 10 h with 320 h of work, on 64 workers at load 0.5, has a
 * natural load of 320 / (64 x 10) = 0.5, so compress = 0.5 x 64 x 10 / 320 = 1 and arrivals keep
 * their spacing; at load 0.8 compress = 1.6 and every gap between arrivals shrinks by 1.6.
 *
 * <p>Implementation notes (seed paper section 4, with the original implementation's load scaling):
 * compress = load x workers x span / work, where span is the last minus the first evaluation
 * arrival and work the sum of evaluation durations; simulated arrival = (arrival - first evaluation
 * arrival) / compress, rounded to the nanosecond, so the evaluation starts at time 0 and history
 * rows fall at negative times. Durations are never scaled. The history's tertiles (sorted durations
 * at n/3 and 2n/3) define the oracle's and the static map's levels and the short, medium and long
 * classes: a duration at or below the first tertile is short, at or below the second medium,
 * otherwise long.
 */
public final class SimInput {

  private final Trace trace;
  private final int historyJobs;
  private final int workers;
  private final double load;
  private final double compress;
  private final long[] arrivalNanos;
  private final long firstEvaluationArrivalNanos;
  private final long[] tertilesNanos;

  private SimInput(Trace trace, int historyJobs, int workers, double load, double compress) {
    this.trace = trace;
    this.historyJobs = historyJobs;
    this.workers = workers;
    this.load = load;
    this.compress = compress;
    this.firstEvaluationArrivalNanos = trace.arrivalNanos(historyJobs);
    int n = trace.size() - historyJobs;
    this.arrivalNanos = new long[n];
    for (int i = 0; i < n; i++) {
      arrivalNanos[i] = simulatedNanos(trace.arrivalNanos(historyJobs + i));
    }
    long[] history = new long[historyJobs];
    for (int i = 0; i < historyJobs; i++) {
      history[i] = trace.durationNanos(i);
    }
    Arrays.sort(history);
    this.tertilesNanos =
        historyJobs == 0
            ? new long[] {0, 0}
            : new long[] {
              history[historyJobs / 3], history[Math.min(historyJobs - 1, 2 * historyJobs / 3)]
            };
  }

  /**
   * Prepares a trace at a target load.
   *
   * @param trace the trace, sorted by arrival
   * @param historyJobs the leading jobs that form the history, in [1, size - 2]
   * @param workers the number of workers, in [1, 100000]
   * @param load the evaluation part's offered load, in (0, 1.5]
   * @return the input
   * @throws IllegalArgumentException when a parameter is out of range, or the evaluation part has
   *     no span or no work
   */
  public static SimInput atLoad(Trace trace, int historyJobs, int workers, double load) {
    check(trace, historyJobs, workers);
    if (!(load > 0 && load <= 1.5)) {
      throw new IllegalArgumentException("load must be in (0, 1.5]: " + load);
    }
    double natural = naturalLoad(trace, historyJobs, workers);
    return new SimInput(trace, historyJobs, workers, load, load / natural);
  }

  /**
   * Prepares a trace at its own load: arrivals keep their spacing (compress = 1).
   *
   * @param trace the trace, sorted by arrival
   * @param historyJobs the leading jobs that form the history, in [1, size - 2]
   * @param workers the number of workers, in [1, 100000]
   * @return the input
   */
  public static SimInput atOwnLoad(Trace trace, int historyJobs, int workers) {
    check(trace, historyJobs, workers);
    return new SimInput(trace, historyJobs, workers, naturalLoad(trace, historyJobs, workers), 1);
  }

  private static void check(Trace trace, int historyJobs, int workers) {
    Objects.requireNonNull(trace, "trace");
    if (historyJobs < 1 || historyJobs > trace.size() - 2) {
      throw new IllegalArgumentException(
          "history jobs must be in [1, " + (trace.size() - 2) + "]: " + historyJobs);
    }
    if (workers < 1 || workers > 100_000) {
      throw new IllegalArgumentException("workers must be in [1, 100000]: " + workers);
    }
  }

  /**
   * Returns the load the evaluation part offers at its recorded arrival times.
   *
   * @param trace the trace
   * @param historyJobs the history length
   * @param workers the number of workers
   * @return work / (workers x span)
   * @throws IllegalArgumentException when the span or the work is zero
   */
  static double naturalLoad(Trace trace, int historyJobs, int workers) {
    long span = trace.arrivalNanos(trace.size() - 1) - trace.arrivalNanos(historyJobs);
    double work = 0;
    for (int i = historyJobs; i < trace.size(); i++) {
      work += trace.durationNanos(i);
    }
    if (span <= 0 || work <= 0) {
      throw new IllegalArgumentException(
          "the evaluation part needs a positive span and positive work: span "
              + span
              + " ns, work "
              + work
              + " ns");
    }
    return work / ((double) workers * span);
  }

  long simulatedNanos(long traceArrivalNanos) {
    return Math.round((traceArrivalNanos - firstEvaluationArrivalNanos) / compress);
  }

  /** Returns the trace. */
  public Trace trace() {
    return trace;
  }

  /** Returns the number of history jobs (the evaluation starts at this index). */
  public int historyJobs() {
    return historyJobs;
  }

  /** Returns the number of evaluation jobs. */
  public int evaluationJobs() {
    return arrivalNanos.length;
  }

  /** Returns the number of workers. */
  public int workers() {
    return workers;
  }

  /** Returns the offered load of the evaluation part. */
  public double load() {
    return load;
  }

  /** Returns the factor by which arrival gaps shrink (above 1) or grow (below 1). */
  public double compress() {
    return compress;
  }

  /**
   * Returns an evaluation job's simulated arrival.
   *
   * @param job in [0, evaluationJobs)
   * @return nanoseconds from the first evaluation arrival
   */
  public long arrivalNanos(int job) {
    return arrivalNanos[job];
  }

  /**
   * Returns an evaluation job's duration.
   *
   * @param job in [0, evaluationJobs)
   * @return nanoseconds
   */
  public long durationNanos(int job) {
    return trace.durationNanos(historyJobs + job);
  }

  /**
   * Returns a history tertile.
   *
   * @param index 0 for the first, 1 for the second
   * @return nanoseconds
   */
  public long tertileNanos(int index) {
    return tertilesNanos[index];
  }

  /**
   * Returns the tier of a duration at the history tertiles: 0 short, 1 medium, 2 long.
   *
   * @param durationNanos the duration
   * @return the tier
   */
  public int tierOf(double durationNanos) {
    if (durationNanos <= tertilesNanos[0]) {
      return 0;
    }
    return durationNanos <= tertilesNanos[1] ? 1 : 2;
  }
}
