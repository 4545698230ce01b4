package io.harbinger.check.trace;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;

/**
 * The trace formats, by name: the registry behind {@code format:path} specifications.
 *
 * <p>Example: {@code TraceFormat.read("swf:traces/LPC-EGEE-2004-1.2-cln.swf.gz?key=user-queue")}
 * reads an SWF log keyed by user and queue. The option syntax is described in {@link TraceSpec};
 * each constant's Javadoc lists its options.
 */
public enum TraceFormat {

  /**
   * Standard Workload Format (Parallel Workloads Archive). Options: {@code key} = {@code
   * executable} (default, field 14), {@code user-queue} (fields 12 and 15), {@code user-executable}
   * (fields 12 and 14) or {@code user} (field 12); {@code status} = {@code all} (default: failed
   * and cancelled jobs are kept and counted) or {@code completed}; {@code maxprocs} = skip jobs on
   * more processors (field 5); {@code zero} = {@code keep} (default) or {@code skip} jobs whose run
   * time is 0.
   */
  SWF("swf", SwfReader::new),

  /**
   * Azure Functions 2021 invocations: {@code app,func,end_timestamp,duration} in seconds; arrival =
   * end - duration. Option {@code key} = {@code app-func} (default, app + "/" + func) or {@code
   * app}.
   */
  AZURE2021("azure2021", AzureFunctionsReader::new),

  /**
   * Alibaba GenAI serving trace 2026 (lora_request_trace.csv): arrival = gmt_create (UTC), duration
   * = exec_time_seconds. Options: {@code key} = a column name (default {@code
   * checkpoint_model_version_id}); {@code status} = {@code finished} (default: SUCCEED and FAILED),
   * {@code succeeded} or {@code all}; {@code size} = a numeric column used as the job size.
   */
  ALIBABA2026("alibaba2026", AlibabaRequestReader::new),

  /**
   * Plain CSV: {@code arrival_s,duration_s,key[,size]}, with an optional header line and {@code #}
   * comments. Option {@code resolution} = the duration resolution in seconds (default 0.001).
   */
  CSV("csv", PlainCsvReader::new),

  /**
   * The seeded synthetic generator: Poisson arrivals, per-key lognormal, bimodal or Pareto
   * durations, and an optional cost shift. Options are listed in {@link SyntheticGenerator}.
   */
  SYNTHETIC("synthetic", SyntheticGenerator::new);

  private final String id;
  private final Function<TraceSpec, TraceReader> factory;

  TraceFormat(String id, Function<TraceSpec, TraceReader> factory) {
    this.id = id;
    this.factory = factory;
  }

  /**
   * Returns the name used in specifications.
   *
   * @return for example {@code "swf"}
   */
  public String id() {
    return id;
  }

  /**
   * Creates a reader for a specification of this format.
   *
   * @param spec the specification; its format must be this one
   * @return a reader that reads the specification once
   */
  public TraceReader reader(TraceSpec spec) {
    if (spec.format() != this) {
      throw new IllegalArgumentException("spec format must be " + id + ": " + spec.format().id());
    }
    return factory.apply(spec);
  }

  /**
   * Returns the format with a given name, ignoring case; {@code azure} and {@code alibaba} are
   * accepted for the dated names.
   *
   * @param name the name
   * @return the format
   * @throws TraceException when no format has that name; the message lists the names
   */
  public static TraceFormat named(String name) throws TraceException {
    String n = name.toLowerCase(Locale.ROOT);
    switch (n) {
      case "azure" -> {
        return AZURE2021;
      }
      case "alibaba" -> {
        return ALIBABA2026;
      }
      default -> {
        for (TraceFormat f : values()) {
          if (f.id.equals(n)) {
            return f;
          }
        }
      }
    }
    throw new TraceException("unknown trace format '" + name + "': use one of " + names());
  }

  /**
   * Returns the names of all formats.
   *
   * @return the names in declaration order
   */
  public static List<String> names() {
    return Arrays.stream(values()).map(TraceFormat::id).toList();
  }

  /**
   * Parses a specification and reads its trace.
   *
   * @param spec a specification such as {@code "csv:jobs.csv"}; see {@link TraceSpec}
   * @return the trace, sorted by arrival
   * @throws TraceException when the specification is bad or the trace cannot be read
   */
  public static Trace read(String spec) throws TraceException {
    TraceSpec parsed = TraceSpec.parse(spec);
    return parsed.format().reader(parsed).read();
  }
}
