package io.harbinger.experiments.analysis;

import io.harbinger.experiments.stats.MetricDelta;
import io.harbinger.experiments.workload.JobType;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.DoubleUnaryOperator;

/**
 * Draws an {@link Analysis} as SVG charts: the change of every compared arm against its baseline,
 * and one per-class latency chart per compared arm. Stateless and thread-safe.
 */
final class SvgReporter {

  private SvgReporter() {}

  /**
   * Returns the chart of every compared arm's change against its baseline: one panel per gated
   * metric (mean, short-class P50, P99, export max wait), a bar at the point estimate, a whisker
   * over the interval and a hollow dot per seed.
   *
   * @param an the analysis
   * @return a self-contained SVG document
   */
  static String deltaChart(Analysis an) {
    List<String> metrics =
        List.of(
            RunMetrics.MEAN_MS,
            RunMetrics.SHORT_P50_MS,
            RunMetrics.P99_MS,
            RunMetrics.EXPORT_MAX_WAIT_MS);
    List<String> titles =
        List.of(
            "mean (P1)",
            "short-class P50 (P2)",
            "P99 ratio - 1 (G1)",
            "export max wait ratio - 1 (G2)");
    List<String> arms = an.comparedArms();
    int labelWidth = 190;
    int panelWidth = 230;
    int rowHeight = 30;
    int top = 60;
    int height = top + Math.max(1, arms.size()) * rowHeight + 50;
    Svg svg = new Svg(labelWidth + metrics.size() * panelWidth + 20, height);
    svg.text(
        10,
        22,
        "Change against FIFO: paired mean over seeds, 95% bootstrap interval, one"
            + " hollow dot per seed",
        "start",
        14);
    for (int i = 0; i < arms.size(); i++) {
      double y = top + i * rowHeight + rowHeight / 2.0;
      svg.text(labelWidth - 8, y + 4, arms.get(i) + " vs " + an.baseline(arms.get(i)), "end", 11);
    }
    for (int p = 0; p < metrics.size(); p++) {
      double x0 = labelWidth + p * panelWidth + 10;
      double x1 = x0 + panelWidth - 20;
      double lo = -0.1;
      double hi = 0.1;
      for (String arm : arms) {
        MetricDelta d = an.deltas(arm).get(RunMetrics.HEADLINE.indexOf(metrics.get(p)));
        for (double v : d.pairs().values()) {
          lo = Math.min(lo, v);
          hi = Math.max(hi, v);
        }
        if (d.interval() != null) {
          lo = Math.min(lo, d.interval().low());
          hi = Math.max(hi, d.interval().high());
        }
      }
      double span = hi - lo;
      lo -= span * 0.05;
      hi += span * 0.05;
      double fLo = lo;
      double fSpan = hi - lo;
      DoubleUnaryOperator x = v -> x0 + (v - fLo) / fSpan * (x1 - x0);
      svg.text((x0 + x1) / 2, top - 18, titles.get(p), "middle", 12);
      double bottom = top + arms.size() * rowHeight;
      svg.line(x.applyAsDouble(0), top - 6, x.applyAsDouble(0), bottom, "#444444", 1);
      svg.line(x0, bottom, x1, bottom, "#888888", 1);
      for (double tick : ticks(lo, hi)) {
        double tx = x.applyAsDouble(tick);
        svg.line(tx, bottom, tx, bottom + 4, "#888888", 1);
        svg.text(tx, bottom + 16, String.format(Locale.ROOT, "%+.0f%%", tick * 100), "middle", 10);
      }
      for (int i = 0; i < arms.size(); i++) {
        MetricDelta d = an.deltas(arms.get(i)).get(RunMetrics.HEADLINE.indexOf(metrics.get(p)));
        double yc = top + i * rowHeight + rowHeight / 2.0;
        if (d.interval() == null) {
          svg.text((x0 + x1) / 2, yc + 4, "unevaluable", "middle", 10);
          continue;
        }
        double zero = x.applyAsDouble(0);
        double point = x.applyAsDouble(d.interval().point());
        String colour = d.interval().point() <= 0 ? "#4477aa" : "#cc6677";
        svg.rect(Math.min(zero, point), yc - 7, Math.abs(point - zero), 14, colour, "none");
        double wl = x.applyAsDouble(d.interval().low());
        double wh = x.applyAsDouble(d.interval().high());
        svg.line(wl, yc, wh, yc, "#000000", 1.5);
        svg.line(wl, yc - 5, wl, yc + 5, "#000000", 1.5);
        svg.line(wh, yc - 5, wh, yc + 5, "#000000", 1.5);
        for (double v : d.pairs().values()) {
          svg.circle(x.applyAsDouble(v), yc, 3, "none", "#222222");
        }
      }
    }
    return svg.render();
  }

