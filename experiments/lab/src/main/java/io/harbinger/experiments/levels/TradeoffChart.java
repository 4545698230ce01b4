package io.harbinger.experiments.levels;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Draws the trade-off chart of the lanes evidence: one point per arm and weight setting, the change
 * in mean latency against FIFO on the x axis and the all-message P99 as a multiple of FIFO's on the
 * y axis, from the TSV files {@code LevelsReplay --tsv} writes (simulated) or from the {@code
 * summary.json} of a {@code ./harbinger bench} output directory (measured: each arm's paired
 * per-seed median change of the mean and of the P99 against its baseline, labelled with the
 * directory's name).
 *
 * <p>Run: {@code java -cp "experiments/target/classes:$(cat experiments/target/classpath.txt)"
 * io.harbinger.experiments.levels.TradeoffChart --in
 * simulated=experiments/results/sim/lanes/sweep.tsv --out
 * experiments/results/sim/lanes/tradeoff.svg}; add {@code
 * measured=experiments/results/bench/lanes-4.0-full} for a bench's arms. Points left of zero and
 * below the dashed 1.10x line meet the mean and P99 targets.
 */
@Command(
    name = "tradeoff-chart",
    mixinStandardHelpOptions = true,
    description = "Draws mean change against P99 ratio, one point per arm, as SVG.")
public final class TradeoffChart implements Callable<Integer> {

  @Option(
      names = "--in",
      required = true,
      split = ",",
      paramLabel = "SOURCE=FILE",
      description =
          "Point sources: a label (simulated, measured) and a TSV with columns arm,"
              + " mean_change, p99_ratio, or a bench output directory holding summary.json.")
  List<String> inputs;

  @Option(names = "--out", required = true, paramLabel = "FILE", description = "The SVG to write.")
  Path out;

  /** One point: its source, arm, mean change (a fraction) and P99 ratio. */
  record Point(String source, String arm, double meanChange, double p99Ratio) {}

  @Override
  public Integer call() throws IOException {
    List<Point> points = new ArrayList<>();
    for (String input : inputs) {
      int eq = input.indexOf('=');
      if (eq < 1) {
        System.err.println("tradeoff-chart: --in must be SOURCE=FILE: " + input);
        return CommandLine.ExitCode.USAGE;
      }
      points.addAll(read(input.substring(0, eq), Path.of(input.substring(eq + 1))));
    }
    Files.writeString(out, svg(points));
    System.out.println("wrote " + out + " (" + points.size() + " points)");
    return 0;
  }

  static List<Point> read(String source, Path file) throws IOException {
    if (Files.isDirectory(file)) {
      return readBench(source, file);
    }
    return readTsv(source, file);
  }

  /**
   * The arms of a bench output directory that have a baseline: the paired median change of the mean
   * and of the P99 against it, from the directory's {@code summary.json}.
   */
  static List<Point> readBench(String source, Path dir) throws IOException {
    Path summary = dir.resolve("summary.json");
    if (!Files.isRegularFile(summary)) {
      throw new IOException(
          dir + ": no summary.json (is it a ./harbinger bench output directory?)");
    }
    JsonNode root;
    try {
      root = new ObjectMapper().readTree(summary.toFile());
    } catch (JsonProcessingException e) {
      throw new IOException(summary + ": not JSON: " + e.getOriginalMessage(), e);
    }
    JsonNode arms = root.path("arms");
    if (!arms.isArray()) {
      throw new IOException(summary + ": no \"arms\" array");
    }
    List<Point> out = new ArrayList<>();
    for (JsonNode arm : arms) {
      if (arm.path("baseline").isNull() || arm.path("baseline").isMissingNode()) {
        continue;
      }
      double mean = delta(arm, "mean_ms");
      double p99 = delta(arm, "p99_ms");
      if (Double.isNaN(mean) || Double.isNaN(p99)) {
        throw new IOException(
            summary + ": arm " + arm.path("arm").asText() + " has no mean_ms or p99_ms delta");
      }
      out.add(
          new Point(source, dir.getFileName() + ": " + arm.path("arm").asText(), mean, 1 + p99));
    }
    return out;
  }

  private static double delta(JsonNode arm, String metric) {
    for (JsonNode d : arm.path("deltas")) {
      if (metric.equals(d.path("metric").asText()) && d.path("point").isNumber()) {
        return d.path("point").asDouble();
      }
    }
    return Double.NaN;
  }

  static List<Point> readTsv(String source, Path tsv) throws IOException {
    List<String> lines = Files.readAllLines(tsv);
    List<String> header = List.of(lines.get(0).split("\t"));
    int arm = header.indexOf("arm");
    int mean = header.indexOf("mean_change");
    int p99 = header.indexOf("p99_ratio");
    if (arm < 0 || mean < 0 || p99 < 0) {
      throw new IOException(tsv + ": needs the columns arm, mean_change and p99_ratio: " + header);
    }
    List<Point> out = new ArrayList<>();
    for (String line : lines.subList(1, lines.size())) {
      if (line.isBlank()) {
        continue;
      }
      String[] f = line.split("\t");
      try {
        out.add(new Point(source, f[arm], Double.parseDouble(f[mean]), Double.parseDouble(f[p99])));
      } catch (NumberFormatException | ArrayIndexOutOfBoundsException e) {
        throw new IOException(tsv + ": not an arm with two numbers: " + line, e);
      }
    }
    return out;
  }

  /** Renders the points; the axes span every point, the targets (0% and 1.10x) and FIFO. */
  static String svg(List<Point> points) {
    int width = 900;
    int height = Math.max(620, 40 + 14 * points.size() + 20);
    int left = 70;
    int right = 300;
    int top = 40;
    int bottom = 60;
    double xMin = -1.0;
    double xMax = 0.1;
    double yMin = 0.8;
    double yMax = 1.3;
    for (Point p : points) {
      xMin = Math.min(xMin, p.meanChange() - 0.05);
      xMax = Math.max(xMax, p.meanChange() + 0.05);
      yMin = Math.min(yMin, p.p99Ratio() - 0.05);
      yMax = Math.max(yMax, p.p99Ratio() + 0.05);
    }
    double plotW = width - left - right;
    double plotH = height - top - bottom;
    double fx0 = xMin;
    double fx1 = xMax;
    double fy0 = yMin;
    double fy1 = yMax;
    java.util.function.DoubleUnaryOperator x = v -> left + (v - fx0) / (fx1 - fx0) * plotW;
    java.util.function.DoubleUnaryOperator y = v -> top + (fy1 - v) / (fy1 - fy0) * plotH;
    StringBuilder b = new StringBuilder();
    b.append(
        String.format(
            Locale.ROOT,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" font-family=\"sans-serif\" font-size=\"12\">%n",
            width,
            height));
    b.append("<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n");
    b.append(
        String.format(
            Locale.ROOT,
            "<text x=\"%d\" y=\"22\" font-size=\"15\">Mean latency change against FIFO vs all-message P99 / FIFO (one point per arm)</text>%n",
            left));
    b.append(
        String.format(
            Locale.ROOT,
            "<rect x=\"%d\" y=\"%d\" width=\"%.0f\" height=\"%.0f\" fill=\"none\" stroke=\"#444\"/>%n",
            left,
            top,
            plotW,
            plotH));
    for (double v = Math.ceil(fx0 * 10) / 10; v <= fx1; v += 0.1) {
      b.append(
          String.format(
              Locale.ROOT,
              "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#eee\"/><text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%+.0f%%</text>%n",
              x.applyAsDouble(v),
              top,
              x.applyAsDouble(v),
              top + plotH,
              x.applyAsDouble(v),
              top + plotH + 16,
              100 * v));
    }
    for (double v = Math.ceil(fy0 * 10) / 10; v <= fy1; v += 0.1) {
      b.append(
          String.format(
              Locale.ROOT,
              "<line x1=\"%d\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#eee\"/><text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%.1fx</text>%n",
              left,
              y.applyAsDouble(v),
              left + plotW,
              y.applyAsDouble(v),
              left - 6,
              y.applyAsDouble(v) + 4,
              v));
    }
    b.append(
        String.format(
            Locale.ROOT,
            "<line x1=\"%d\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#c33\" stroke-dasharray=\"6,4\"/><text x=\"%.1f\" y=\"%.1f\" fill=\"#c33\">P99 1.10x</text>%n",
            left,
            y.applyAsDouble(1.10),
            left + plotW,
            y.applyAsDouble(1.10),
            left + plotW - 60,
            y.applyAsDouble(1.10) - 4));
    b.append(
        String.format(
            Locale.ROOT,
            "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">mean latency change against FIFO</text>%n",
            left + plotW / 2,
            height - 18));
    b.append(
        String.format(
            Locale.ROOT,
            "<text transform=\"translate(18,%.1f) rotate(-90)\" text-anchor=\"middle\">all-message P99 / FIFO</text>%n",
            top + plotH / 2));
    String[] colours = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd"};
    List<String> sources = points.stream().map(Point::source).distinct().toList();
    int legend = top;
    for (int i = 0; i < points.size(); i++) {
      Point p = points.get(i);
      String colour = colours[sources.indexOf(p.source()) % colours.length];
      double px = x.applyAsDouble(p.meanChange());
      double py = y.applyAsDouble(p.p99Ratio());
      String shape =
          p.source().equals("measured")
              ? String.format(
                  Locale.ROOT,
                  "<rect x=\"%.1f\" y=\"%.1f\" width=\"8\" height=\"8\" fill=\"%s\"/>",
                  px - 4,
                  py - 4,
                  colour)
              : String.format(
                  Locale.ROOT,
                  "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"%s\"/>",
                  px,
                  py,
                  colour);
      b.append(shape)
          .append(
              String.format(
                  Locale.ROOT,
                  "<text x=\"%.1f\" y=\"%.1f\" font-size=\"9\" fill=\"%s\">%d</text>%n",
                  px + 5,
                  py - 3,
                  colour,
                  i + 1));
      b.append(
          String.format(
              Locale.ROOT,
              "<text x=\"%.1f\" y=\"%d\" font-size=\"10\" fill=\"%s\">%d %s %s: %+.1f%%, %.2fx</text>%n",
              left + plotW + 10,
              legend + 10,
              colour,
              i + 1,
              p.source(),
              escape(p.arm()),
              100 * p.meanChange(),
              p.p99Ratio()));
      legend += 14;
    }
    b.append("</svg>\n");
    return b.toString();
  }

  private static String escape(String s) {
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
  }

  /**
   * Draws the chart.
   *
   * @param args the command line; {@code --help} lists the options
   */
  public static void main(String[] args) {
    System.exit(new CommandLine(new TradeoffChart()).execute(args));
  }
}
