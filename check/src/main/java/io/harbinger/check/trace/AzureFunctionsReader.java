package io.harbinger.check.trace;

import java.util.List;
import java.util.Set;

/**
 * Reads the Azure Functions 2021 invocation trace: a CSV with the header {@code
 * app,func,end_timestamp,duration}, times in seconds.
 *
 * <p>Implementation notes (seed paper section 4, Table 4, with the original implementation's key
 * format): arrival = end_timestamp - duration, duration = duration, key = app + "/" + func (or the
 * app alone with {@code key=app}). The header is required and must be exactly those four names, so
 * a file of another format fails at line 1 rather than producing nonsense. Rows with another field
 * count, an empty app or function, a non-numeric time or a negative duration are skipped with their
 * line numbers. The duration resolution is 1 ms, as published.
 */
final class AzureFunctionsReader implements TraceReader {

  static final String HEADER = "app,func,end_timestamp,duration";

  private final TraceSpec spec;

  AzureFunctionsReader(TraceSpec spec) {
    this.spec = spec;
  }

  @Override
  public Trace read() throws TraceException {
    spec.requireOnly(Set.of("key"));
    boolean appOnly = spec.choiceOption("key", "app-func", Set.of("app-func", "app")).equals("app");
    String file = spec.path().toString();
    ReadTally tally = new ReadTally(file);
    TraceBuilder builder = new TraceBuilder(spec.text(), 1_000_000L);
    boolean[] headerSeen = {false};
    TraceInput.forEachLine(
        spec.path(),
        (line, number) -> {
          if (line.isBlank()) {
            return;
          }
          if (!headerSeen[0]) {
            String header = line.strip();
            if (!header.equals(HEADER)) {
              throw new TraceException(
                  file
                      + " line "
                      + number
                      + ": expected the header "
                      + HEADER
                      + ", found: "
                      + LineFields.abbreviate(line));
            }
            headerSeen[0] = true;
            return;
          }
          tally.read();
          List<String> fields = LineFields.splitCsv(line);
          if (fields.size() != 4) {
            tally.skip("expected 4 fields", number);
            return;
          }
          String app = fields.get(0);
          String func = fields.get(1);
          if (app.isEmpty() || func.isEmpty()) {
            tally.skip("empty app or func", number);
            return;
          }
          double end = LineFields.parseDouble(fields.get(2));
          double duration = LineFields.parseDouble(fields.get(3));
          if (Double.isNaN(end)) {
            tally.skip("end_timestamp is not a number", number);
            return;
          }
          if (Double.isNaN(duration)) {
            tally.skip("duration is not a number", number);
            return;
          }
          if (duration < 0) {
            tally.skip("negative duration", number);
            return;
          }
          builder.add(
              LineFields.secondsToNanos(end - duration),
              LineFields.secondsToNanos(duration),
              appOnly ? app : app + "/" + func,
              -1);
          tally.used();
        });
    if (!headerSeen[0]) {
      throw new TraceException(file + ": empty file, expected the header " + HEADER);
    }
    tally.note(appOnly ? "keyed by app" : "keyed by app/func");
    tally.note("arrival = end_timestamp - duration, seconds from the trace's start");
    tally.requireUsable();
    return builder.build(tally.report());
  }
}
