package io.harbinger.experiments.levels;

import io.harbinger.experiments.workload.Job;
import io.harbinger.experiments.workload.JobType;
import io.harbinger.experiments.workload.Phase;
import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * The record of one run's placement decisions: the level each message was published at and why, and
 * the level boundaries over time.
 *
 * <p>Written beside a run's {@code run.json}: {@code decisions.tsv} (one row per published message:
 * {@value #DECISIONS_HEADER}, tab-separated; times in seconds since the first decision, the
 * estimate in milliseconds or empty), {@code boundaries.tsv} ({@code at_s} then one column per
 * boundary in milliseconds, a row each time they changed) and {@code decisions.svg} ({@link
 * DecisionChart}). {@link #summary()} gives the share of messages at each level per phase and the
 * count of each reason, for {@code run.json}'s attributes.
 *
 * <p>Reasons are lower-case words: a predictor outcome ({@code predicted}, {@code unready}, {@code
 * cold}, {@code spread}, ...) or the rule of an arm without a predictor ({@code oracle}, {@code
 * naive}, {@code naive_cold}).
 *
 * <p>Thread-safe: publishers record concurrently; reading and writing take the same lock.
 */
public final class DecisionLog {

  /** The columns of {@code decisions.tsv}. */
  public static final String DECISIONS_HEADER = "seq job_type phase at_s level reason estimate_ms";

  /** The file of one row per decision. */
  public static final String DECISIONS_FILE = "decisions.tsv";

  /** The file of boundary changes. */
  public static final String BOUNDARIES_FILE = "boundaries.tsv";

  /** The chart. */
  public static final String CHART_FILE = "decisions.svg";

  private final int levels;
  private final List<Job> jobs;
  private final long[] atNanos;
  private final byte[] level;
  private final byte[] reason;
  private final float[] estimateMillis;
  private final List<String> reasons = new ArrayList<>();
  private final List<BoundaryChange> boundaries = new ArrayList<>();
  private long originNanos = Long.MIN_VALUE;
  private int recorded;

  /** One change of the boundaries. */
  record BoundaryChange(long atNanos, double[] millis) {}

  /** One recorded decision, as the chart reads it. */
  record Row(Job job, double atSeconds, int level, String reason, double estimateMillis) {}

  /**
   * Creates an empty log for a run's jobs.
   *
   * @param jobs the run's jobs, numbered 0..n-1
   * @param levels the levels decisions fall in, in [1, 10] (1 for FIFO)
   */
  public DecisionLog(List<Job> jobs, int levels) {
    if (levels < 1 || levels > 10) {
      throw new IllegalArgumentException("levels must be in [1, 10]: " + levels);
    }
    this.levels = levels;
    this.jobs = List.copyOf(jobs);
    int n = jobs.size();
    atNanos = new long[n];
    level = new byte[n];
    reason = new byte[n];
    estimateMillis = new float[n];
    Arrays.fill(reason, (byte) -1);
  }

  /**
   * Records the decision for one message.
   *
   * @param seq the job's sequence number
   * @param nowNanos when it was made, on the run's clock
   * @param chosenLevel the level published at, in [0, levels)
   * @param why the reason, a lower-case word
   * @param estimate the estimate used in milliseconds, or NaN for none
   */
  public synchronized void record(
      long seq, long nowNanos, int chosenLevel, String why, double estimate) {
    Objects.requireNonNull(why, "why");
    if (seq < 0 || seq >= jobs.size()) {
      throw new IllegalArgumentException("seq must be in [0, " + jobs.size() + "): " + seq);
    }
    if (chosenLevel < 0 || chosenLevel >= levels) {
      throw new IllegalArgumentException("level must be in [0, " + levels + "): " + chosenLevel);
    }
    int i = (int) seq;
    if (reason[i] < 0) {
      recorded++;
    }
    if (originNanos == Long.MIN_VALUE || nowNanos < originNanos) {
      originNanos = nowNanos;
    }
    atNanos[i] = nowNanos;
    level[i] = (byte) chosenLevel;
    int r = reasons.indexOf(why);
    if (r < 0) {
      reasons.add(why);
      r = reasons.size() - 1;
    }
    reason[i] = (byte) r;
    estimateMillis[i] = (float) estimate;
  }

  /**
   * Records the boundaries in force from now on, if they differ from the last recorded.
   *
   * @param nowNanos on the run's clock
   * @param millis the boundaries in milliseconds, increasing
   */
  public synchronized void boundaries(long nowNanos, double[] millis) {
    if (!boundaries.isEmpty() && Arrays.equals(boundaries.getLast().millis(), millis)) {
      return;
    }
    boundaries.add(new BoundaryChange(nowNanos, millis.clone()));
  }

  /**
   * Returns the number of levels.
   *
   * @return in [1, 10]
   */
  public int levels() {
    return levels;
  }

  /**
   * Returns the number of messages with a decision.
   *
   * @return at most the job count
   */
  public synchronized int recorded() {
    return recorded;
  }

  synchronized List<Row> rows() {
    List<Row> out = new ArrayList<>(recorded);
    for (int i = 0; i < jobs.size(); i++) {
      if (reason[i] >= 0) {
        out.add(
            new Row(
                jobs.get(i),
                (atNanos[i] - originNanos) / 1e9,
                level[i],
                reasons.get(reason[i]),
                estimateMillis[i]));
      }
    }
    return out;
  }

  synchronized List<BoundaryChange> boundaryChanges() {
    return List.copyOf(boundaries);
  }

  synchronized double secondsSinceOrigin(long nanos) {
    return originNanos == Long.MIN_VALUE ? 0 : (nanos - originNanos) / 1e9;
  }

  /**
   * Returns the share of messages at each level per phase, the reasons' counts, and the reasons'
   * counts per job type.
   *
   * @return attribute name to value, such as {@code levels.flash = "0.412 0.388 0.200"} and {@code
   *     reasons = "predicted 34620, unready 101, cold 281"}
   */
  public synchronized Map<String, String> summary() {
    Map<String, String> out = new LinkedHashMap<>();
    for (Phase p : Phase.values()) {
      long[] counts = new long[levels];
      long total = 0;
      for (int i = 0; i < jobs.size(); i++) {
        if (reason[i] >= 0 && jobs.get(i).phase() == p) {
          counts[level[i]]++;
          total++;
        }
      }
      StringBuilder s = new StringBuilder();
      for (long c : counts) {
        s.append(s.isEmpty() ? "" : " ")
            .append(String.format(Locale.ROOT, "%.3f", total == 0 ? 0.0 : (double) c / total));
      }
      out.put("decisions.levels." + p.wireName(), s.toString());
    }
    out.put("decisions.reasons", reasonCounts(null));
    for (JobType t : JobType.values()) {
      String counts = reasonCounts(t);
      if (!counts.isEmpty()) {
        out.put("decisions.reasons." + t.wireName(), counts);
      }
    }
    return out;
  }

  private String reasonCounts(JobType type) {
    long[] counts = new long[reasons.size()];
    for (int i = 0; i < jobs.size(); i++) {
      if (reason[i] >= 0 && (type == null || jobs.get(i).type() == type)) {
        counts[reason[i]]++;
      }
    }
    StringBuilder s = new StringBuilder();
    for (int r = 0; r < counts.length; r++) {
      if (counts[r] > 0) {
        s.append(s.isEmpty() ? "" : ", ").append(reasons.get(r)).append(' ').append(counts[r]);
      }
    }
    return s.toString();
  }

  /**
   * Writes {@code decisions.tsv}, {@code boundaries.tsv} and {@code decisions.svg} into a run
   * directory.
   *
   * @param directory the run directory, created if needed
   * @param title the chart's title, such as the arm and seed
   * @throws IOException when a file cannot be written
   */
  public void write(Path directory, String title) throws IOException {
    Files.createDirectories(directory);
    List<Row> rows = rows();
    List<BoundaryChange> changes = boundaryChanges();
    try (BufferedWriter out =
        Files.newBufferedWriter(directory.resolve(DECISIONS_FILE), StandardCharsets.UTF_8)) {
      out.write(DECISIONS_HEADER.replace(' ', '\t'));
      out.write('\n');
      for (Row r : rows) {
        out.write(
            String.format(
                Locale.ROOT,
                "%d\t%s\t%s\t%.6f\t%d\t%s\t%s%n",
                r.job().seq(),
                r.job().type().wireName(),
                r.job().phase().wireName(),
                r.atSeconds(),
                r.level(),
                r.reason(),
                Double.isNaN(r.estimateMillis())
                    ? ""
                    : String.format(Locale.ROOT, "%.4f", r.estimateMillis())));
      }
    }
    try (BufferedWriter out =
        Files.newBufferedWriter(directory.resolve(BOUNDARIES_FILE), StandardCharsets.UTF_8)) {
      StringBuilder header = new StringBuilder("at_s");
      for (int j = 1; j < levels; j++) {
        header.append("\tboundary_").append(j).append("_ms");
      }
      out.write(header.append('\n').toString());
      for (BoundaryChange c : changes) {
        StringBuilder row =
            new StringBuilder(String.format(Locale.ROOT, "%.6f", secondsSinceOrigin(c.atNanos())));
        for (double b : c.millis()) {
          row.append('\t').append(String.format(Locale.ROOT, "%.4f", b));
        }
        out.write(row.append('\n').toString());
      }
    }
    Files.writeString(
        directory.resolve(CHART_FILE),
        DecisionChart.render(title, levels, rows, changes, this::secondsSinceOrigin),
        StandardCharsets.UTF_8);
  }
}
