package io.harbinger.check.trace;

import java.util.Locale;
import java.util.Set;

/**
 * The seeded synthetic trace generator: Poisson arrivals at a target offered load, Zipf key
 * popularity, per-key lognormal, bimodal or Pareto durations, and an optional cost shift.
 *
 * <p>Options (all optional): {@code seed} (1), {@code jobs} (100000), {@code keys} (100), {@code
 * distribution} = {@code lognormal} (default), {@code bimodal} or {@code pareto}; {@code load}
 * (0.8: the offered load on {@code workers} workers, default 64, as in seed paper section 4);
 * {@code zipf} (1.0: key {@code k} has weight 1/(k+1)^zipf); {@code minmedian} and {@code
 * maxmedian} (0.001 and 10 s: the range of per-key medians, log-uniform); {@code sigma} (0.5: the
 * lognormal shape, also the spread of each bimodal mode); {@code slowshare} (0.1) and {@code
 * slowratio} (100): the share and cost ratio of a bimodal key's slow jobs; {@code shape} (1.4) and
 * {@code cap} (1000): a Pareto key's tail index and its cap as a multiple of its median; {@code
 * shift} (1: none), {@code shiftat} (0.5) and {@code shiftkeys} (0.2): from job {@code
 * shiftat*jobs} on, the durations of a seeded choice of {@code shiftkeys*keys} keys are multiplied
 * by {@code shift}. {@code distribution=decoy} is the harmful case of seed paper section 5.2
 * (DAS2-fs2): even keys are bimodal (fast at their median, {@code slowshare} of their jobs {@code
 * slowratio} times slower), odd keys are lognormal at {@code honestratio} (2.5) times their median,
 * so a decoy's median says "short" while its slow jobs carry most of the work.
 *
 * <p>Example: {@code synthetic:seed=7,jobs=10000,keys=20,distribution=bimodal} gives 10,000 jobs
 * over keys {@code k00} to {@code k19}, each key fast (its median) 90% of the time and 100 times
 * slower otherwise, arriving as a Poisson process that keeps 64 workers 80% busy on average.
 *
 * <p>Implementation notes. Randomness comes from a SplitMix64 stream seeded with {@code seed} and
 * transcendental functions from {@link StrictMath}, so the same options give bit-identical traces
 * on every JVM. Durations are drawn first and rounded to the microsecond (at least 1 µs); the mean
 * gap between arrivals is then total work / (load x workers x jobs), so the realised offered load
 * over the trace is close to {@code load}. A Pareto key's scale is median / 2^(1/shape), so its
 * median is the key's median; the bimodal key is the one of seed paper section 3.5 whose tail the
 * spread check must catch.
 */
final class SyntheticGenerator implements TraceReader {

  private static final long NANOS_PER_MICRO = 1_000L;

  private final TraceSpec spec;

  SyntheticGenerator(TraceSpec spec) {
    this.spec = spec;
  }

