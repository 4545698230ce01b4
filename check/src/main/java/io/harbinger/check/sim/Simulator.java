package io.harbinger.check.sim;

import io.harbinger.check.trace.Trace;
import io.harbinger.predictor.HistogramPredictor;
import io.harbinger.predictor.ManualTicker;
import io.harbinger.predictor.Mode;
import io.harbinger.predictor.Outcome;
import io.harbinger.predictor.Predictor;
import io.harbinger.predictor.PredictorConfig;
import io.harbinger.predictor.Ticker;
import io.harbinger.scheduler.AgingMode;
import io.harbinger.scheduler.IngressPolicy;
import io.harbinger.scheduler.LevelScheduler;
import io.harbinger.scheduler.PredictiveIngress;
import io.harbinger.scheduler.QueuedJob;
import io.harbinger.scheduler.SchedulerConfig;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.function.Function;

/**
 * The discrete-event simulator: non-preemptive workers fed by the broker's scheduling core, with
 * the predictor driven by simulated time.
 *
 * <p>Example: {@code Simulator.run(SimInput.atLoad(trace, trace.size() / 2, 64, 0.8),
 * SimulatedArm.parse("predictive_warm+weights"), 2026)} warms a predictor on the first half, then
 * replays the second half at load 0.8 on 64 workers with weights 8:3:1 and pausing aging.
 *
 * <p>Implementation notes (seed paper section 5.6, with the original implementation's simulator
 * rules). The next event is the earliest of a completion, an arrival and an aging tick; on equal
 * times a completion goes first, then an arrival, then the tick. After every event idle workers
 * take jobs from the scheduler until it is empty or no worker is idle. Aging ticks fall on
 * multiples of the aging interval (0.5 s) while anything waits. Jobs are placed by the scheduling
 * core's own ingress policies, as in the broker: the predictor predicts at arrival and learns at
 * completion through {@link PredictiveIngress}, whose trusted estimate becomes the job's cost for
 * weighted selection; the static maps are keyed by the trace's key ({@code static_hindsight} takes
 * each key's median over the evaluation jobs, which no learner knows in advance); the oracle reads
 * the job's true tier. {@code predictive_warm} first observes every history row at its simulated
 * (negative) arrival time. Workers are a binary heap of end times; ties between completions go to
 * the lower job index, so a run is a pure function of its input, arm and seed. There are 3 levels
 * and the default level is 1.
 *
 * <p>Not thread-safe; one run uses one thread. Different runs share nothing but the trace.
 */
public final class Simulator {

  /** The number of levels. */
  public static final int LEVELS = 3;

  private Simulator() {}

  /**
   * Runs one arm.
   *
   * @param input the prepared trace
   * @param arm the arm
   * @param seed the seed of {@code static_random}'s levels
   * @return each evaluation job's start and end
   */
  public static SimRun run(SimInput input, SimulatedArm arm, long seed) {
    return run(input, arm, seed, PredictorConfig.defaults());
  }

  /**
   * Runs one arm with a given predictor configuration.
   *
   * @param input the prepared trace
   * @param arm the arm
   * @param seed the seed of {@code static_random}'s levels
   * @param predictor the configuration of the predictor of predictive arms; its levels must be 3
   * @return each evaluation job's start and end
   * @throws IllegalArgumentException for a predictor whose levels are not 3
   */
  public static SimRun run(SimInput input, SimulatedArm arm, long seed, PredictorConfig predictor) {
    Objects.requireNonNull(input, "input");
    Objects.requireNonNull(predictor, "predictor");
    checkLevels(predictor.levels());
    return run(
        input, arm, seed, ticker -> new HistogramPredictor(predictor, ticker, Mode.PREDICTIVE));
  }

  /**
   * Runs one arm with the predictors a factory makes, for predictors that a {@link PredictorConfig}
   * alone does not describe.
   *
   * @param input the prepared trace
   * @param arm the arm
   * @param seed the seed of {@code static_random}'s levels
   * @param predictors makes the predictor of a predictive arm, in predictive mode, from the
   *     simulator's ticker, which it must read its time from; its levels must be 3
   * @return each evaluation job's start and end
   * @throws IllegalArgumentException for a predictor whose levels are not 3
   */
  public static SimRun run(
      SimInput input,
      SimulatedArm arm,
      long seed,
      Function<Ticker, ? extends Predictor> predictors) {
    Objects.requireNonNull(input, "input");
    Objects.requireNonNull(predictors, "predictors");
    Objects.requireNonNull(arm, "arm");
    Engine e = new Engine(input, arm, seed);
    e.predictors = predictors;
    return e.run();
  }

