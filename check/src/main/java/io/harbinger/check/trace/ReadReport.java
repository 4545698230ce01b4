package io.harbinger.check.trace;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * What a reader did with its input: rows read, rows used, rows skipped by reason and rows kept with
 * a caveat by reason, each with the first few line numbers, and notes on how the trace was keyed.
 *
 * <p>Example: reading an SWF log of 234,889 jobs of which 14,194 have run time -1 gives {@code
 * rowsRead} 234,889, {@code rowsUsed} 220,695 and one skip reason {@code "run time unknown
 * (negative)"} with count 14,194 and its first five line numbers.
 *
 * @param source the file or generator the rows came from
 * @param rowsRead data rows read (header, comment and blank lines excluded)
 * @param rowsUsed rows that became jobs, in [0, rowsRead]
 * @param skipped rows left out, by reason, in order of first occurrence
 * @param kept rows used despite a caveat (for example a job that did not complete), by reason
 * @param notes how the rows were interpreted (key, time origin, options)
 */
public record ReadReport(
    String source,
    long rowsRead,
    long rowsUsed,
    List<RowTally> skipped,
    List<RowTally> kept,
    List<String> notes) {

  /** How many line numbers each tally keeps. */
  public static final int LINES_KEPT = 5;

  /** Checks the counts and copies the lists. */
  public ReadReport {
    Objects.requireNonNull(source, "source");
    if (rowsRead < 0 || rowsUsed < 0 || rowsUsed > rowsRead) {
      throw new IllegalArgumentException(
          "rows used must be in [0, rows read]: used " + rowsUsed + ", read " + rowsRead);
    }
    skipped = List.copyOf(skipped);
    kept = List.copyOf(kept);
    notes = List.copyOf(notes);
  }

  /**
   * Returns the rows skipped for any reason.
   *
   * @return rowsRead - rowsUsed
   */
  public long rowsSkipped() {
    return rowsRead - rowsUsed;
  }

  /**
   * Returns the report as indented lines of text, for people.
   *
   * @return one line for the counts, one per reason and one per note
   */
  public List<String> describe() {
    List<String> lines = new ArrayList<>();
    lines.add(
        String.format(
            Locale.ROOT,
            "%s: %,d rows read, %,d used, %,d skipped",
            source,
            rowsRead,
            rowsUsed,
            rowsSkipped()));
    for (RowTally t : skipped) {
      lines.add("  skipped " + t.describe());
    }
    for (RowTally t : kept) {
      lines.add("  kept " + t.describe());
    }
    for (String note : notes) {
      lines.add("  note: " + note);
    }
    return lines;
  }

  /**
   * Rows that share a reason.
   *
   * @param reason why the rows were skipped or flagged
   * @param count how many rows, at least 1
   * @param firstLines the 1-based line numbers of the first {@value ReadReport#LINES_KEPT} rows at
   *     most, ascending
   */
  public record RowTally(String reason, long count, List<Long> firstLines) {

    /** Checks the fields and copies the list. */
    public RowTally {
      Objects.requireNonNull(reason, "reason");
      if (count < 1) {
        throw new IllegalArgumentException("count must be at least 1: " + count);
      }
      firstLines = List.copyOf(firstLines);
    }

    String describe() {
      StringBuilder s = new StringBuilder();
      s.append(String.format(Locale.ROOT, "%,d: %s (line", count, reason));
      s.append(firstLines.size() > 1 ? "s " : " ");
      for (int i = 0; i < firstLines.size(); i++) {
        s.append(i == 0 ? "" : ", ").append(firstLines.get(i));
      }
      s.append(count > firstLines.size() ? ", ...)" : ")");
      return s.toString();
    }
  }
}
