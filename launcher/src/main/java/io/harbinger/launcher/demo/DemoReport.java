package io.harbinger.launcher.demo;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** Summarises demonstration runs: the printed table and the HTML page with its chart. */
final class DemoReport {

  /** The figures of one run, in milliseconds. */
  record Summary(
      String name,
      int jobs,
      int lost,
      double meanMs,
      double shortP50Ms,
      double p99Ms,
      double[] typeP50Ms) {}

  private DemoReport() {}

  static Summary summarise(DemoRun.Result r) {
    List<Long> all = new ArrayList<>();
    List<Long> shortJobs = new ArrayList<>();
    List<List<Long>> byType = new ArrayList<>();
    for (int t = 0; t < DemoWorkload.TYPES.size(); t++) {
      byType.add(new ArrayList<>());
    }
    for (int i = 0; i < r.latencyNanos().length; i++) {
      long latency = r.latencyNanos()[i];
      if (latency < 0) {
        continue;
      }
      all.add(latency);
      String type = r.types().get(i);
      if (DemoWorkload.SHORT.contains(type)) {
        shortJobs.add(latency);
      }
      for (int t = 0; t < DemoWorkload.TYPES.size(); t++) {
        if (DemoWorkload.TYPES.get(t).name().equals(type)) {
          byType.get(t).add(latency);
        }
      }
    }
    double[] typeP50 = new double[byType.size()];
    for (int t = 0; t < typeP50.length; t++) {
      typeP50[t] = percentile(byType.get(t), 50);
    }
    double mean = all.stream().mapToLong(Long::longValue).average().orElse(Double.NaN) / 1e6;
    return new Summary(
        r.name(),
        r.latencyNanos().length,
        r.lost(),
        mean,
        percentile(shortJobs, 50),
        percentile(all, 99),
        typeP50);
  }

  /**
   * Nearest-rank percentile in milliseconds: the element at ceil(n·p/100) - 1 of the sorted values.
   */
  static double percentile(List<Long> values, double p) {
    if (values.isEmpty()) {
      return Double.NaN;
    }
    long[] sorted = values.stream().mapToLong(Long::longValue).sorted().toArray();
    return io.harbinger.predictor.NearestRank.of(sorted, p) / 1e6;
  }

  static String table(List<Summary> runs) {
    StringBuilder s = new StringBuilder();
    s.append(
        String.format(
            "%-26s %6s %5s %10s %14s %10s%n",
            "run", "jobs", "lost", "mean", "short-job P50", "P99"));
    for (Summary r : runs) {
      s.append(
          String.format(
              Locale.ROOT,
              "%-26s %6d %5d %8.0f ms %11.0f ms %7.0f ms%n",
              r.name(),
              r.jobs(),
              r.lost(),
              r.meanMs(),
              r.shortP50Ms(),
              r.p99Ms()));
    }
    if (runs.size() == 2) {
      Summary a = runs.get(0);
      Summary b = runs.get(1);
      s.append(
          String.format(
              Locale.ROOT,
              "%-26s %6s %5s %+9.1f%% %+13.1f%% %+9.1f%%%n",
              "change",
              "",
              "",
              100 * (b.meanMs() / a.meanMs() - 1),
              100 * (b.shortP50Ms() / a.shortP50Ms() - 1),
              100 * (b.p99Ms() / a.p99Ms() - 1)));
    }
    return s.toString();
  }

  static void writeHtml(Path file, List<Summary> runs, String context) throws IOException {
    StringBuilder svg = new StringBuilder();
    String[] metrics = {"mean", "short-job P50", "P99"};
    String[] colours = {"#8c8c8c", "#e8702a"};
    double max = 1;
    for (Summary r : runs) {
      max = Math.max(max, Math.max(r.meanMs(), Math.max(r.shortP50Ms(), r.p99Ms())));
    }
    int width = 640;
    int height = 300;
    int groupWidth = (width - 80) / metrics.length;
    svg.append(
        String.format(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" font-family=\"sans-serif\""
                + " font-size=\"12\">%n",
            width, height + 60));
    svg.append(
        String.format(
            "<line x1=\"60\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#333\"/>%n",
            height, width, height));
    for (int m = 0; m < metrics.length; m++) {
      for (int r = 0; r < runs.size(); r++) {
        Summary run = runs.get(r);
        double value = m == 0 ? run.meanMs() : m == 1 ? run.shortP50Ms() : run.p99Ms();
        double h = Double.isNaN(value) ? 0 : (height - 20) * value / max;
        int x = 70 + m * groupWidth + r * (groupWidth / 2 - 10);
        svg.append(
            String.format(
                Locale.ROOT,
                "<rect x=\"%d\" y=\"%.1f\" width=\"%d\" height=\"%.1f\" fill=\"%s\"/>%n",
                x,
                height - h,
                groupWidth / 2 - 20,
                h,
                colours[r % colours.length]));
        svg.append(
            String.format(
                Locale.ROOT,
                "<text x=\"%d\" y=\"%.1f\">%.0f ms</text>%n",
                x,
                height - h - 4,
                value));
      }
      svg.append(
          String.format(
              "<text x=\"%d\" y=\"%d\">%s</text>%n", 70 + m * groupWidth, height + 18, metrics[m]));
    }
    for (int r = 0; r < runs.size(); r++) {
      svg.append(
          String.format(
              "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"%s\"/><text x=\"%d\" y=\"%d\">%s</text>%n",
              70 + r * 260,
              height + 34,
              colours[r % colours.length],
              88 + r * 260,
              height + 45,
              escape(runs.get(r).name())));
    }
    svg.append("</svg>\n");

    StringBuilder rows = new StringBuilder();
    for (Summary r : runs) {
      rows.append("<tr><td>")
          .append(escape(r.name()))
          .append("</td><td>")
          .append(r.jobs())
          .append("</td><td>")
          .append(r.lost())
          .append(
              String.format(
                  Locale.ROOT,
                  "</td><td>%.0f ms</td><td>%.0f ms</td><td>%.0f ms</td>",
                  r.meanMs(),
                  r.shortP50Ms(),
                  r.p99Ms()));
      for (double v : r.typeP50Ms()) {
        rows.append(String.format(Locale.ROOT, "<td>%.0f ms</td>", v));
      }
      rows.append("</tr>\n");
    }
    StringBuilder typeHeaders = new StringBuilder();
    for (DemoWorkload.JobType t : DemoWorkload.TYPES) {
      typeHeaders
          .append("<th>P50 ")
          .append(t.name())
          .append(" (")
          .append(t.handlerMillis())
          .append(" ms)</th>");
    }
    String html =
        "<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>Harbinger demo</title>\n"
            + "<style>body{font-family:sans-serif;max-width:900px;margin:2em auto}"
            + "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:4px 8px;text-align:right}"
            + "</style></head><body>\n<h1>Harbinger demo</h1>\n<p>"
            + escape(context)
            + "</p>\n"
            + svg
            + "<table><tr><th>run</th><th>jobs</th><th>lost</th><th>mean</th><th>short-job P50</th><th>P99</th>"
            + typeHeaders
            + "</tr>\n"
            + rows
            + "</table>\n</body></html>\n";
    Files.writeString(file, html);
  }

  private static String escape(String s) {
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
  }
}