  private static void checkLevels(int levels) {
    if (levels != LEVELS) {
      throw new IllegalArgumentException(
          "the simulator's predictor must have " + LEVELS + " levels: " + levels);
    }
  }

  /**
   * Runs jobs with fixed levels, for validation against queueing formulas.
   *
   * @param input the prepared trace
   * @param levels each evaluation job's level in [0, levels)
   * @param arm the selection and aging (its routing is ignored)
   * @return each evaluation job's start and end
   */
  static SimRun runFixed(SimInput input, int[] levels, SimulatedArm arm) {
    Engine e = new Engine(input, arm, 0);
    e.fixedLevels = levels;
    return e.run();
  }

  private static final class SimJob extends QueuedJob {
    final int index;

    SimJob(String key, long sizeHint, int oracleTier, int index) {
      super(key, key, sizeHint, oracleTier);
      this.index = index;
    }
  }

  private static final class Engine {
    private final SimInput input;
    private final SimulatedArm arm;
    private final long seed;
    private final ManualTicker clock = new ManualTicker();
    private int[] fixedLevels;
    private Function<Ticker, ? extends Predictor> predictors =
        ticker -> new HistogramPredictor(PredictorConfig.defaults(), ticker, Mode.PREDICTIVE);

    Engine(SimInput input, SimulatedArm arm, long seed) {
      this.input = input;
      this.arm = arm;
      this.seed = seed;
    }

    SimRun run() {
      Trace trace = input.trace();
      int history = input.historyJobs();
      int n = input.evaluationJobs();
      SchedulerConfig config =
          SchedulerConfig.defaults().withSelection(arm.selection()).withAging(arm.aging());
      LevelScheduler scheduler = config.newScheduler(clock);
      IngressPolicy ingress = fixedLevels == null ? ingress() : fixed(fixedLevels);
      boolean oracle = fixedLevels == null && arm.routing() == SimulatedArm.Routing.ORACLE;
      boolean aging = arm.aging() != AgingMode.NONE;
      long intervalNanos = config.agingInterval().toNanos();
      int workers = input.workers();
      long[] heapEnd = new long[workers];
      SimJob[] heapJob = new SimJob[workers];
      int busy = 0;
      long[] start = new long[n];
      long[] end = new long[n];
      byte[] routed = new byte[n];
      boolean[] estimated = new boolean[n];
      long promotions = 0;
      long nextTick = Long.MAX_VALUE;
      int next = 0;
      clock.set(n == 0 ? 0 : Math.min(0, input.arrivalNanos(0)));
      while (next < n || busy > 0) {
        long tc = busy > 0 ? heapEnd[0] : Long.MAX_VALUE;
        long ta = next < n ? input.arrivalNanos(next) : Long.MAX_VALUE;
        if (tc <= ta && tc <= nextTick) {
          clock.set(tc);
          SimJob job = heapJob[0];
          busy--;
          heapEnd[0] = heapEnd[busy];
          heapJob[0] = heapJob[busy];
          heapJob[busy] = null;
          siftDown(heapEnd, heapJob, busy, 0);
          double duration = trace.durationNanos(history + job.index);
          scheduler.completed(job, duration);
          ingress.observe(job, duration);
        } else if (ta <= nextTick) {
          clock.set(ta);
          int t = history + next;
          int tier = oracle ? input.tierOf(trace.durationNanos(t)) : -1;
          SimJob job = new SimJob(trace.key(t), trace.sizeHint(t), tier, next);
          ingress.route(job);
          routed[next] = (byte) job.level();
          estimated[next] = !Double.isNaN(job.estimateNanos());
          scheduler.submit(job);
          next++;
        } else {
          clock.set(nextTick);
          promotions += scheduler.age();
          nextTick += intervalNanos;
        }
        long now = clock.nanos();
        while (busy < workers) {
          SimJob job = (SimJob) scheduler.poll();
          if (job == null) {
            break;
          }
          start[job.index] = now;
          long e = now + trace.durationNanos(history + job.index);
          end[job.index] = e;
          heapEnd[busy] = e;
          heapJob[busy] = job;
          siftUp(heapEnd, heapJob, busy);
          busy++;
        }
        if (!aging || scheduler.size() == 0) {
          nextTick = Long.MAX_VALUE;
        } else if (nextTick == Long.MAX_VALUE) {
          nextTick = Math.floorDiv(now, intervalNanos) * intervalNanos + intervalNanos;
        }
      }
      if (scheduler.size() != 0) {
        throw new IllegalStateException("jobs left waiting at the end: " + scheduler.size());
      }
      long[] outcomes =
          ingress instanceof PredictiveIngress p ? p.outcomes() : new long[Outcome.values().length];
      return new SimRun(input, arm, start, end, outcomes, promotions, routed, estimated);
    }

