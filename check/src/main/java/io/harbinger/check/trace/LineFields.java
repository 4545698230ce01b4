package io.harbinger.check.trace;

import java.util.ArrayList;
import java.util.List;

/**
 * Splits and parses the fields of one line without regular expressions.
 *
 * <p>Implementation notes: whitespace splitting records field boundaries in reusable arrays so a
 * reader parses millions of SWF lines without allocating a string per field; CSV splitting follows
 * RFC 4180 quoting (a quoted field may hold commas and doubled quotes) and trims nothing.
 */
final class LineFields {

  /** The value returned by {@link #parseLong} for a field that is not an integer. */
  static final long NOT_A_NUMBER = Long.MIN_VALUE;

  private final int[] starts;
  private final int[] ends;
  private String line = "";
  private int count;

  /**
   * Creates a splitter that records up to a given number of fields (more are counted, not stored).
   *
   * @param capacity the fields recorded
   */
  LineFields(int capacity) {
    starts = new int[capacity];
    ends = new int[capacity];
  }

  /**
   * Splits a line at runs of spaces and tabs.
   *
   * @param text the line
   * @return the number of fields, possibly more than the capacity
   */
  int splitWhitespace(String text) {
    line = text;
    count = 0;
    int n = text.length();
    int i = 0;
    while (i < n) {
      while (i < n && isBlank(text.charAt(i))) {
        i++;
      }
      if (i == n) {
        break;
      }
      int start = i;
      while (i < n && !isBlank(text.charAt(i))) {
        i++;
      }
      if (count < starts.length) {
        starts[count] = start;
        ends[count] = i;
      }
      count++;
    }
    return count;
  }

  /**
   * Parses a field recorded by the last split as a decimal integer.
   *
   * @param field the 0-based field index, below the capacity and the count
   * @return its value, or {@link #NOT_A_NUMBER}
   */
  long parseLong(int field) {
    return parseLong(line, starts[field], ends[field]);
  }

  /**
   * Parses a field recorded by the last split as a decimal number.
   *
   * @param field the 0-based field index
   * @return its value, or NaN when it is not a number
   */
  double parseDouble(int field) {
    long whole = parseLong(field);
    if (whole != NOT_A_NUMBER) {
      return whole;
    }
    return parseDouble(line.substring(starts[field], ends[field]));
  }

  /**
   * Returns a field recorded by the last split as text.
   *
   * @param field the 0-based field index
   * @return the field
   */
  String text(int field) {
    return line.substring(starts[field], ends[field]);
  }

  static long parseLong(CharSequence s, int from, int to) {
    if (from >= to || to - from > 18) {
      return NOT_A_NUMBER;
    }
    boolean negative = s.charAt(from) == '-';
    int i = negative || s.charAt(from) == '+' ? from + 1 : from;
    if (i == to) {
      return NOT_A_NUMBER;
    }
    long value = 0;
    for (; i < to; i++) {
      int digit = s.charAt(i) - '0';
      if (digit < 0 || digit > 9) {
        return NOT_A_NUMBER;
      }
      value = value * 10 + digit;
    }
    return negative ? -value : value;
  }

  /**
   * Parses a decimal number, rejecting the words Java also accepts (NaN, Infinity, hex).
   *
   * @param s the text
   * @return its value, or NaN when it is not a finite decimal number
   */
  static double parseDouble(String s) {
    if (s.isEmpty()) {
      return Double.NaN;
    }
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (!((c >= '0' && c <= '9') || c == '.' || c == '-' || c == '+' || c == 'e' || c == 'E')) {
        return Double.NaN;
      }
    }
    try {
      double v = Double.parseDouble(s);
      return Double.isInfinite(v) ? Double.NaN : v;
    } catch (NumberFormatException e) {
      return Double.NaN;
    }
  }

  /**
   * Splits a CSV line, honouring double quotes.
   *
   * @param text the line
   * @return the fields, unquoted
   */
  static List<String> splitCsv(String text) {
    List<String> fields = new ArrayList<>(12);
    if (text.indexOf('"') < 0) {
      int start = 0;
      int comma;
      while ((comma = text.indexOf(',', start)) >= 0) {
        fields.add(text.substring(start, comma));
        start = comma + 1;
      }
      fields.add(text.substring(start));
      return fields;
    }
    StringBuilder field = new StringBuilder();
    boolean quoted = false;
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (quoted) {
        if (c == '"' && i + 1 < text.length() && text.charAt(i + 1) == '"') {
          field.append('"');
          i++;
        } else if (c == '"') {
          quoted = false;
        } else {
          field.append(c);
        }
      } else if (c == '"') {
        quoted = true;
      } else if (c == ',') {
        fields.add(field.toString());
        field.setLength(0);
      } else {
        field.append(c);
      }
    }
    fields.add(field.toString());
    return fields;
  }

  /**
   * Converts seconds to nanoseconds, rounding to the nearest nanosecond.
   *
   * @param seconds finite seconds, magnitude below about 9.2e9
   * @return nanoseconds
   */
  static long secondsToNanos(double seconds) {
    return Math.round(seconds * 1e9);
  }

  /**
   * Shortens a line for an error message.
   *
   * @param line the line
   * @return the line, or its first 77 characters and "..." when longer than 80
   */
  static String abbreviate(String line) {
    return line.length() <= 80 ? line : line.substring(0, 77) + "...";
  }

  private static boolean isBlank(char c) {
    return c == ' ' || c == '\t' || c == '\r';
  }
}
