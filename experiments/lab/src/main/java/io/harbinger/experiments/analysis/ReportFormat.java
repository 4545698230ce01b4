package io.harbinger.experiments.analysis;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The formats an {@link Analysis} is written in, each by its own reporter: {@link #JSON}
 * (summary.json), {@link #MARKDOWN} (report.md) and {@link #SVG} (charts/*.svg).
 *
 * <p>Example: {@code ReportFormat.writeAll(analysis, dir)} writes all three, as {@code ./harbinger
 * bench} does; {@code ReportFormat.MARKDOWN.render(analysis)} returns the report's text.
 */
public enum ReportFormat {
  /** summary.json, for programs. */
  JSON("summary.json"),
  /** report.md, for people. */
  MARKDOWN("report.md"),
  /** charts/deltas.svg and charts/per-class-ARM.svg for every compared arm. */
  SVG("charts");

  private final String fileName;

  ReportFormat(String fileName) {
    this.fileName = fileName;
  }

  /**
   * Returns the document of this format; for {@link #SVG}, the chart of deltas.
   *
   * @param analysis the analysis
   * @return the text
   */
  public String render(Analysis analysis) {
    return switch (this) {
      case JSON -> JsonReporter.render(analysis);
      case MARKDOWN -> MarkdownReporter.render(analysis);
      case SVG -> SvgReporter.deltaChart(analysis);
    };
  }

  /**
   * Returns the per-class chart of a compared arm.
   *
   * @param analysis the analysis
   * @param arm an arm with a baseline
   * @return a self-contained SVG document
   * @throws IllegalArgumentException for an arm without a baseline
   */
  public static String perClassChart(Analysis analysis, String arm) {
    return SvgReporter.perClassChart(analysis, arm);
  }

  /**
   * Writes this format's files into a directory.
   *
   * @param analysis the analysis
   * @param directory the output directory, created if needed
   * @throws IOException when a file cannot be written
   */
  public void write(Analysis analysis, Path directory) throws IOException {
    Files.createDirectories(directory);
    if (this != SVG) {
      Files.writeString(directory.resolve(fileName), render(analysis), StandardCharsets.UTF_8);
      return;
    }
    Path charts = directory.resolve(fileName);
    Files.createDirectories(charts);
    Files.writeString(charts.resolve("deltas.svg"), render(analysis), StandardCharsets.UTF_8);
    for (String arm : analysis.comparedArms()) {
      Files.writeString(
          charts.resolve("per-class-" + arm + ".svg"),
          perClassChart(analysis, arm),
          StandardCharsets.UTF_8);
    }
  }

  /**
   * Writes every format into a directory: summary.json, report.md and the charts.
   *
   * @param analysis the analysis
   * @param directory the output directory, created if needed
   * @throws IOException when a file cannot be written
   */
  public static void writeAll(Analysis analysis, Path directory) throws IOException {
    for (ReportFormat f : values()) {
      f.write(analysis, directory);
    }
  }
}
