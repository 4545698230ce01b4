package io.harbinger.experiments.workload;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Map;
import java.util.TreeMap;
import java.util.zip.Deflater;

/**
 * The CPU work of the production flow's job types: real computation whose cost grows linearly with
 * a unit count.
 *
 * <p>Example: {@code RENDER.run(24, seq)} renders a 24 KiB HTML body and returns its FNV-1a hash;
 * {@code EXPORT.run(40, seq)} generates, sorts and groups 40 chunks of 250,000 rows (about a second
 * on a 2020s core).
 *
 * <p>Implementation notes: the cost models of the original implementation's production-flow
 * benchmark, written anew in Java. Every kernel returns a checksum that depends on all of its work,
 * and callers fold it into a volatile field, so the JIT cannot drop the work. Memory is bounded:
 * the image is processed in bands of four rows and the export reuses one 250,000-row buffer. Units
 * are bounded by {@link #maxUnits()} so that a corrupt plan cannot run for minutes. The {@code
 * salt} (the job's sequence number) varies the input so that no two jobs compute the same thing.
 *
 * <p>Thread-safe: kernels keep no shared mutable state.
 */
public enum Kernel {
  /** No CPU work. Units ignored. */
  NONE("-", 0, 0, 1),
  /** Render an HTML body of {@code units} KiB and hash it (FNV-1a). */
  RENDER("KiB", 64, 4096, 1),
  /** Build {@code units} invoice items of 12 text lines each and deflate them at level 9. */
  INVOICE("item", 50, 400, 1),
  /** Fill {@code units} RGB pixels with xorshift, 4x4 box filter with a 2.2 gamma table. */
  RESIZE("MP", 2_000_000, 64_000_000, 1_000_000),
  /** Index {@code units} words into a sorted-map inverted index over a 4096-word vocabulary. */
  REINDEX("word", 20_000, 1_000_000, 1),
  /** Generate {@code units} chunks of 250,000 rows, sort by (customer, day), group and sum. */
  EXPORT("chunk", 2, 200, 1);

  static final int EXPORT_ROWS_PER_CHUNK = 250_000;
  private static final int VOCABULARY = 4096;
  private static final String[] WORDS = vocabulary();
  private static final int[] GAMMA = gammaTable();

  private final String unitName;
  private final long calibrationUnits;
  private final long maxUnits;
  private final long unitsPerCalibrationUnit;

  Kernel(String unitName, long calibrationUnits, long maxUnits, long unitsPerCalibrationUnit) {
    this.unitName = unitName;
    this.calibrationUnits = calibrationUnits;
    this.maxUnits = maxUnits;
    this.unitsPerCalibrationUnit = unitsPerCalibrationUnit;
  }

  /**
   * Returns the unit the calibration reports cost in (KiB, item, MP, word, chunk).
   *
   * @return the unit name
   */
  public String unitName() {
    return unitName;
  }

  /**
   * Returns the size the calibration times (64 KiB, 50 items, 2 MP, 20,000 words, 2 chunks).
   *
   * @return units per calibration run
   */
  public long calibrationUnits() {
    return calibrationUnits;
  }

  /**
   * Returns how many kernel units make one reported unit (1,000,000 pixels per MP, else 1).
   *
   * @return the conversion factor
   */
  public long unitsPerReportedUnit() {
    return unitsPerCalibrationUnit;
  }

  /**
   * Returns the largest accepted unit count.
   *
   * @return the bound on {@code units}
   */
  public long maxUnits() {
    return maxUnits;
  }

  /**
   * Runs the kernel.
   *
   * @param units the amount of work, in [0, {@link #maxUnits()}] (pixels for RESIZE)
   * @param salt varies the input, any value
   * @return a checksum of all the work done
   */
  public long run(long units, long salt) {
    if (this == NONE) {
      return 0;
    }
    if (units < 0 || units > maxUnits) {
      throw new IllegalArgumentException(
          name() + " units must be in [0, " + maxUnits + "]: " + units);
    }
    return switch (this) {
      case NONE -> 0;
      case RENDER -> render((int) units, salt);
      case INVOICE -> invoice((int) units, salt);
      case RESIZE -> resize(units, salt);
      case REINDEX -> reindex((int) units, salt);
      case EXPORT -> export((int) units, salt);
    };
  }

  private static long render(int kib, long salt) {
    int target = kib * 1024;
    StringBuilder html = new StringBuilder(target + 256);
    html.append("<!doctype html><html><head><title>Order ")
        .append(salt)
        .append("</title></head><body><table>");
    long x = salt | 1;
    int row = 0;
    while (html.length() < target) {
      x = xorshift(x);
      html.append("<tr><td class=\"sku\">SKU-")
          .append(Long.toHexString(x & 0xffffffL))
          .append("</td><td>")
          .append(row++)
          .append("</td><td class=\"price\">")
          .append((x >>> 24) % 100_000 / 100.0)
          .append("</td></tr>\n");
    }
    html.setLength(target);
    long hash = 0xcbf29ce484222325L;
    for (int i = 0; i < target; i++) {
      hash ^= html.charAt(i);
      hash *= 0x100000001b3L;
    }
    return hash;
  }

