package io.harbinger.experiments.levels;

import io.harbinger.experiments.workload.JobType;
import io.harbinger.experiments.workload.Phase;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * How long a job type's published level takes to settle after the regime changes at the start of
 * the shifted phase.
 *
 * <p>Example: under the inversion, {@code generate_invoice} was published at level 0 before the
 * shift; its jobs in the shifted phase end at level 2. {@code of(log, GENERATE_INVOICE, 0.995)}
 * finds the first message of the phase from which, in every window of {@value #WINDOW} consecutive
 * invoices that follows, at least {@value #SETTLED_SHARE} are at level 2, and gives the time from
 * the phase's first invoice to that message, in seconds and in the key's half-lives (a key decays
 * by {@code keyDecay} per observation, so its half-life in seconds is {@code ln 0.5 / ln keyDecay}
 * observations over the type's arrival rate in the phase).
 *
 * <p>Implementation notes: the settled level is the most common level of the phase's last {@value
 * #WINDOW} messages of the type. A type whose settled level is the level it held before the shift
 * (the most common of its last {@value #WINDOW} messages before the phase) did not move, and
 * reports {@link #moved()} false.
 *
 * @param type the job type
 * @param before the level most of its messages had just before the shifted phase, or -1 without any
 * @param settled the level most of its last messages in the phase have
 * @param seconds from the phase's first message of the type to the settled point, NaN when the type
 *     never settles
 * @param halfLives {@code seconds} over the key's half-life in seconds
 */
public record Recovery(JobType type, int before, int settled, double seconds, double halfLives) {

  /** The consecutive messages of a type a share is taken over. */
  public static final int WINDOW = 50;

  /** The share of a window at the settled level that counts as settled. */
  public static final double SETTLED_SHARE = 0.9;

  /** Checks the fields. */
  public Recovery {
    Objects.requireNonNull(type, "type");
  }

  /**
   * Returns whether the type's level changed with the regime.
   *
   * @return true when the settled level differs from the level before the shift
   */
  public boolean moved() {
    return before >= 0 && settled != before;
  }

  /** What the table of {@link #row} says, in one sentence for above it. */
  public static final String TABLE_NOTE =
      String.format(
          Locale.ROOT,
          "The level most of a type's messages had just before the shifted phase and at its end,"
              + " and the time from the phase's first message of the type until every later window"
              + " of %d of them holds %.0f%% at the final level, in seconds and in the key's"
              + " half-lives.",
          WINDOW,
          100 * SETTLED_SHARE);

  /** The header of the table {@link #row} gives rows of, in Markdown. */
  public static final String TABLE_HEADER =
      "| run | job type | level before | level after | seconds | half-lives |\n"
          + "|---|---|---:|---:|---:|---:|";

  /**
   * Returns this recovery as a row of {@link #TABLE_HEADER}'s table.
   *
   * @param run the run's name
   * @return the Markdown row
   */
  public String row(String run) {
    return String.format(
        Locale.ROOT,
        "| %s | %s | %d | %d | %s | %s |",
        run,
        type.wireName(),
        before,
        settled,
        !moved() ? "did not move" : Double.isNaN(seconds) ? "never settled" : fmt(seconds, 1),
        moved() && !Double.isNaN(seconds) ? fmt(halfLives, 2) : "-");
  }

  private static String fmt(double v, int decimals) {
    return String.format(Locale.ROOT, "%." + decimals + "f", v);
  }

  /**
   * Measures one type's recovery in a run's decisions.
   *
   * @param log the run's decisions
   * @param type the job type
   * @param keyDecay the predictor's per-observation retention, in (0, 1)
   * @param rateScale the run's rate scale, for the type's arrival rate in the shifted phase
   * @return the recovery, or null when the phase has fewer than {@value #WINDOW} messages of the
   *     type
   */
  public static Recovery of(DecisionLog log, JobType type, double keyDecay, double rateScale) {
    Objects.requireNonNull(log, "log");
    List<Point> points = new ArrayList<>();
    for (DecisionLog.Row row : log.rows()) {
      points.add(new Point(row.job().type(), row.job().phase(), row.atSeconds(), row.level()));
    }
    return of(points, log.levels(), type, keyDecay, rateScale);
  }

  /**
   * One published message, as a recovery is measured from it.
   *
   * @param type its job type
   * @param phase the phase it arrived in
   * @param atSeconds when it was placed
   * @param level the level it was published at
   */
  public record Point(JobType type, Phase phase, double atSeconds, int level) {}

  /**
   * Measures one type's recovery in a run's published messages.
   *
   * @param points the run's messages, in any order
   * @param levels the levels they fall in
   * @param type the job type
   * @param keyDecay the predictor's per-observation retention, in (0, 1)
   * @param rateScale the run's rate scale, for the type's arrival rate in the shifted phase
   * @return the recovery, or null when the phase has fewer than {@value #WINDOW} messages of the
   *     type
   */
  public static Recovery of(
      List<Point> points, int levels, JobType type, double keyDecay, double rateScale) {
    Objects.requireNonNull(points, "points");
    if (!(keyDecay > 0 && keyDecay < 1)) {
      throw new IllegalArgumentException("keyDecay must be in (0, 1): " + keyDecay);
    }
    List<Point> earlier = new ArrayList<>();
    List<Point> shifted = new ArrayList<>();
    for (Point p : points) {
      if (p.type() == type) {
        (p.phase() == Phase.SHIFTED ? shifted : earlier).add(p);
      }
    }
    if (shifted.size() < WINDOW) {
      return null;
    }
    Comparator<Point> byTime = Comparator.comparingDouble(Point::atSeconds);
    shifted.sort(byTime);
    earlier.sort(byTime);
    int before =
        earlier.isEmpty()
            ? -1
            : mode(earlier.subList(Math.max(0, earlier.size() - WINDOW), earlier.size()), levels);
    int settled = mode(shifted.subList(shifted.size() - WINDOW, shifted.size()), levels);
    // Walk back from the end: the settled point is the earliest start of a run of windows that all
    // hold the share.
    int n = shifted.size();
    int[] at = new int[n + 1];
    for (int i = 0; i < n; i++) {
      at[i + 1] = at[i] + (shifted.get(i).level() == settled ? 1 : 0);
    }
    int need = (int) Math.ceil(SETTLED_SHARE * WINDOW);
    int from = -1;
    for (int start = n - WINDOW; start >= 0; start--) {
      if (at[start + WINDOW] - at[start] >= need) {
        from = start;
      } else {
        break;
      }
    }
    double seconds =
        from < 0 ? Double.NaN : shifted.get(from).atSeconds() - shifted.getFirst().atSeconds();
    double halfLifeObservations = Math.log(0.5) / Math.log(keyDecay);
    double halfLifeSeconds = halfLifeObservations / type.ratePerSecond(Phase.SHIFTED, rateScale);
    return new Recovery(type, before, settled, seconds, seconds / halfLifeSeconds);
  }

  /**
   * Reads the published messages of a run's {@code decisions.tsv}.
   *
   * @param file the file
   * @return the points
   * @throws IOException naming the file and line of the first malformed row
   */
  public static List<Point> read(Path file) throws IOException {
    List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
    if (lines.isEmpty()
        || !lines.getFirst().equals(DecisionLog.DECISIONS_HEADER.replace(' ', '\t'))) {
      throw new IOException(file + ": line 1 must be the header " + DecisionLog.DECISIONS_HEADER);
    }
    List<Point> out = new ArrayList<>(lines.size() - 1);
    for (int i = 1; i < lines.size(); i++) {
      String[] c = lines.get(i).split("\t", -1);
      try {
        if (c.length != 7) {
          throw new IllegalArgumentException("7 columns expected, found " + c.length);
        }
        out.add(
            new Point(
                JobType.fromWireName(c[1]),
                Phase.fromWireName(c[2]),
                Double.parseDouble(c[3]),
                Integer.parseInt(c[4])));
      } catch (IllegalArgumentException e) {
        throw new IOException(file + ": line " + (i + 1) + ": " + e.getMessage(), e);
      }
    }
    return out;
  }

  private static int mode(List<Point> rows, int levels) {
    int[] counts = new int[levels];
    for (Point r : rows) {
      if (r.level() >= 0 && r.level() < levels) {
        counts[r.level()]++;
      }
    }
    int best = 0;
    for (int l = 1; l < levels; l++) {
      if (counts[l] > counts[best]) {
        best = l;
      }
    }
    return best;
  }
}