    /** Returns the arm's ingress: the predictor's, a static map by key, the oracle or FIFO. */
    private IngressPolicy ingress() {
      String name = arm.name();
      return switch (arm.routing()) {
        case PREDICTIVE_COLD, PREDICTIVE_WARM -> {
          Predictor predictor = predictors.apply(clock);
          checkLevels(predictor.levels());
          if (arm.routing() == SimulatedArm.Routing.PREDICTIVE_WARM) {
            Trace trace = input.trace();
            for (int i = 0; i < input.historyJobs(); i++) {
              clock.set(input.simulatedNanos(trace.arrivalNanos(i)));
              predictor.observe(trace.key(i), trace.sizeHint(i), trace.durationNanos(i));
            }
          }
          yield IngressPolicy.predictive(name, predictor);
        }
        case ORACLE -> IngressPolicy.oracle(name, LEVELS);
        case STATIC_HISTORY, STATIC_HINDSIGHT, STATIC_RANDOM ->
            IngressPolicy.staticMap(name, LEVELS, keyLevels());
        case FIFO -> IngressPolicy.fixed(name, 0);
      };
    }

    /** Returns an ingress that places each evaluation job at a given level. */
    private static IngressPolicy fixed(int[] levels) {
      return new IngressPolicy() {
        @Override
        public String name() {
          return "fixed";
        }

        @Override
        public void route(QueuedJob job) {
          job.place(levels[((SimJob) job).index]);
        }
      };
    }

    /** Returns each key's level for the static maps, by key. */
    private Map<String, Integer> keyLevels() {
      Trace trace = input.trace();
      int[] levels = new int[trace.keyCount()];
      switch (arm.routing()) {
        case STATIC_HISTORY -> medianTiers(levels, 0, input.historyJobs());
        case STATIC_HINDSIGHT ->
            medianTiers(levels, input.historyJobs(), input.historyJobs() + input.evaluationJobs());
        case STATIC_RANDOM -> {
          SplittableRandom rng = new SplittableRandom(seed);
          for (int k = 0; k < levels.length; k++) {
            levels[k] = rng.nextInt(LEVELS);
          }
        }
        default -> throw new IllegalStateException("not a static routing: " + arm.routing());
      }
      Map<String, Integer> byKey = new HashMap<>();
      for (int k = 0; k < levels.length; k++) {
        byKey.put(trace.keyName(k), levels[k]);
      }
      return byKey;
    }

    /**
     * Sets each key's level to the tier of its median duration over the trace rows in [from, to); a
     * key without a row there takes the default level.
     */
    private void medianTiers(int[] levels, int from, int to) {
      Trace trace = input.trace();
      int[] counts = new int[trace.keyCount()];
      for (int i = from; i < to; i++) {
        counts[trace.keyId(i)]++;
      }
      long[][] durations = new long[trace.keyCount()][];
      for (int k = 0; k < counts.length; k++) {
        durations[k] = new long[counts[k]];
        counts[k] = 0;
      }
      for (int i = from; i < to; i++) {
        int k = trace.keyId(i);
        durations[k][counts[k]++] = trace.durationNanos(i);
      }
      for (int k = 0; k < levels.length; k++) {
        long[] d = durations[k];
        if (d.length == 0) {
          levels[k] = 1;
        } else {
          Arrays.sort(d);
          levels[k] = input.tierOf(d[(d.length - 1) / 2]);
        }
      }
    }
  }

  private static boolean before(long[] ends, SimJob[] jobs, int a, int b) {
    return ends[a] < ends[b] || (ends[a] == ends[b] && jobs[a].index < jobs[b].index);
  }

  private static void siftUp(long[] ends, SimJob[] jobs, int i) {
    while (i > 0) {
      int parent = (i - 1) >>> 1;
      if (!before(ends, jobs, i, parent)) {
        return;
      }
      swap(ends, jobs, i, parent);
      i = parent;
    }
  }

  private static void siftDown(long[] ends, SimJob[] jobs, int size, int i) {
    while (true) {
      int left = 2 * i + 1;
      if (left >= size) {
        return;
      }
      int least = left;
      if (left + 1 < size && before(ends, jobs, left + 1, left)) {
        least = left + 1;
      }
      if (!before(ends, jobs, least, i)) {
        return;
      }
      swap(ends, jobs, i, least);
      i = least;
    }
  }

  private static void swap(long[] ends, SimJob[] jobs, int a, int b) {
    long e = ends[a];
    ends[a] = ends[b];
    ends[b] = e;
    SimJob j = jobs[a];
    jobs[a] = jobs[b];
    jobs[b] = j;
  }
}
