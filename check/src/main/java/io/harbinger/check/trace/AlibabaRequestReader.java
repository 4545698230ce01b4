package io.harbinger.check.trace;

import java.time.DateTimeException;
import java.time.LocalDate;
import java.util.List;
import java.util.Set;

/**
 * Reads the Alibaba GenAI serving trace of 2026 (cluster-trace-v2026-GenAI, {@code
 * lora_request_trace.csv}): one request a row, with a header naming the columns.
 *
 * <p>Arrival = {@code gmt_create}, duration = {@code exec_time_seconds}, key = {@code
 * checkpoint_model_version_id} unless the {@code key} option names another column ({@code
 * predict_type}, {@code groupId}, ...). {@code size} may name a numeric column to use as the job
 * size (for example {@code num_inference_steps}).
 *
 * <p>Implementation notes. {@code gmt_create} is read as UTC, in the form {@code yyyy-MM-dd
 * HH:mm:ss} (a {@code T} separator and a fraction of a second are accepted) or as Unix epoch
 * seconds; anything else skips the row with its line number. Requests whose {@code predict_status}
 * is PENDING or PROCESSING have no finished execution (their {@code exec_time_seconds} is 0) and
 * are skipped by default; FAILED requests ran for their recorded time and are kept and counted
 * ({@code status=finished}). {@code status=succeeded} keeps only SUCCEED, {@code status=all} keeps
 * every row. Columns are found by name, so their order does not matter; a missing column is an
 * error naming it. Durations have a resolution of 1 s, as published.
 */
final class AlibabaRequestReader implements TraceReader {

  private static final long NANOS_PER_SECOND = 1_000_000_000L;

  private final TraceSpec spec;

  AlibabaRequestReader(TraceSpec spec) {
    this.spec = spec;
  }

  @Override
  public Trace read() throws TraceException {
    spec.requireOnly(Set.of("key", "status", "size"));
    String keyColumn = spec.option("key", "checkpoint_model_version_id");
    String sizeColumn = spec.option("size", null);
    String status = spec.choiceOption("status", "finished", Set.of("finished", "succeeded", "all"));
    String file = spec.path().toString();
    ReadTally tally = new ReadTally(file);
    TraceBuilder builder = new TraceBuilder(spec.text(), NANOS_PER_SECOND);
    Columns c = new Columns();
    TraceInput.forEachLine(
        spec.path(),
        (line, number) -> {
          if (line.isBlank()) {
            return;
          }
          List<String> fields = LineFields.splitCsv(line);
          if (c.count == 0) {
            c.count = fields.size();
            c.arrival = require(fields, "gmt_create", file);
            c.duration = require(fields, "exec_time_seconds", file);
            c.status = require(fields, "predict_status", file);
            c.key = require(fields, keyColumn, file);
            c.size = sizeColumn == null ? -1 : require(fields, sizeColumn, file);
            return;
          }
          tally.read();
          if (fields.size() != c.count) {
            tally.skip("expected " + c.count + " fields as in the header", number);
            return;
          }
          String state = fields.get(c.status);
          boolean kept = false;
          if (!state.equals("SUCCEED") && !status.equals("all")) {
            if (status.equals("succeeded") || !state.equals("FAILED")) {
              tally.skip("predict_status " + (state.isEmpty() ? "empty" : state), number);
              return;
            }
            kept = true;
          }
          String key = fields.get(c.key);
          if (key.isEmpty()) {
            tally.skip("empty " + keyColumn, number);
            return;
          }
          long arrivalNanos = parseTimestampNanos(fields.get(c.arrival));
          if (arrivalNanos == LineFields.NOT_A_NUMBER) {
            tally.skip("gmt_create is not a timestamp (yyyy-MM-dd HH:mm:ss or epoch s)", number);
            return;
          }
          double duration = LineFields.parseDouble(fields.get(c.duration));
          if (Double.isNaN(duration) || duration < 0) {
            tally.skip("exec_time_seconds is not a non-negative number", number);
            return;
          }
          long size = -1;
          if (c.size >= 0) {
            double s = LineFields.parseDouble(fields.get(c.size));
            if (!Double.isNaN(s) && s >= 0) {
              size = Math.round(s);
            }
          }
          if (kept) {
            tally.keep("predict_status " + state + " (ran for its recorded time)", number);
          }
          builder.add(arrivalNanos, Math.round(duration * NANOS_PER_SECOND), key, size);
          tally.used();
        });
    if (c.count == 0) {
      throw new TraceException(file + ": empty file, expected a header with gmt_create");
    }
    tally.note("keyed by column " + keyColumn);
    tally.note("arrival = gmt_create read as UTC, in Unix epoch time");
    tally.note(
        switch (status) {
          case "finished" -> "SUCCEED and FAILED requests used; PENDING and PROCESSING skipped";
          case "succeeded" -> "only SUCCEED requests used";
          default -> "requests of every status used";
        });
    if (sizeColumn != null) {
      tally.note("size = column " + sizeColumn);
    }
    tally.requireUsable();
    return builder.build(tally.report());
  }