  private static long invoice(int items, long salt) {
    StringBuilder text = new StringBuilder(items * 12 * 64);
    long x = salt | 1;
    for (int item = 0; item < items; item++) {
      for (int line = 0; line < 12; line++) {
        x = xorshift(x);
        text.append("BT /F1 9 Tf 72 ")
            .append(720 - line * 12)
            .append(" Td (Item ")
            .append(item)
            .append(" SKU-")
            .append(Long.toHexString(x & 0xfffffL))
            .append(" qty ")
            .append((x >>> 20) % 9 + 1)
            .append(" EUR ")
            .append((x >>> 28) % 50_000 / 100.0)
            .append(") Tj ET\n");
      }
    }
    byte[] input = text.toString().getBytes(StandardCharsets.US_ASCII);
    Deflater deflater = new Deflater(9);
    try {
      deflater.setInput(input);
      deflater.finish();
      byte[] out = new byte[8192];
      long total = 0;
      long check = 0;
      while (!deflater.finished()) {
        int n = deflater.deflate(out);
        total += n;
        if (n > 0) {
          check = check * 31 + out[n - 1];
        }
      }
      return total * 1_000_003L + check + deflater.getAdler();
    } finally {
      deflater.end();
    }
  }

  private static long resize(long pixels, long salt) {
    int width = (int) Math.max(4, Math.round(Math.sqrt((double) pixels)) & ~3L);
    long rows = Math.max(4, (pixels / width) & ~3L);
    byte[] band = new byte[width * 4 * 3];
    long x = salt | 1;
    long check = 0;
    for (long r = 0; r < rows; r += 4) {
      for (int i = 0; i < band.length; i += 8) {
        x = xorshift(x);
        long v = x;
        int end = Math.min(band.length, i + 8);
        for (int j = i; j < end; j++) {
          band[j] = (byte) v;
          v >>>= 8;
        }
      }
      int stride = width * 3;
      for (int bx = 0; bx < width; bx += 4) {
        int red = 0;
        int green = 0;
        int blue = 0;
        for (int dy = 0; dy < 4; dy++) {
          int base = dy * stride + bx * 3;
          for (int dx = 0; dx < 12; dx += 3) {
            red += band[base + dx] & 0xff;
            green += band[base + dx + 1] & 0xff;
            blue += band[base + dx + 2] & 0xff;
          }
        }
        check += GAMMA[red >>> 4] + 3L * GAMMA[green >>> 4] + 7L * GAMMA[blue >>> 4];
      }
    }
    return check;
  }

  private static long reindex(int words, long salt) {
    TreeMap<String, int[]> index = new TreeMap<>();
    long x = salt | 1;
    for (int position = 0; position < words; position++) {
      x = xorshift(x);
      String word = WORDS[(int) ((x >>> 11) & (VOCABULARY - 1))];
      int[] postings = index.get(word);
      if (postings == null) {
        postings = new int[] {0, 0, 0, 0};
        index.put(word, postings);
      } else if (postings[0] + 1 >= postings.length) {
        postings = Arrays.copyOf(postings, postings.length * 2);
        index.put(word, postings);
      }
      postings[++postings[0]] = position;
    }
    long check = index.size();
    for (Map.Entry<String, int[]> e : index.entrySet()) {
      int[] p = e.getValue();
      check = check * 31 + p[0] + p[p[0]];
    }
    return check;
  }

  private static long export(int chunks, long salt) {
    long[] rows = new long[EXPORT_ROWS_PER_CHUNK];
    long x = salt | 1;
    long check = 0;
    for (int chunk = 0; chunk < chunks; chunk++) {
      for (int i = 0; i < rows.length; i++) {
        x = xorshift(x);
        long customer = (x >>> 40) % 20_000;
        long day = (x >>> 20) % 365;
        long cents = x & 0xfffff;
        rows[i] = (customer << 41) | (day << 32) | cents;
      }
      Arrays.sort(rows);
      long group = rows[0] >>> 32;
      long sum = 0;
      int groups = 0;
      for (long row : rows) {
        long key = row >>> 32;
        if (key != group) {
          check = check * 31 + sum + group;
          groups++;
          group = key;
          sum = 0;
        }
        sum += row & 0xffffffffL;
      }
      check = check * 31 + sum + group + groups;
    }
    return check;
  }

  static long xorshift(long x) {
    x ^= x << 13;
    x ^= x >>> 7;
    x ^= x << 17;
    return x;
  }

  private static String[] vocabulary() {
    String[] words = new String[VOCABULARY];
    long x = 0x9E3779B97F4A7C15L;
    for (int i = 0; i < words.length; i++) {
      x = xorshift(x);
      words[i] = "w" + Long.toString(x & 0xffffffffL, 36) + i;
    }
    return words;
  }

  private static int[] gammaTable() {
    int[] table = new int[256];
    for (int i = 0; i < table.length; i++) {
      table[i] = (int) Math.round(255 * Math.pow(i / 255.0, 1 / 2.2));
    }
    return table;
  }
}
