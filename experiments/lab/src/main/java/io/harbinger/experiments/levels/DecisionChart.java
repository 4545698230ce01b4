package io.harbinger.experiments.levels;

import io.harbinger.experiments.analysis.Svg;
import io.harbinger.experiments.workload.JobType;
import io.harbinger.experiments.workload.Phase;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.LongToDoubleFunction;

/**
 * Draws a run's decisions as one SVG: per job type, the level of its messages over time coloured by
 * the reason; the boundaries over time; and the share of messages at each level per phase.
 *
 * <p>Implementation notes: the first panel bins time into {@value #BINS} columns; each cell (job
 * type, column, level) that holds messages is one rectangle in the colour of its most frequent
 * reason, so a chart stays small whatever the message count. The boundaries are drawn as steps on a
 * logarithmic axis.
 *
 * <p>Stateless and thread-safe.
 */
final class DecisionChart {

  static final int BINS = 150;

  private static final int WIDTH = 1000;
  private static final int LEFT = 150;
  private static final int RIGHT = 30;
  private static final int ROW = 40;
  private static final String[] LEVEL_COLOURS = {
    "#1a9850", "#91cf60", "#d9ef8b", "#fee08b", "#fc8d59", "#d73027", "#a50026", "#762a83",
    "#5e3c99", "#2d004b"
  };

  private static final String[] BOUNDARY_COLOURS = {
    "#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22",
    "#17becf"
  };

  private DecisionChart() {}

  static String reasonColour(String reason) {
    return switch (reason) {
      case "predicted", "oracle", "naive" -> "#4c78a8";
      case "unready" -> "#9e9e9e";
      case "cold", "naive_cold" -> "#72b7b2";
      case "spread" -> "#e45756";
      case "stale" -> "#b279a2";
      case "censored" -> "#ff9da6";
      case "unavailable" -> "#eeca3b";
      case "off" -> "#000000";
      default -> "#f58518";
    };
  }