  private static List<Double> ticks(double lo, double hi) {
    double span = hi - lo;
    double raw = span / 5;
    double magnitude = Math.pow(10, Math.floor(Math.log10(raw)));
    double step = magnitude;
    for (double m : new double[] {1, 2, 5, 10}) {
      if (m * magnitude >= raw) {
        step = m * magnitude;
        break;
      }
    }
    List<Double> ticks = new ArrayList<>();
    for (double t = Math.ceil(lo / step) * step; t <= hi + 1e-12; t += step) {
      ticks.add(Math.abs(t) < 1e-12 ? 0 : t);
    }
    return ticks;
  }

  /**
   * Returns the per-class chart of a compared arm, like the paper's figure 9: for each class
   * (cheapest median handler time first), the baseline's and the arm's P50 as bars and P99 as a
   * whisker on a logarithmic axis (median over seeds).
   *
   * @param an the analysis
   * @param arm a compared arm
   * @return a self-contained SVG document
   */
  static String perClassChart(Analysis an, String arm) {
    String base = an.baseline(arm);
    if (base == null) {
      throw new IllegalArgumentException("arm has no baseline to compare with: " + arm);
    }
    List<JobType> classes = an.classesByServiceTime();
    double lo = Double.MAX_VALUE;
    double hi = 0;
    for (JobType t : classes) {
      for (String a : List.of(base, arm)) {
        for (String m : List.of("p50_ms", "p99_ms")) {
          double v = an.median(a, "class." + t.wireName() + "." + m);
          if (v > 0) {
            lo = Math.min(lo, v);
            hi = Math.max(hi, v);
          }
        }
      }
    }
    if (hi == 0) {
      lo = 1;
      hi = 10;
    }
    double decadeLo = Math.floor(Math.log10(lo));
    double decadeHi = Math.max(decadeLo + 1, Math.ceil(Math.log10(hi)));
    int left = 70;
    int groupWidth = 90;
    int top = 50;
    int plotHeight = 300;
    int width = left + classes.size() * groupWidth + 20;
    Svg svg = new Svg(width, top + plotHeight + 110);
    svg.text(
        10,
        22,
        "Latency by class: "
            + base
            + " (grey) beside "
            + arm
            + " (blue); bar = P50, whisker up to P99; log scale",
        "start",
        13);
    DoubleUnaryOperator y =
        v -> top + plotHeight - (Math.log10(v) - decadeLo) / (decadeHi - decadeLo) * plotHeight;
    double bottom = top + plotHeight;
    for (double d = decadeLo; d <= decadeHi; d++) {
      double yy = y.applyAsDouble(Math.pow(10, d));
      svg.line(left, yy, width - 20, yy, "#dddddd", 1);
      svg.text(left - 6, yy + 4, Text.ms(Math.pow(10, d)), "end", 10);
    }
    svg.line(left, top, left, bottom, "#888888", 1);
    for (int i = 0; i < classes.size(); i++) {
      JobType t = classes.get(i);
      double gx = left + i * groupWidth + 10;
      String[] arms = {base, arm};
      String[] colours = {"#aaaaaa", "#4477aa"};
      for (int k = 0; k < 2; k++) {
        double p50 = an.median(arms[k], "class." + t.wireName() + ".p50_ms");
        double p99 = an.median(arms[k], "class." + t.wireName() + ".p99_ms");
        double bx = gx + k * 34;
        if (p50 > 0) {
          double top50 = y.applyAsDouble(p50);
          svg.rect(bx, top50, 28, bottom - top50, colours[k], "none");
          if (p99 > 0) {
            double top99 = y.applyAsDouble(p99);
            svg.line(bx + 14, top50, bx + 14, top99, "#000000", 1.2);
            svg.line(bx + 8, top99, bx + 20, top99, "#000000", 1.2);
          }
        } else {
          svg.text(bx + 14, bottom - 4, "n/a", "middle", 9);
        }
      }
      svg.text(gx + 31, bottom + 14, t.wireName(), "end", 10, -35);
    }
    return svg.render();
  }
}
