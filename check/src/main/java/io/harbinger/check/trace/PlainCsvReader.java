package io.harbinger.check.trace;

import java.util.List;
import java.util.Set;

/**
 * Reads the plain CSV trace format: {@code arrival_s,duration_s,key[,size]}, one job a line.
 *
 * <p>Example file:
 *
 * <pre>
 * arrival_s,duration_s,key,size
 * 0.000,0.005,shop/reserve,
 * 0.120,2.100,shop/export,40000
 * </pre>
 *
 * <p>Implementation notes. The first non-blank, non-comment line is a header when its first field
 * is not a number, and is otherwise the first job. Lines starting with {@code #} are comments.
 * Arrival and duration are decimal seconds; size, when present and non-empty, is a non-negative
 * integer. Rows with another field count, an empty key, a non-numeric or negative duration, a
 * non-numeric arrival or a bad size are skipped with their line numbers. The duration resolution is
 * the {@code resolution} option in seconds (default 0.001).
 */
final class PlainCsvReader implements TraceReader {

  private final TraceSpec spec;

  PlainCsvReader(TraceSpec spec) {
    this.spec = spec;
  }

  @Override
  public Trace read() throws TraceException {
    spec.requireOnly(Set.of("resolution"));
    double resolutionSeconds = spec.doubleOption("resolution", 0.001, 1e-9, 3600);
    ReadTally tally = new ReadTally(spec.path().toString());
    TraceBuilder builder =
        new TraceBuilder(spec.text(), Math.max(1, LineFields.secondsToNanos(resolutionSeconds)));
    boolean[] first = {true};
    TraceInput.forEachLine(
        spec.path(),
        (line, number) -> {
          if (line.isBlank() || line.startsWith("#")) {
            return;
          }
          List<String> fields = LineFields.splitCsv(line);
          if (first[0]) {
            first[0] = false;
            if (Double.isNaN(LineFields.parseDouble(fields.get(0).strip()))) {
              tally.note("header: " + LineFields.abbreviate(line));
              return;
            }
          }
          tally.read();
          if (fields.size() != 3 && fields.size() != 4) {
            tally.skip("expected 3 or 4 fields (arrival_s,duration_s,key[,size])", number);
            return;
          }
          double arrival = LineFields.parseDouble(fields.get(0).strip());
          double duration = LineFields.parseDouble(fields.get(1).strip());
          String key = fields.get(2).strip();
          if (Double.isNaN(arrival) || Math.abs(arrival) > 9e9) {
            tally.skip("arrival_s is not a number of seconds", number);
            return;
          }
          if (Double.isNaN(duration) || duration < 0 || duration > 9e9) {
            tally.skip("duration_s is not a non-negative number of seconds", number);
            return;
          }
          if (key.isEmpty()) {
            tally.skip("empty key", number);
            return;
          }
          long size = -1;
          if (fields.size() == 4 && !fields.get(3).isBlank()) {
            String s = fields.get(3).strip();
            size = LineFields.parseLong(s, 0, s.length());
            if (size < 0) {
              tally.skip("size is not a non-negative integer", number);
              return;
            }
          }
          builder.add(
              LineFields.secondsToNanos(arrival), LineFields.secondsToNanos(duration), key, size);
          tally.used();
        });
    tally.note("arrival_s and duration_s in seconds; key as written");
    tally.requireUsable();
    return builder.build(tally.report());
  }
}