  private static int require(List<String> header, String column, String file)
      throws TraceException {
    int i = header.indexOf(column);
    if (i < 0) {
      throw new TraceException(
          file
              + " line 1: the header has no column '"
              + column
              + "' (columns: "
              + String.join(",", header)
              + ")");
    }
    return i;
  }

  /**
   * Parses a timestamp as UTC.
   *
   * @param text {@code yyyy-MM-dd HH:mm:ss[.fff]}, with a space or {@code T}, or epoch seconds
   * @return nanoseconds since the Unix epoch, or {@link LineFields#NOT_A_NUMBER}
   */
  static long parseTimestampNanos(String text) {
    int n = text.length();
    if (n >= 19 && text.charAt(4) == '-' && text.charAt(7) == '-') {
      char sep = text.charAt(10);
      if ((sep != ' ' && sep != 'T')
          || text.charAt(13) != ':'
          || text.charAt(16) != ':'
          || (n > 19 && text.charAt(19) != '.')) {
        return LineFields.NOT_A_NUMBER;
      }
      long year = LineFields.parseLong(text, 0, 4);
      long month = LineFields.parseLong(text, 5, 7);
      long day = LineFields.parseLong(text, 8, 10);
      long hour = LineFields.parseLong(text, 11, 13);
      long minute = LineFields.parseLong(text, 14, 16);
      long second = LineFields.parseLong(text, 17, 19);
      if (year < 0 || month < 0 || day < 0 || hour < 0 || minute < 0 || second < 0) {
        return LineFields.NOT_A_NUMBER;
      }
      if (hour > 23 || minute > 59 || second > 59) {
        return LineFields.NOT_A_NUMBER;
      }
      long fractionNanos = 0;
      if (n > 20) {
        String fraction = (text.substring(20) + "000000000").substring(0, 9);
        fractionNanos = LineFields.parseLong(fraction, 0, 9);
        if (fractionNanos < 0 || n > 29) {
          return LineFields.NOT_A_NUMBER;
        }
      } else if (n == 20) {
        return LineFields.NOT_A_NUMBER;
      }
      long epochDay;
      try {
        epochDay = LocalDate.of((int) year, (int) month, (int) day).toEpochDay();
      } catch (DateTimeException e) {
        return LineFields.NOT_A_NUMBER;
      }
      long seconds = epochDay * 86_400 + hour * 3_600 + minute * 60 + second;
      return seconds * NANOS_PER_SECOND + fractionNanos;
    }
    double epochSeconds = LineFields.parseDouble(text);
    if (Double.isNaN(epochSeconds) || epochSeconds < 0 || epochSeconds > 9.2e9) {
      return LineFields.NOT_A_NUMBER;
    }
    return LineFields.secondsToNanos(epochSeconds);
  }

  private static final class Columns {
    private int count;
    private int arrival;
    private int duration;
    private int status;
    private int key;
    private int size;
  }
}