  @Override
  public Trace read() throws TraceException {
    spec.requireOnly(
        Set.of(
            "seed",
            "jobs",
            "keys",
            "distribution",
            "load",
            "workers",
            "zipf",
            "minmedian",
            "maxmedian",
            "sigma",
            "slowshare",
            "slowratio",
            "shape",
            "cap",
            "shift",
            "shiftat",
            "shiftkeys",
            "honestratio"));
    long seed = spec.longOption("seed", 1, Long.MIN_VALUE, Long.MAX_VALUE);
    int jobs = (int) spec.longOption("jobs", 100_000, 1, 100_000_000);
    int keys = (int) spec.longOption("keys", 100, 1, 10_000_000);
    String distribution =
        spec.choiceOption(
            "distribution", "lognormal", Set.of("lognormal", "bimodal", "pareto", "decoy"));
    double load = spec.doubleOption("load", 0.8, 1e-6, 100);
    int workers = (int) spec.longOption("workers", 64, 1, 1_000_000);
    double zipf = spec.doubleOption("zipf", 1.0, 0, 10);
    double minMedian = spec.doubleOption("minmedian", 0.001, 1e-6, 86_400);
    double maxMedian = spec.doubleOption("maxmedian", 10, minMedian, 86_400);
    double sigma = spec.doubleOption("sigma", 0.5, 0, 5);
    double slowShare = spec.doubleOption("slowshare", 0.1, 0, 1);
    double slowRatio = spec.doubleOption("slowratio", 100, 1, 1e6);
    double shape = spec.doubleOption("shape", 1.4, 0.1, 100);
    double cap = spec.doubleOption("cap", 1000, 1, 1e9);
    double shift = spec.doubleOption("shift", 1, 1e-6, 1e6);
    double shiftAt = spec.doubleOption("shiftat", 0.5, 0, 1);
    double shiftKeys = spec.doubleOption("shiftkeys", 0.2, 0, 1);
    double honestRatio = spec.doubleOption("honestratio", 2.5, 1e-3, 1e3);

    SplitMix64 rng = new SplitMix64(seed);
    double[] medians = new double[keys];
    double logMin = StrictMath.log(minMedian);
    double logSpan = StrictMath.log(maxMedian) - logMin;
    for (int k = 0; k < keys; k++) {
      medians[k] = StrictMath.exp(logMin + rng.nextDouble() * logSpan);
    }
    double[] cumulative = new double[keys];
    double total = 0;
    for (int k = 0; k < keys; k++) {
      total += 1 / StrictMath.pow(k + 1, zipf);
      cumulative[k] = total;
    }
    boolean[] shifted = new boolean[keys];
    if (shift != 1) {
      int[] order = new int[keys];
      for (int k = 0; k < keys; k++) {
        order[k] = k;
      }
      int chosen = (int) Math.round(shiftKeys * keys);
      for (int i = 0; i < chosen; i++) {
        int j = i + (int) (rng.nextDouble() * (keys - i));
        int t = order[i];
        order[i] = order[j];
        order[j] = t;
        shifted[order[i]] = true;
      }
    }
    long shiftFrom = (long) Math.ceil(shiftAt * jobs);

    int[] keyOf = new int[jobs];
    long[] durationNanos = new long[jobs];
    double workSeconds = 0;
    for (int i = 0; i < jobs; i++) {
      int k = pick(cumulative, rng.nextDouble() * total);
      double m = medians[k];
      double seconds =
          switch (distribution) {
            case "lognormal" -> m * StrictMath.exp(sigma * rng.nextGaussian());
            case "bimodal" -> {
              double mode = rng.nextDouble() < slowShare ? m * slowRatio : m;
              yield mode * StrictMath.exp(sigma * rng.nextGaussian());
            }
            case "decoy" -> {
              double mode =
                  k % 2 == 1 ? m * honestRatio : rng.nextDouble() < slowShare ? m * slowRatio : m;
              yield mode * StrictMath.exp(sigma * rng.nextGaussian());
            }
            default -> {
              double scale = m / StrictMath.pow(2, 1 / shape);
              double x = scale * StrictMath.pow(1 - rng.nextDouble(), -1 / shape);
              yield Math.min(x, cap * m);
            }
          };
      if (shifted[k] && i >= shiftFrom) {
        seconds *= shift;
      }
      long micros = Math.max(1, Math.round(seconds * 1e6));
      keyOf[i] = k;
      durationNanos[i] = micros * NANOS_PER_MICRO;
      workSeconds += micros / 1e6;
    }
    double meanGapSeconds = workSeconds / (load * workers * jobs);

    TraceBuilder builder = new TraceBuilder(spec.text(), NANOS_PER_MICRO);
    int digits = Integer.toString(keys - 1).length();
    String pattern = "k%0" + digits + "d";
    for (int k = 0; k < keys; k++) {
      builder.intern(String.format(Locale.ROOT, pattern, k));
    }
    double arrivalSeconds = 0;
    for (int i = 0; i < jobs; i++) {
      arrivalSeconds += -StrictMath.log(1 - rng.nextDouble()) * meanGapSeconds;
      builder.add(LineFields.secondsToNanos(arrivalSeconds), durationNanos[i], keyOf[i], -1);
    }
    ReadTally tally = new ReadTally("synthetic generator");
    tally.readAndUsed(jobs);
    tally.note(
        String.format(
            Locale.ROOT,
            "seed %d, %d jobs, %d keys (zipf %s), %s durations, per-key medians %s to %s s",
            seed,
            jobs,
            keys,
            zipf,
            distribution,
            minMedian,
            maxMedian));
    tally.note(
        String.format(
            Locale.ROOT,
            "Poisson arrivals for offered load %s on %d workers (realised %.3f)",
            load,
            workers,
            workSeconds / (workers * Math.max(arrivalSeconds, 1e-9))));
    if (shift != 1) {
      tally.note(
          String.format(
              Locale.ROOT,
              "cost shift x%s from job %d on %d keys",
              shift,
              shiftFrom,
              Math.round(shiftKeys * keys)));
    }
    return builder.build(tally.report());
  }

  private static int pick(double[] cumulative, double target) {
    int lo = 0;
    int hi = cumulative.length - 1;
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (cumulative[mid] > target) {
        hi = mid;
      } else {
        lo = mid + 1;
      }
    }
    return lo;
  }

  /** SplitMix64 (Steele, Lea and Flood 2014): a fixed, portable stream of 64-bit values. */
  private static final class SplitMix64 {
    private long state;

    SplitMix64(long seed) {
      state = seed;
    }

    long nextLong() {
      long z = (state += 0x9E3779B97F4A7C15L);
      z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
      z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
      return z ^ (z >>> 31);
    }

    double nextDouble() {
      return (nextLong() >>> 11) * 0x1.0p-53;
    }

    double nextGaussian() {
      double u1 = 1 - nextDouble();
      double u2 = nextDouble();
      return StrictMath.sqrt(-2 * StrictMath.log(u1)) * StrictMath.cos(2 * Math.PI * u2);
    }
  }
}