  static String render(
      String title,
      int levels,
      List<DecisionLog.Row> rows,
      List<DecisionLog.BoundaryChange> changes,
      LongToDoubleFunction seconds) {
    double maxT = 1e-9;
    Set<String> reasons = new LinkedHashSet<>();
    for (DecisionLog.Row r : rows) {
      maxT = Math.max(maxT, r.atSeconds());
      reasons.add(r.reason());
    }
    int types = JobType.values().length;
    int topA = 60;
    int heightA = types * ROW;
    int topB = topA + heightA + 70;
    int heightB = 160;
    int topC = topB + heightB + 70;
    int heightC = 130;
    int height = topC + heightC + 50;
    Svg svg = new Svg(WIDTH, height);
    svg.text(WIDTH / 2.0, 22, title, "middle", 15);
    double plotW = WIDTH - LEFT - RIGHT;
    double bin = maxT / BINS;
    final double tMax = maxT;

    // Panel A: level over time per job type, coloured by reason.
    svg.text(
        LEFT,
        topA - 18,
        "Level published at over time, per job type (top lane = level 0, served first); colour"
            + " = reason",
        "start",
        12);
    Map<String, Integer>[][][] cells = newCells(types, levels);
    for (DecisionLog.Row r : rows) {
      int b = Math.min(BINS - 1, (int) (r.atSeconds() / bin));
      cells[r.job().type().ordinal()][b][r.level()].merge(r.reason(), 1, Integer::sum);
    }
    double lane = (ROW - 6.0) / levels;
    for (JobType t : JobType.values()) {
      double y0 = topA + t.ordinal() * ROW;
      svg.rect(LEFT, y0, plotW, ROW - 6, "#f7f7f7", "#dddddd");
      svg.text(LEFT - 6, y0 + ROW / 2.0, t.wireName(), "end", 11);
      for (int b = 0; b < BINS; b++) {
        for (int l = 0; l < levels; l++) {
          Map<String, Integer> cell = cells[t.ordinal()][b][l];
          if (cell.isEmpty()) {
            continue;
          }
          String top =
              cell.entrySet().stream().max(Map.Entry.comparingByValue()).orElseThrow().getKey();
          svg.rect(
              LEFT + b * plotW / BINS,
              y0 + l * lane,
              plotW / BINS + 0.3,
              lane,
              reasonColour(top),
              "none");
        }
      }
    }
    timeAxis(svg, topA + heightA, tMax, plotW);
    double lx = LEFT;
    for (String reason : reasons) {
      svg.rect(lx, topA + heightA + 30, 10, 10, reasonColour(reason), "none");
      svg.text(lx + 14, topA + heightA + 39, reason, "start", 11);
      lx += 24 + 7 * reason.length();
    }

    // Panel B: boundaries over time, log axis.
    svg.text(LEFT, topB - 12, "Level boundaries over time (ms, log scale)", "start", 12);
    svg.rect(LEFT, topB, plotW, heightB, "#fcfcfc", "#dddddd");
    double lo = Double.POSITIVE_INFINITY;
    double hi = 0;
    for (DecisionLog.BoundaryChange c : changes) {
      for (double m : c.millis()) {
        lo = Math.min(lo, m);
        hi = Math.max(hi, m);
      }
    }
    if (changes.isEmpty()) {
      svg.text(LEFT + plotW / 2, topB + heightB / 2.0, "no boundaries", "middle", 12);
    } else {
      double logLo = Math.floor(Math.log10(Math.max(lo, 1e-3)));
      double logHi = Math.ceil(Math.log10(Math.max(hi, lo * 1.01)));
      if (logHi <= logLo) {
        logHi = logLo + 1;
      }
      for (double e = logLo; e <= logHi; e++) {
        double y = topB + heightB - (e - logLo) / (logHi - logLo) * heightB;
        svg.line(LEFT, y, LEFT + plotW, y, "#eeeeee", 1);
        svg.text(LEFT - 6, y + 4, formatMillis(Math.pow(10, e)), "end", 10);
      }
      int count = changes.getFirst().millis().length;
      for (int j = 0; j < count; j++) {
        String colour = BOUNDARY_COLOURS[j % BOUNDARY_COLOURS.length];
        double prevX = Double.NaN;
        double prevY = Double.NaN;
        for (DecisionLog.BoundaryChange c : changes) {
          double x = LEFT + Math.min(1, seconds.applyAsDouble(c.atNanos()) / tMax) * plotW;
          double v = Math.max(c.millis()[j], 1e-3);
          double y = topB + heightB - (Math.log10(v) - logLo) / (logHi - logLo) * heightB;
          if (!Double.isNaN(prevX)) {
            svg.line(prevX, prevY, x, prevY, colour, 2);
            svg.line(x, prevY, x, y, colour, 1);
          }
          prevX = x;
          prevY = y;
        }
        svg.line(prevX, prevY, LEFT + plotW, prevY, colour, 2);
        svg.text(LEFT + plotW + 4, prevY + 4, "b" + (j + 1), "start", 10);
      }
    }
    timeAxis(svg, topB + heightB, tMax, plotW);

    // Panel C: share of messages at each level per phase.
    svg.text(LEFT, topC - 12, "Share of messages at each level, per phase", "start", 12);
    Phase[] phases = Phase.values();
    double barW = plotW / phases.length;
    for (Phase p : phases) {
      long[] counts = new long[levels];
      long total = 0;
      for (DecisionLog.Row r : rows) {
        if (r.job().phase() == p) {
          counts[r.level()]++;
          total++;
        }
      }
      double x = LEFT + p.ordinal() * barW + 10;
      double y = topC;
      for (int l = 0; l < levels; l++) {
        double h = total == 0 ? 0 : heightC * (double) counts[l] / total;
        svg.rect(x, y, barW - 20, h, LEVEL_COLOURS[l % LEVEL_COLOURS.length], "white");
        if (h > 12) {
          svg.text(
              x + (barW - 20) / 2,
              y + h / 2 + 4,
              String.format(Locale.ROOT, "L%d %.0f%%", l, 100.0 * counts[l] / total),
              "middle",
              10);
        }
        y += h;
      }
      svg.text(x + (barW - 20) / 2, topC + heightC + 16, p.wireName(), "middle", 11);
    }
    return svg.render();
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Integer>[][][] newCells(int types, int levels) {
    Map<String, Integer>[][][] cells = new Map[types][BINS][levels];
    for (int t = 0; t < types; t++) {
      for (int b = 0; b < BINS; b++) {
        for (int l = 0; l < levels; l++) {
          cells[t][b][l] = new LinkedHashMap<>();
        }
      }
    }
    return cells;
  }

  private static void timeAxis(Svg svg, double y, double maxT, double plotW) {
    double step = niceStep(maxT / 8);
    for (double t = 0; t <= maxT + 1e-9; t += step) {
      double x = LEFT + t / maxT * plotW;
      svg.line(x, y, x, y + 4, "#555555", 1);
      svg.text(x, y + 16, String.format(Locale.ROOT, "%.0f s", t), "middle", 10);
    }
  }

  private static double niceStep(double raw) {
    double p = Math.pow(10, Math.floor(Math.log10(Math.max(raw, 1e-9))));
    for (double m : new double[] {1, 2, 5, 10}) {
      if (m * p >= raw) {
        return m * p;
      }
    }
    return 10 * p;
  }

  private static String formatMillis(double ms) {
    if (ms >= 1000) {
      return String.format(Locale.ROOT, "%.0f s", ms / 1000);
    }
    if (ms >= 1) {
      return String.format(Locale.ROOT, "%.0f ms", ms);
    }
    return String.format(Locale.ROOT, "%.2f ms", ms);
  }
}
