package io.harbinger.check.trace;

import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * A parsed trace specification: a format, a path and options.
 *
 * <p>Syntax: {@code format:path[?name=value[,name=value]...]}, or a bare path whose name ends in
 * {@code .csv} or {@code .swf} (optionally followed by {@code .gz}), which takes its format from
 * that ending: {@code history.csv} is {@code csv:history.csv}. The format is a {@link TraceFormat}
 * name; the path is everything up to the last {@code ?} (so a path may hold {@code :} but not
 * {@code ?}); options are comma-separated {@code name=value} pairs with names in lower case. The
 * synthetic generator has no path: {@code synthetic:seed=7,jobs=10000} (a leading {@code ?} is
 * accepted too). Examples: {@code swf:/data/CTC-SP2.swf.gz}, {@code
 * swf:/data/LPC-EGEE.swf.gz?key=user-queue,status=completed}, {@code
 * alibaba:requests.csv?key=predict_type}.
 *
 * @param text the specification as given, used as the trace's name
 * @param format the format
 * @param path the file, or null for the synthetic generator
 * @param options the options in the order given
 */
public record TraceSpec(String text, TraceFormat format, Path path, Map<String, String> options) {

  /** Copies the options. */
  public TraceSpec {
    options = Collections.unmodifiableMap(new LinkedHashMap<>(options));
  }

  /**
   * Parses a specification.
   *
   * @param text the specification
   * @return the parsed specification
   * @throws TraceException when the text has no format, an unknown format, an empty path, or a
   *     malformed or repeated option; the message shows the text
   */
  public static TraceSpec parse(String text) throws TraceException {
    if (text == null || text.isBlank()) {
      throw new TraceException("trace must be given as format:path, for example csv:jobs.csv");
    }
    int colon = text.indexOf(':');
    TraceFormat byName = formatOfName(text);
    if (byName != null && (colon < 0 || isPathPrefix(text.substring(0, colon)))) {
      return parse(byName.id() + ":" + text).withText(text);
    }
    if (colon <= 0) {
      throw new TraceException(
          "trace must be given as format:path, or as a path ending in .csv or .swf (optionally"
              + " .gz) (formats: "
              + String.join(", ", TraceFormat.names())
              + "): "
              + text);
    }
    TraceFormat format = TraceFormat.named(text.substring(0, colon));
    String rest = text.substring(colon + 1);
    String pathText;
    String optionText;
    if (format == TraceFormat.SYNTHETIC) {
      pathText = null;
      optionText = rest.startsWith("?") ? rest.substring(1) : rest;
    } else {
      int q = rest.lastIndexOf('?');
      pathText = q < 0 ? rest : rest.substring(0, q);
      optionText = q < 0 ? "" : rest.substring(q + 1);
      if (pathText.isEmpty()) {
        throw new TraceException("trace path is empty: " + text);
      }
    }
    Map<String, String> options = new LinkedHashMap<>();
    if (!optionText.isEmpty()) {
      for (String pair : optionText.split(",", -1)) {
        int eq = pair.indexOf('=');
        if (eq <= 0 || eq == pair.length() - 1) {
          throw new TraceException("trace option must be name=value: '" + pair + "' in " + text);
        }
        String name = pair.substring(0, eq).trim();
        if (options.put(name, pair.substring(eq + 1).trim()) != null) {
          throw new TraceException("trace option '" + name + "' is given twice in " + text);
        }
      }
    }
    return new TraceSpec(text, format, pathText == null ? null : Path.of(pathText), options);
  }

  /**
   * The format a bare path names by its ending: {@code .csv} or {@code .csv.gz} is the plain CSV
   * format, {@code .swf} or {@code .swf.gz} the Standard Workload Format; options after a {@code ?}
   * are not part of the name.
   */
  private static TraceFormat formatOfName(String text) {
    int q = text.lastIndexOf('?');
    String name = (q < 0 ? text : text.substring(0, q)).toLowerCase(Locale.ROOT);
    if (name.endsWith(".gz")) {
      name = name.substring(0, name.length() - 3);
    }
    if (name.endsWith(".csv")) {
      return TraceFormat.CSV;
    }
    if (name.endsWith(".swf")) {
      return TraceFormat.SWF;
    }
    return null;
  }

  /**
   * Whether the text before the first colon is part of a path rather than a format name: a drive
   * letter or a folder ({@code C:}, {@code logs/a:b.csv}). Anything else is read as a format name,
   * so a mistyped format is named as unknown rather than read as a file.
   */
  private static boolean isPathPrefix(String prefix) {
    return prefix.length() == 1 || prefix.contains("/") || prefix.contains("\\");
  }

  private TraceSpec withText(String original) {
    return new TraceSpec(original, format, path, options);
  }

  /**
   * Checks that every option is one the reader knows.
   *
   * @param known the reader's option names
   * @throws TraceException naming the first unknown option and listing the known ones
   */
  void requireOnly(Set<String> known) throws TraceException {
    for (String name : options.keySet()) {
      if (!known.contains(name)) {
        throw new TraceException(
            "unknown option '"
                + name
                + "' for format "
                + format.id()
                + " (known: "
                + String.join(", ", new TreeSet<>(known))
                + "): "
                + text);
      }
    }
  }

  String option(String name, String defaultValue) {
    return options.getOrDefault(name, defaultValue);
  }

  long longOption(String name, long defaultValue, long min, long max) throws TraceException {
    String v = options.get(name);
    if (v == null) {
      return defaultValue;
    }
    long value;
    try {
      value = Long.parseLong(v);
    } catch (NumberFormatException e) {
      throw new TraceException("option " + name + " must be an integer: " + v + " in " + text);
    }
    if (value < min || value > max) {
      throw new TraceException(
          "option " + name + " must be in [" + min + ", " + max + "]: " + v + " in " + text);
    }
    return value;
  }

  double doubleOption(String name, double defaultValue, double min, double max)
      throws TraceException {
    String v = options.get(name);
    if (v == null) {
      return defaultValue;
    }
    double value;
    try {
      value = Double.parseDouble(v);
    } catch (NumberFormatException e) {
      throw new TraceException("option " + name + " must be a number: " + v + " in " + text);
    }
    if (!(value >= min && value <= max)) {
      throw new TraceException(
          "option " + name + " must be in [" + min + ", " + max + "]: " + v + " in " + text);
    }
    return value;
  }

  String choiceOption(String name, String defaultValue, Set<String> choices) throws TraceException {
    String v = options.getOrDefault(name, defaultValue);
    if (!choices.contains(v)) {
      throw new TraceException(
          "option "
              + name
              + " must be one of "
              + String.join(", ", new TreeSet<>(choices))
              + ": "
              + v
              + " in "
              + text);
    }
    return v;
  }
}
