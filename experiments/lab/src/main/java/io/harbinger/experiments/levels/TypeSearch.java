package io.harbinger.experiments.levels;

import io.harbinger.experiments.analysis.Gates;
import io.harbinger.experiments.analysis.RunMetrics;
import io.harbinger.experiments.workload.Calibration;
import io.harbinger.experiments.workload.Job;
import io.harbinger.experiments.workload.JobType;
import io.harbinger.experiments.workload.KernelCalibration;
import io.harbinger.experiments.workload.Regime;
import io.harbinger.experiments.workload.Webhooks;
import io.harbinger.experiments.workload.Workload;
import io.harbinger.experiments.workload.WorkloadConfig;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The best placement of whole job types on the levels, found by trying them all in the virtual-time
 * replay: what any per-type estimate could reach with the best boundaries.
 *
 * <p>The job types are ranked by their mean planned cost in the run (shortest expected first) and
 * every split of that ranking into {@code levels} contiguous groups is replayed ({@link
 * LevelsReplay}, the same flow and serving). The best split overall and the best that keeps the
 * guardrails (all-message P99 at most {@link Gates#P99_LIMIT} times FIFO's, longest {@code
 * export_report} wait at most {@link Gates#EXPORT_WAIT_LIMIT} times) are printed beside the oracle,
 * which places each job by its own planned cost.
 *
 * <p>Run: {@code java -cp "experiments/target/classes:$(cat experiments/target/classpath.txt)"
 * io.harbinger.experiments.levels.TypeSearch succeeding 3 11,22,33}.
 */
public final class TypeSearch {

  private TypeSearch() {}

  /**
   * One split of the ranked types.
   *
   * @param cuts the rank at which each level after the first begins
   * @param change the mean against FIFO's, minus 1
   * @param p99 the all-message P99 against FIFO's
   * @param export the longest export wait against FIFO's
   */
  record Split(int[] cuts, double change, double p99, double export) {
    boolean guarded() {
      return p99 <= Gates.P99_LIMIT && export <= Gates.EXPORT_WAIT_LIMIT;
    }
  }

  /**
   * Searches one seed and prints its table.
   *
   * @param webhooks what slow webhook attempts do
   * @param levels the levels, in [2, 5]
   * @param seed the workload's seed
   * @param out where the table goes
   */
  static void search(Webhooks webhooks, int levels, long seed, PrintStream out) {
    double rate =
        Calibration.compute(
                KernelCalibration.REFERENCE, LevelsReplay.WORKERS, 2, Calibration.STEADY_TARGET)
            .rateScale();
    Workload w =
        Workload.generate(
            new WorkloadConfig(seed, 300, rate, 1, webhooks, Regime.SHIFT),
            KernelCalibration.REFERENCE);
    Map<JobType, double[]> sums = new EnumMap<>(JobType.class);
    for (Job j : w.jobs()) {
      double[] s = sums.computeIfAbsent(j.type(), t -> new double[2]);
      s[0] += j.plannedMillis();
      s[1]++;
    }
    List<JobType> ranked = new ArrayList<>(sums.keySet());
    ranked.sort(Comparator.comparingDouble(t -> sums.get(t)[0] / sums.get(t)[1]));
    RunMetrics fifo = metrics(w, Placement.fifo());
    RunMetrics oracle = metrics(w, Placement.oracle(w, levels));
    List<Split> splits = new ArrayList<>();
    for (int[] cuts : cuts(ranked.size(), levels - 1)) {
      Map<JobType, Integer> level = new EnumMap<>(JobType.class);
      for (int i = 0; i < ranked.size(); i++) {
        int l = 0;
        while (l < cuts.length && i >= cuts[l]) {
          l++;
        }
        level.put(ranked.get(i), l);
      }
      RunMetrics m = metrics(w, Placement.byType(level, levels));
      splits.add(
          new Split(
              cuts,
              m.all().meanMillis() / fifo.all().meanMillis() - 1,
              m.all().p99Millis() / fifo.all().p99Millis(),
              m.exportMaxWaitMillis() / fifo.exportMaxWaitMillis()));
    }
    Split best = splits.stream().min(Comparator.comparingDouble(Split::change)).orElseThrow();
    Split guarded =
        splits.stream()
            .filter(Split::guarded)
            .min(Comparator.comparingDouble(Split::change))
            .orElse(null);
    out.printf(
        Locale.ROOT,
        "| %d | oracle | %+.1f%% | %.2fx | %.2fx | each job by its planned cost |%n",
        seed,
        100 * (oracle.all().meanMillis() / fifo.all().meanMillis() - 1),
        oracle.all().p99Millis() / fifo.all().p99Millis(),
        oracle.exportMaxWaitMillis() / fifo.exportMaxWaitMillis());
    out.println(row(seed, "best split", best, ranked));
    out.println(
        guarded == null
            ? "| " + seed + " | best guarded split | - | - | - | none keeps the guardrails |"
            : row(seed, "best guarded split", guarded, ranked));
  }

  private static String row(long seed, String what, Split s, List<JobType> ranked) {
    StringBuilder groups = new StringBuilder();
    int from = 0;
    int[] ends = Arrays.copyOf(s.cuts(), s.cuts().length + 1);
    ends[ends.length - 1] = ranked.size();
    for (int l = 0; l < ends.length; l++) {
      groups.append(l == 0 ? "" : " / ");
      List<String> names = new ArrayList<>();
      for (int i = from; i < ends[l]; i++) {
        names.add(ranked.get(i).wireName());
      }
      groups.append(names.isEmpty() ? "-" : String.join(", ", names));
      from = Math.max(from, ends[l]);
    }
    return String.format(
        Locale.ROOT,
        "| %d | %s | %+.1f%% | %.2fx | %.2fx | %s |",
        seed,
        what,
        100 * s.change(),
        s.p99(),
        s.export(),
        groups);
  }

  /** Every non-decreasing list of {@code count} cuts in [0, n]. */
  static List<int[]> cuts(int n, int count) {
    List<int[]> out = new ArrayList<>();
    fill(new int[count], 0, 0, n, out);
    return out;
  }

  private static void fill(int[] cuts, int k, int from, int n, List<int[]> out) {
    if (k == cuts.length) {
      out.add(cuts.clone());
      return;
    }
    for (int c = from; c <= n; c++) {
      cuts[k] = c;
      fill(cuts, k + 1, c, n, out);
    }
  }

  private static RunMetrics metrics(Workload w, Placement p) {
    LevelsReplay.ReplayClock clock = new LevelsReplay.ReplayClock();
    return RunMetrics.of(LevelsReplay.replay(w, p, clock, Duration.ofMillis(5), null));
  }

  private static long integer(String raw, String rule) {
    try {
      return Long.parseLong(raw.strip());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(rule + ": " + raw, e);
    }
  }

  /**
   * Prints the table: {@code WEBHOOKS LEVELS SEEDS}, for example {@code succeeding 3 11,22,33}.
   *
   * @param args the webhooks ({@code failing} or {@code succeeding}), the levels (2 to 5) and the
   *     seeds, comma-separated
   */
  public static void main(String[] args) {
    int code = run(args, System.out, System.err);
    if (code != 0) {
      System.exit(code);
    }
  }

  /**
   * Runs the search for {@link #main}'s arguments.
   *
   * @param args as for {@link #main}
   * @param out where the table goes
   * @param err where a usage error goes
   * @return 0, or 2 for bad arguments
   */
  static int run(String[] args, PrintStream out, PrintStream err) {
    Webhooks webhooks;
    int levels;
    long[] seeds;
    try {
      if (args.length != 3) {
        throw new IllegalArgumentException("expected WEBHOOKS LEVELS SEEDS, got " + args.length);
      }
      webhooks = Webhooks.fromWireName(args[0]);
      levels = (int) integer(args[1], "LEVELS must be an integer");
      if (levels < 2 || levels > 5) {
        throw new IllegalArgumentException("LEVELS must be in [2, 5]: " + levels);
      }
      seeds =
          Arrays.stream(args[2].split(","))
              .mapToLong(s -> integer(s, "SEEDS must be integers"))
              .toArray();
    } catch (IllegalArgumentException e) {
      err.println("usage: TypeSearch failing|succeeding LEVELS SEED,SEED,...: " + e.getMessage());
      return 2;
    }
    out.printf(
        Locale.ROOT,
        "Whole job types on %d levels, ranked by mean planned cost, every contiguous split replayed"
            + " (%s webhooks); guardrails P99 <= %.2fx and export wait <= %.1fx FIFO's.%n%n",
        levels,
        webhooks.wireName(),
        Gates.P99_LIMIT,
        Gates.EXPORT_WAIT_LIMIT);
    out.println("| seed | placement | mean vs FIFO | P99 | export wait | levels |");
    out.println("|---|---|---:|---:|---:|---|");
    for (long seed : seeds) {
      search(webhooks, levels, seed, out);
    }
    return 0;
  }
}
