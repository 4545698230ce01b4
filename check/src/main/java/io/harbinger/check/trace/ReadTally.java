package io.harbinger.check.trace;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** Counts rows while a reader runs and produces its {@link ReadReport}. Not thread-safe. */
final class ReadTally {

  private final String source;
  private final Map<String, Counter> skipped = new LinkedHashMap<>();
  private final Map<String, Counter> kept = new LinkedHashMap<>();
  private final List<String> notes = new ArrayList<>();
  private long rowsRead;
  private long rowsUsed;

  ReadTally(String source) {
    this.source = source;
  }

  String source() {
    return source;
  }

  void read() {
    rowsRead++;
  }

  void used() {
    rowsUsed++;
  }

  void readAndUsed(long rows) {
    rowsRead += rows;
    rowsUsed += rows;
  }

  long rowsUsed() {
    return rowsUsed;
  }

  void skip(String reason, long line) {
    skipped.computeIfAbsent(reason, r -> new Counter()).add(line);
  }

  long skippedFor(String reason) {
    Counter c = skipped.get(reason);
    return c == null ? 0 : c.count;
  }

  void keep(String reason, long line) {
    kept.computeIfAbsent(reason, r -> new Counter()).add(line);
  }

  void note(String note) {
    notes.add(note);
  }

  ReadReport report() {
    return new ReadReport(source, rowsRead, rowsUsed, tallies(skipped), tallies(kept), notes);
  }

  /**
   * Throws when no row was usable, naming the file and the reasons.
   *
   * @throws TraceException when no row was used
   */
  void requireUsable() throws TraceException {
    requireUsable(null);
  }

  /**
   * Throws when no row was usable, naming the file, the reasons and a hint.
   *
   * @param hint what the user might do, or null
   * @throws TraceException when no row was used
   */
  void requireUsable(String hint) throws TraceException {
    if (rowsUsed > 0) {
      return;
    }
    StringBuilder s = new StringBuilder("no usable row in ").append(source);
    if (rowsRead == 0) {
      s.append(": the file holds no data row");
    } else {
      s.append(String.format(Locale.ROOT, ": %,d rows read, all skipped", rowsRead));
      for (ReadReport.RowTally t : tallies(skipped)) {
        s.append("; ").append(t.describe());
      }
    }
    if (hint != null) {
      s.append(" (").append(hint).append(')');
    }
    throw new TraceException(s.toString());
  }

  private static List<ReadReport.RowTally> tallies(Map<String, Counter> counters) {
    List<ReadReport.RowTally> out = new ArrayList<>(counters.size());
    counters.forEach((reason, c) -> out.add(new ReadReport.RowTally(reason, c.count, c.lines)));
    return out;
  }

  private static final class Counter {
    private long count;
    private final List<Long> lines = new ArrayList<>(ReadReport.LINES_KEPT);

    void add(long line) {
      count++;
      if (lines.size() < ReadReport.LINES_KEPT) {
        lines.add(line);
      }
    }
  }
}
