package io.harbinger.check;

import io.harbinger.check.CheckResult.Replay;
import io.harbinger.check.sim.WhatIf;
import io.harbinger.check.trace.ReadReport;
import io.harbinger.check.trace.Trace;
import io.harbinger.predictor.NearestRank;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * Measures whether per-key duration predictions would help on a workload, from its history alone.
 *
 * <p>Example: on the Azure Functions 2021 trace, 73.1% of held-out invocations are on routable keys
 * and a per-key median has 79.0% tier accuracy and a median |log2 error| of 0.387 (a factor of
 * 1.3), against 56.6% and 4.84 for a global median (the original implementation's Azure statistics,
 * which seed paper section 5.2, Table 8, rounds): the verdict is "turn it on".
 *
 * <p>Implementation notes. The jobs are split by arrival: the first half (floor(n/2) jobs) is the
 * history, the rest is held out, as in the simulator's history / evaluation split (seed paper
 * section 4: each trace is split into a history half and an evaluation half). From the history:
 * each key's median duration, the global median and the pooled tertiles, which define three tiers
 * (a duration up to the first tertile is tier 0, up to the second tier 1, above it tier 2); a key
 * is routable with at least {@code minObservations} history jobs, the predictor's own trust gate
 * (20, seed paper section 3.5). Every quantile is nearest-rank, as in the original implementation's
 * simulator. On the held-out jobs of routable keys, the key's median and the global median are each
 * scored by |log2(predicted / actual)|, the share within a factor of 2 (error at most 1) and tier
 * accuracy. Durations are floored before logarithms, ratios and tiers, at the trace's resolution
 * unless told otherwise (1 s for SWF logs, whose 0 s means under a second), so a 0 s job does not
 * produce an infinite error. The within-key spread is each routable key's history p99 / p50,
 * summarised by quantiles weighted by the key's history jobs.
 *
 * <p>Advice rules. Predictions <em>help</em> when the per-key tier accuracy beats the global
 * median's by at least 10 points and the per-key median |log2 error| is below 1 (a typical error
 * under a factor of 2). <em>Coverage</em> is the smaller of the routable share and the share of
 * held-out jobs the real predictor routed in the replay (which adds staleness and spread). "Turn it
 * on" needs help and coverage of at least 50%; "run in shadow only" needs help and coverage of at
 * least 20%; otherwise "not useful here". Why these numbers, from seed paper section 5.2 (Tables 8
 * and 16) and the original implementation's Azure statistics: on Azure, where the weighted design
 * passed its gate at loads 0.8 and 0.95, 73% of held-out jobs were routable and the per-key median
 * beat the global by 22 points of tier accuracy with an error of 0.39; on LPC-EGEE only 21% of
 * evaluated jobs got a prediction and the design stayed within noise of FIFO (+1.0% to +8.5%,
 * intervals including zero), so a minority of predicted jobs gives no measurable gain but no proven
 * harm, which is what shadow mode is for; on DAS2-fs2 predictions were about as good as a global
 * median and acting on them raised mean latency by 89% at load 0.8, which the 10-point rule
 * rejects.
 *
 * <p>The verdict also uses the global safeguard's estimator, the one model of "will this help"
 * shared with the predictor: the levels the replayed predictor routes the held-out jobs at, with
 * their actual durations. Below the safeguard's margin the advice is "not useful here" whatever the
 * accuracy, because the safeguard would hold FIFO order or, where only the routing of unmeasured
 * keys falls below the margin, the reordering would not be worth what it risks. At or above {@link
 * #AFFIRM_GAIN} it affirms what the accuracy rule alone would reject: accuracy is scored over every
 * key with enough history, while the predictor routes only the keys its trust gates pass, so a
 * workload whose trusted keys are accurate can gain although its keys are inaccurate overall
 * (LPC-EGEE: per-key medians worse than a global one, yet weights with pausing aging cut the
 * simulated mean by 59.5% at load 0.8). Such a workload is advised "run in shadow only" when the
 * predictor routes at least the shadow coverage, never "turn it on", since the accuracy rule is the
 * one with the seed paper's evidence behind it.
 */
public final class PredictabilityCheck {

  /** Tier-accuracy gain over the global median, in points, that counts as helping. */
  static final double MIN_TIER_GAIN = 0.10;

  /** Per-key median |log2 error| below which predictions count as accurate (a factor of 2). */
  static final double MAX_MEDIAN_LOG2_ERROR = 1.0;

  /** Coverage needed to turn routing on. */
  static final double TURN_ON_COVERAGE = 0.5;

  /** Coverage needed for shadow mode to be worth watching. */
  static final double SHADOW_COVERAGE = 0.2;

  /**
   * Estimated saving of FIFO's mean wait at which the estimator alone advises shadow mode. Five
   * times the safeguard's margin: on the shared traces, with seed paper Table 1's idle limits,
   * estimates of 2-4% came with simulated gains within 0.3% of FIFO, so a small estimate is within
   * the estimator's error.
   */
  static final double AFFIRM_GAIN = 0.10;

  /** How many reasons for skipped rows the verdict's basis names; the input section lists all. */
  private static final int BASIS_REASONS = 3;

  private PredictabilityCheck() {}

  /**
   * The check's settings.
   *
   * @param minObservations history jobs a key needs to be routable, in [1, 1000000]; 20 is the
   *     predictor's default
   * @param floorNanos the floor applied to durations, at least 0; 0 means the trace's resolution
   */
  public record Options(int minObservations, long floorNanos) {

    /** Checks the ranges. */
    public Options {
      if (minObservations < 1 || minObservations > 1_000_000) {
        throw new IllegalArgumentException(
            "minObservations must be in [1, 1000000]: " + minObservations);
      }
      if (floorNanos < 0) {
        throw new IllegalArgumentException("floorNanos must be at least 0: " + floorNanos);
      }
    }

    /**
     * Returns the defaults: 20 observations, the trace's resolution as the floor.
     *
     * @return the default options
     */
    public static Options defaults() {
      return new Options(20, 0);
    }
  }

  /**
   * Runs the check.
   *
   * @param trace the history, sorted by arrival, with at least 2 jobs
   * @param options the settings
   * @param whatIf the simulated what-if; {@link WhatIf#NOT_AVAILABLE} to skip it
   * @return the measurements and the verdict
   */
  public static CheckResult run(Trace trace, Options options, WhatIf whatIf) {
    Objects.requireNonNull(trace, "trace");
    Objects.requireNonNull(options, "options");
    Objects.requireNonNull(whatIf, "whatIf");
    int n = trace.size();
    if (n < 2) {
      throw new IllegalArgumentException("the check needs at least 2 jobs: " + n);
    }
    long floorNanos = options.floorNanos() > 0 ? options.floorNanos() : trace.resolutionNanos();
    String floorSource =
        options.floorNanos() > 0 ? "--floor-millis" : "the trace's duration resolution";
    double floor = floorNanos;
    int minObs = options.minObservations();
    int history = n / 2;
    int keys = trace.keyCount();

    double[] all = new double[n];
    int[] totalCount = new int[keys];
    int[] historyCount = new int[keys];
    for (int i = 0; i < n; i++) {
      all[i] = Math.max(trace.durationNanos(i), floor);
      totalCount[trace.keyId(i)]++;
      if (i < history) {
        historyCount[trace.keyId(i)]++;
      }
    }
    double[] historySorted = Arrays.copyOf(all, history);
    Arrays.sort(historySorted);
    double tier1 = nearestRank(historySorted, 0, history, 1.0 / 3);
    double tier2 = nearestRank(historySorted, 0, history, 2.0 / 3);
    double globalMedian = nearestRank(historySorted, 0, history, 0.5);

    int[] offsets = new int[keys + 1];
    for (int k = 0; k < keys; k++) {
      offsets[k + 1] = offsets[k] + historyCount[k];
    }
    double[] byKey = new double[history];
    int[] fill = Arrays.copyOf(offsets, keys);
    for (int i = 0; i < history; i++) {
      byKey[fill[trace.keyId(i)]++] = all[i];
    }
    double[] keyMedian = new double[keys];
    int historyKeys = 0;
    int routableKeys = 0;
    double[] spreadRatio = new double[keys];
    double[] spreadWeight = new double[keys];
    for (int k = 0; k < keys; k++) {
      int from = offsets[k];
      int to = offsets[k + 1];
      if (to > from) {
        historyKeys++;
        Arrays.sort(byKey, from, to);
        keyMedian[k] = nearestRank(byKey, from, to, 0.5);
      }
      if (to - from >= minObs) {
        spreadRatio[routableKeys] = nearestRank(byKey, from, to, 0.99) / keyMedian[k];
        spreadWeight[routableKeys] = to - from;
        routableKeys++;
      }
    }

    long onFrequentKeys = 0;
    for (int i = 0; i < n; i++) {
      if (totalCount[trace.keyId(i)] >= minObs) {
        onFrequentKeys++;
      }
    }
    int heldOut = n - history;
    double[] keyErrors = new double[heldOut];
    double[] globalErrors = new double[heldOut];
    int rows = 0;
    long cold = 0;
    long unseen = 0;
    long keyWithin = 0;
    long globalWithin = 0;
    long keyTierRight = 0;
    long globalTierRight = 0;
    int globalTier = tier(globalMedian, tier1, tier2);
    for (int i = history; i < n; i++) {
      int k = trace.keyId(i);
      int seen = historyCount[k];
      if (seen == 0) {
        unseen++;
        continue;
      }
      if (seen < minObs) {
        cold++;
        continue;
      }
      double actual = all[i];
      double keyError = Math.abs(log2(keyMedian[k] / actual));
      double globalError = Math.abs(log2(globalMedian / actual));
      keyErrors[rows] = keyError;
      globalErrors[rows] = globalError;
      rows++;
      keyWithin += keyError <= 1 ? 1 : 0;
      globalWithin += globalError <= 1 ? 1 : 0;
      int actualTier = tier(actual, tier1, tier2);
      keyTierRight += tier(keyMedian[k], tier1, tier2) == actualTier ? 1 : 0;
      globalTierRight += globalTier == actualTier ? 1 : 0;
    }
    CheckResult.Accuracy perKey = accuracy(keyErrors, rows, keyWithin, keyTierRight);
    CheckResult.Accuracy global = accuracy(globalErrors, rows, globalWithin, globalTierRight);
    CheckResult.Coverage coverage =
        new CheckResult.Coverage(
            (double) onFrequentKeys / n,
            historyKeys,
            routableKeys,
            (double) rows / heldOut,
            (double) cold / heldOut,
            (double) unseen / heldOut);
    CheckResult.Spread spread = weightedSpread(spreadRatio, spreadWeight, routableKeys);

    double[] sortedAll = new double[n];
    for (int i = 0; i < n; i++) {
      sortedAll[i] = trace.durationNanos(i);
    }
    Arrays.sort(sortedAll);
    CheckResult.TraceFacts facts =
        new CheckResult.TraceFacts(
            n,
            keys,
            (trace.arrivalNanos(n - 1) - trace.arrivalNanos(0)) / 1e9,
            nearestRank(sortedAll, 0, n, 0.5) / 1e9,
            nearestRank(sortedAll, 0, n, 0.9) / 1e9,
            nearestRank(sortedAll, 0, n, 0.99) / 1e9,
            sortedAll[n - 1] / 1e9,
            floor / 1e9,
            floorSource);
    CheckResult.Split split =
        new CheckResult.Split(
            history, heldOut, minObs, tier1 / 1e9, tier2 / 1e9, globalMedian / 1e9);
    CheckResult.Replay replay = PredictorReplay.run(trace, history, minObs);
    CheckResult.Replay few = PredictorReplay.fewObservations(trace, history);
    WhatIf.Result simulated = whatIf.simulate(trace, history);

    double gain = perKey.tierAccuracy() - global.tierAccuracy();
    double coverageShare = Math.min(coverage.routableShare(), replay.predictedShare());
    boolean helps =
        rows > 0 && gain >= MIN_TIER_GAIN && perKey.medianAbsLog2Error() < MAX_MEDIAN_LOG2_ERROR;
    double margin = PredictorReplay.safeguardMargin();
    boolean harmless = !(replay.estimatedGain() < margin);
    boolean affirmed =
        !helps
            && replay.estimatedGain() >= AFFIRM_GAIN
            && replay.predictedShare() >= SHADOW_COVERAGE;
    Advice verdict;
    String reason;
    if (helps && !harmless) {
      verdict = Advice.NOT_USEFUL;
      reason =
          String.format(
              Locale.ROOT,
              "per-key medians are accurate, but the levels the predictor routes the held-out jobs"
                  + " at are estimated to save %.1f%% of FIFO's mean wait (%s), below the global"
                  + " safeguard's margin of %.1f%%: %s",
              100 * replay.estimatedGain(),
              replay.gainNote(),
              100 * margin,
              replay.assignmentGain() < margin
                  ? "the safeguard would hold FIFO order"
                  : "reordering would not be worth what it risks");
    } else if (helps && coverageShare >= SHADOW_COVERAGE) {
      verdict = coverageShare >= TURN_ON_COVERAGE ? Advice.TURN_IT_ON : Advice.SHADOW_ONLY;
      reason = reason(verdict, rows, gain, perKey, coverage, replay, coverageShare);
    } else if (affirmed) {
      verdict = Advice.SHADOW_ONLY;
      reason =
          reason(Advice.NOT_USEFUL, rows, gain, perKey, coverage, replay, coverageShare)
              + String.format(
                  Locale.ROOT,
                  "; but the keys the predictor trusts are accurate enough: the levels it gives"
                      + " the held-out jobs (%.1f%% of them predicted) are estimated to save %.1f%%"
                      + " of FIFO's mean wait (%s; rule: >= %.0f%%), so watch it in shadow mode,"
                      + " where the global safeguard's estimate is exported as it runs",
                  100 * replay.predictedShare(),
                  100 * replay.estimatedGain(),
                  replay.gainNote(),
                  100 * AFFIRM_GAIN);
    } else {
      verdict = Advice.NOT_USEFUL;
      reason = reason(verdict, rows, gain, perKey, coverage, replay, coverageShare);
    }
    return new CheckResult(
        trace.name(),
        trace.report(),
        facts,
        split,
        coverage,
        perKey,
        global,
        spread,
        replay,
        few,
        simulated,
        verdict,
        reason,
        basis(trace.report(), split, perKey.rows(), replay));
  }

  /**
   * Says what the verdict rests on, so that a verdict on a small part of a large input reads as
   * such: the share of the rows read that became jobs, the commonest reasons for leaving rows out,
   * the held-out jobs and how many of them are on keys with enough history, and the observations
   * the predictor refused.
   */
  static String basis(ReadReport input, CheckResult.Split split, long routable, Replay replay) {
    StringBuilder s = new StringBuilder();
    s.append(
        String.format(
            Locale.ROOT,
            "%,d of the %,d rows read (%.1f%%)",
            input.rowsUsed(),
            input.rowsRead(),
            input.rowsRead() == 0 ? 0.0 : 100.0 * input.rowsUsed() / input.rowsRead()));
    if (input.rowsSkipped() > 0) {
      List<ReadReport.RowTally> reasons = new ArrayList<>(input.skipped());
      reasons.sort(Comparator.comparingLong(ReadReport.RowTally::count).reversed());
      List<String> named = new ArrayList<>();
      for (ReadReport.RowTally t : reasons.subList(0, Math.min(BASIS_REASONS, reasons.size()))) {
        named.add(String.format(Locale.ROOT, "%,d %s", t.count(), t.reason()));
      }
      s.append("; left out: ").append(String.join(", ", named));
      if (reasons.size() > BASIS_REASONS) {
        s.append(
            String.format(
                Locale.ROOT,
                " and %d more reason%s (listed under input)",
                reasons.size() - BASIS_REASONS,
                reasons.size() - BASIS_REASONS == 1 ? "" : "s"));
      }
    }
    s.append(
        String.format(
            Locale.ROOT,
            "; the verdict rests on the %,d held-out jobs (the later half by arrival), %,d of them"
                + " on keys with >= %d history jobs",
            split.heldOutJobs(),
            routable,
            split.minObservations()));
    if (replay.rejectedObservations() > 0) {
      s.append(
          String.format(
              Locale.ROOT,
              "; the predictor refused %,d observation%s longer than one day and learned nothing"
                  + " from %s",
              replay.rejectedObservations(),
              replay.rejectedObservations() == 1 ? "" : "s",
              replay.rejectedObservations() == 1 ? "it" : "them"));
    }
    return s.toString();
  }

  private static String reason(
      Advice verdict,
      int rows,
      double gain,
      CheckResult.Accuracy perKey,
      CheckResult.Coverage coverage,
      CheckResult.Replay replay,
      double coverageShare) {
    if (rows == 0) {
      return "no held-out job is on a key with enough history, so no per-key prediction can be made";
    }
    String accuracy =
        String.format(
            Locale.ROOT,
            "per-key medians beat a global median by %+.1f points of tier accuracy (rule: >= %.0f)"
                + " with a median |log2 error| of %.3f (rule: < %.0f)",
            100 * gain,
            100 * MIN_TIER_GAIN,
            perKey.medianAbsLog2Error(),
            MAX_MEDIAN_LOG2_ERROR);
    String covered =
        String.format(
            Locale.ROOT,
            "coverage %.1f%% (the smaller of %.1f%% of held-out jobs on routable keys and %.1f%%"
                + " predicted by the real predictor)",
            100 * coverageShare,
            100 * coverage.routableShare(),
            100 * replay.predictedShare());
    return switch (verdict) {
      case TURN_IT_ON -> accuracy + ", and " + covered + " is at least " + pct(TURN_ON_COVERAGE);
      case SHADOW_ONLY ->
          accuracy
              + ", but "
              + covered
              + " is under "
              + pct(TURN_ON_COVERAGE)
              + ": predictions would move a minority of jobs, so watch them in shadow mode first";
      case NOT_USEFUL -> {
        List<String> failed = new ArrayList<>();
        if (gain < MIN_TIER_GAIN) {
          failed.add(
              String.format(
                  Locale.ROOT,
                  "per-key medians beat a global median by only %+.1f points of tier accuracy"
                      + " (needs >= %.0f)",
                  100 * gain,
                  100 * MIN_TIER_GAIN));
        }
        if (!(perKey.medianAbsLog2Error() < MAX_MEDIAN_LOG2_ERROR)) {
          failed.add(
              String.format(
                  Locale.ROOT,
                  "the per-key median |log2 error| is %.3f, a typical miss of x%.2f (needs < %.0f)",
                  perKey.medianAbsLog2Error(),
                  StrictMath.pow(2, perKey.medianAbsLog2Error()),
                  MAX_MEDIAN_LOG2_ERROR));
        }
        if (coverageShare < SHADOW_COVERAGE) {
          failed.add(covered + " is under " + pct(SHADOW_COVERAGE));
        }
        yield String.join("; ", failed);
      }
    };
  }

  private static String pct(double share) {
    return String.format(Locale.ROOT, "%.0f%%", 100 * share);
  }

  private static CheckResult.Accuracy accuracy(
      double[] errors, int rows, long within, long tierRight) {
    if (rows == 0) {
      return new CheckResult.Accuracy(0, Double.NaN, Double.NaN, Double.NaN);
    }
    Arrays.sort(errors, 0, rows);
    return new CheckResult.Accuracy(
        rows, nearestRank(errors, 0, rows, 0.5), (double) within / rows, (double) tierRight / rows);
  }

  private static CheckResult.Spread weightedSpread(double[] ratio, double[] weight, int count) {
    if (count == 0) {
      return new CheckResult.Spread(0, Double.NaN, Double.NaN, Double.NaN, Double.NaN);
    }
    Integer[] order = new Integer[count];
    double total = 0;
    for (int i = 0; i < count; i++) {
      order[i] = i;
      total += weight[i];
    }
    Arrays.sort(order, (a, b) -> Double.compare(ratio[a], ratio[b]));
    double[] qs = {0.25, 0.5, 0.75, 0.9};
    double[] out = new double[qs.length];
    for (int q = 0; q < qs.length; q++) {
      double target = qs[q] * total;
      double cumulative = 0;
      out[q] = ratio[order[count - 1]];
      for (int i = 0; i < count; i++) {
        cumulative += weight[order[i]];
        if (cumulative >= target) {
          out[q] = ratio[order[i]];
          break;
        }
      }
    }
    return new CheckResult.Spread(count, out[0], out[1], out[2], out[3]);
  }

  /** Nearest-rank quantile of sorted values[from, to): the value at rank ceil(q * count). */
  static double nearestRank(double[] sorted, int from, int to, double q) {
    int count = to - from;
    assert count > 0;
    return sorted[from + NearestRank.index(count, q * 100)];
  }

  static int tier(double durationNanos, double tier1, double tier2) {
    return durationNanos <= tier1 ? 0 : durationNanos <= tier2 ? 1 : 2;
  }

  private static double log2(double x) {
    return StrictMath.log(x) / StrictMath.log(2);
  }
}
