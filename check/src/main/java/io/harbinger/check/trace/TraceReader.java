package io.harbinger.check.trace;

/**
 * Reads or generates one trace. Instances are made by {@link TraceFormat#reader(TraceSpec)} for one
 * specification and read once.
 */
@FunctionalInterface
public interface TraceReader {

  /**
   * Reads the whole trace into memory, sorted by arrival.
   *
   * @return the trace, with at least one job
   * @throws TraceException when the input is missing or unreadable, a header or option is wrong, or
   *     no row is usable; the message names the file
   */
  Trace read() throws TraceException;
}
