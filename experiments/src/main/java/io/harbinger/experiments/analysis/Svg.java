package io.harbinger.experiments.analysis;

import java.util.Locale;

/**
 * A minimal writer of self-contained SVG documents: rectangles, lines, circles and text.
 *
 * <p>Not thread-safe; one instance builds one document.
 */
final class Svg {

  private final StringBuilder body = new StringBuilder();
  private final int width;
  private final int height;

  Svg(int width, int height) {
    if (width < 1 || height < 1) {
      throw new IllegalArgumentException(
          "width and height must be positive: " + width + "x" + height);
    }
    this.width = width;
    this.height = height;
  }

  Svg rect(double x, double y, double w, double h, String fill, String stroke) {
    body.append(
        String.format(
            Locale.ROOT,
            "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\" stroke=\"%s\"/>%n",
            x,
            y,
            Math.max(0, w),
            Math.max(0, h),
            attr(fill),
            attr(stroke)));
    return this;
  }

  Svg line(double x1, double y1, double x2, double y2, String stroke, double strokeWidth) {
    body.append(
        String.format(
            Locale.ROOT,
            "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\""
                + " stroke-width=\"%.1f\"/>%n",
            x1,
            y1,
            x2,
            y2,
            attr(stroke),
            strokeWidth));
    return this;
  }

  Svg circle(double cx, double cy, double r, String fill, String stroke) {
    body.append(
        String.format(
            Locale.ROOT,
            "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\" fill=\"%s\" stroke=\"%s\"/>%n",
            cx,
            cy,
            r,
            attr(fill),
            attr(stroke)));
    return this;
  }

  Svg text(double x, double y, String text, String anchor, int size) {
    return text(x, y, text, anchor, size, 0);
  }

  Svg text(double x, double y, String text, String anchor, int size, double rotateDegrees) {
    String transform =
        rotateDegrees == 0
            ? ""
            : String.format(
                Locale.ROOT, " transform=\"rotate(%.0f %.1f %.1f)\"", rotateDegrees, x, y);
    body.append(
        String.format(
            Locale.ROOT,
            "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\" font-size=\"%d\"%s>%s</text>%n",
            x,
            y,
            attr(anchor),
            size,
            transform,
            escape(text)));
    return this;
  }

  String render() {
    return String.format(
            Locale.ROOT,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\""
                + " font-family=\"sans-serif\">%n<rect width=\"100%%\" height=\"100%%\""
                + " fill=\"white\"/>%n",
            width,
            height,
            width,
            height)
        + body
        + "</svg>\n";
  }

  static String escape(String text) {
    StringBuilder s = new StringBuilder(text.length());
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      switch (c) {
        case '<' -> s.append("&lt;");
        case '>' -> s.append("&gt;");
        case '&' -> s.append("&amp;");
        case '"' -> s.append("&quot;");
        case '\'' -> s.append("&apos;");
        default -> {
          if (c >= 0x20 || c == '\t') {
            s.append(c);
          }
        }
      }
    }
    return s.toString();
  }

  private static String attr(String value) {
    return escape(value);
  }
}
