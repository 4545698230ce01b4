package io.harbinger.experiments.analysis;

import java.util.Locale;

/**
 * A minimal writer of self-contained SVG documents: rectangles, lines, circles and text.
 *
 * <p>Not thread-safe; one instance builds one document.
 */
public final class Svg {

  private final StringBuilder body = new StringBuilder();
  private final int width;
  private final int height;

  /**
   * Creates an empty document.
   *
   * @param width pixels, at least 1
   * @param height pixels, at least 1
   */
  public Svg(int width, int height) {
    if (width < 1 || height < 1) {
      throw new IllegalArgumentException(
          "width and height must be positive: " + width + "x" + height);
    }
    this.width = width;
    this.height = height;
  }

  /**
   * Adds a rectangle; a negative width or height is drawn as zero.
   *
   * @param x left edge
   * @param y top edge
   * @param w width
   * @param h height
   * @param fill fill colour, or {@code none}
   * @param stroke outline colour, or {@code none}
   * @return this document
   */
  public Svg rect(double x, double y, double w, double h, String fill, String stroke) {
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

  /**
   * Adds a line.
   *
   * @param x1 start x
   * @param y1 start y
   * @param x2 end x
   * @param y2 end y
   * @param stroke colour
   * @param strokeWidth pixels
   * @return this document
   */
  public Svg line(double x1, double y1, double x2, double y2, String stroke, double strokeWidth) {
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

  /**
   * Adds a circle.
   *
   * @param cx centre x
   * @param cy centre y
   * @param r radius
   * @param fill fill colour, or {@code none}
   * @param stroke outline colour, or {@code none}
   * @return this document
   */
  public Svg circle(double cx, double cy, double r, String fill, String stroke) {
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

  /**
   * Adds a line of text.
   *
   * @param x anchor x
   * @param y baseline y
   * @param text the text, escaped here
   * @param anchor {@code start}, {@code middle} or {@code end}
   * @param size font size in pixels
   * @return this document
   */
  public Svg text(double x, double y, String text, String anchor, int size) {
    return text(x, y, text, anchor, size, 0);
  }

  /**
   * Adds a line of text rotated about its anchor.
   *
   * @param x anchor x
   * @param y baseline y
   * @param text the text, escaped here
   * @param anchor {@code start}, {@code middle} or {@code end}
   * @param size font size in pixels
   * @param rotateDegrees clockwise rotation, 0 for none
   * @return this document
   */
  public Svg text(double x, double y, String text, String anchor, int size, double rotateDegrees) {
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

  /**
   * Returns the document.
   *
   * @return the SVG text
   */
  public String render() {
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

  /**
   * Escapes text for XML and drops control characters.
   *
   * @param text the text
   * @return the escaped text
   */
  public static String escape(String text) {
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
