/**
 * Job traces for replay, simulation and the predictability check: one compact in-memory job model
 * and the readers that fill it.
 *
 * <p>Public API: {@link io.harbinger.check.trace.Trace} (the jobs, as parallel primitive arrays
 * sorted by arrival), {@link io.harbinger.check.trace.TraceFormat} (the registry of readers by
 * name), {@link io.harbinger.check.trace.TraceSpec} (a parsed {@code format:path?option=value,...}
 * string), {@link io.harbinger.check.trace.ReadReport} (what a reader kept and skipped, with line
 * numbers) and {@link io.harbinger.check.trace.TraceException}. {@link
 * io.harbinger.check.trace.TraceBuilder} builds traces for tests and generators. The readers
 * themselves are package-private behind the {@link io.harbinger.check.trace.TraceReader} interface;
 * they are reached through {@link io.harbinger.check.trace.TraceFormat}.
 */
package io.harbinger.check.trace;
