package io.harbinger.experiments.levels;

import io.harbinger.experiments.workload.Job;
import io.harbinger.experiments.workload.JobType;
import io.harbinger.experiments.workload.Workload;
import io.harbinger.predictor.Boundaries;
import io.harbinger.predictor.HistogramPredictor;
import io.harbinger.predictor.Keys;
import io.harbinger.predictor.Mode;
import io.harbinger.predictor.Prediction;
import io.harbinger.predictor.PredictorConfig;
import io.harbinger.predictor.PredictorTuning;
import io.harbinger.predictor.Ticker;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;

/**
 * How a job gets its level at publish, and what it learns when a job succeeds: FIFO, the oracle,
 * the naive median, or Harbinger's predictor.
 *
 * <p>Example: {@code Placement.oracle(workload, 3).place(job, now)} places a job by its planned
 * cost at the tertiles of the run's planned costs; {@code Placement.predictive(config, ticker)}
 * asks a {@link HistogramPredictor} and teaches it every successful duration under the key {@code
 * bench 0x1F <job type>}.
 *
 * <p>Thread-safety: the oracle and FIFO are stateless; the naive median and the predictor are
 * thread-safe.
 */
public interface Placement {

  /** The producer part of the predictor's keys. */
  String PRODUCER = "bench";

  /**
   * Returns the number of levels decisions fall in.
   *
   * @return in [1, 10]; 1 for FIFO
   */
  int levels();

  /**
   * Places one job.
   *
   * @param job the job being published
   * @param nowNanos the time of the publish
   * @return the level and why
   */
  Decision place(Job job, long nowNanos);

  /**
   * Learns one successful attempt.
   *
   * @param job the job
   * @param handlerNanos the successful attempt's handler time
   */
  void learned(Job job, double handlerNanos);

  /**
   * Returns the boundaries estimates are placed against now.
   *
   * @return milliseconds, or empty before there are any
   */
  Optional<double[]> boundariesMillis();

  /**
   * A placement decision.
   *
   * @param level the level, in [0, levels)
   * @param reason a lower-case word: a predictor outcome, {@code oracle}, {@code naive}, {@code
   *     naive_cold} or {@code fifo}
   * @param estimateMillis the estimate the level came from, or NaN
   */
  record Decision(int level, String reason, double estimateMillis) {
    /** Checks the fields. */
    public Decision {
      Objects.requireNonNull(reason, "reason");
      if (level < 0) {
        throw new IllegalArgumentException("level must be >= 0: " + level);
      }
    }
  }

  /**
   * Returns FIFO: one level.
   *
   * @return the placement
   */
  static Placement fifo() {
    return fixed(1, job -> new Decision(0, "fifo", Double.NaN), Optional.empty());
  }

  /**
   * Returns each job at its type's level: a fixed placement of whole job types.
   *
   * @param level the level of every job type the run has
   * @param levels the number of levels
   * @return the placement
   */
  static Placement byType(Map<JobType, Integer> level, int levels) {
    return fixed(
        levels, job -> new Decision(level.get(job.type()), "typed", Double.NaN), Optional.empty());
  }

  /** A placement that learns nothing: each job's decision is a function of the job alone. */
  private static Placement fixed(
      int levels, Function<Job, Decision> decide, Optional<double[]> boundariesMillis) {
    return new Placement() {
      @Override
      public int levels() {
        return levels;
      }

      @Override
      public Decision place(Job job, long nowNanos) {
        return decide.apply(job);
      }

      @Override
      public void learned(Job job, double handlerNanos) {}

      @Override
      public Optional<double[]> boundariesMillis() {
        return boundariesMillis;
      }
    };
  }

  /**
   * Returns the oracle: each job by its planned cost at the quantiles of the run's planned costs.
   *
   * @param workload the run's jobs
   * @param levels the number of levels, in [2, 10]
   * @return the placement
   */
  static Placement oracle(Workload workload, int levels) {
    PlannedCostLevels cuts = PlannedCostLevels.of(workload, levels);
    return fixed(
        levels,
        job -> new Decision(cuts.levelOf(job.plannedMillis()), "oracle", job.plannedMillis()),
        Optional.of(cuts.cutsMillis()));
  }

  /**
   * Returns the naive learner: per type the median of the last 101 durations, no gates, placed at
   * the quantiles of the run's planned costs.
   *
   * @param workload the run's jobs
   * @param levels the number of levels, in [2, 10]
   * @return the placement
   */
  static Placement naive(Workload workload, int levels) {
    PlannedCostLevels cuts = PlannedCostLevels.of(workload, levels);
    NaiveMedian naive = new NaiveMedian(cuts);
    return new Placement() {
      @Override
      public int levels() {
        return levels;
      }

      @Override
      public Decision place(Job job, long nowNanos) {
        double estimate = naive.estimateMillis(job.type());
        return new Decision(
            naive.level(job.type()), Double.isNaN(estimate) ? "naive_cold" : "naive", estimate);
      }

      @Override
      public void learned(Job job, double handlerNanos) {
        naive.learn(job.type(), handlerNanos / 1e6);
      }

      @Override
      public Optional<double[]> boundariesMillis() {
        return Optional.of(cuts.cutsMillis());
      }
    };
  }

  /**
   * Returns Harbinger's predictor with the product's tuning, cold, in predictive mode.
   *
   * @param config the predictor's settings
   * @param ticker its clock
   * @return the placement
   */
  static Placement predictive(PredictorConfig config, Ticker ticker) {
    return predictive(config, PredictorTuning.defaults(), ticker);
  }

  /**
   * Returns Harbinger's predictor, cold, in predictive mode.
   *
   * @param config the predictor's settings
   * @param tuning the lab's tuning of its other parameters
   * @param ticker its clock
   * @return the placement
   */
  static Placement predictive(PredictorConfig config, PredictorTuning tuning, Ticker ticker) {
    HistogramPredictor predictor = new HistogramPredictor(config, tuning, ticker, Mode.PREDICTIVE);
    return new Placement() {
      @Override
      public int levels() {
        return config.levels();
      }

      @Override
      public Decision place(Job job, long nowNanos) {
        Prediction p = predictor.predict(Keys.of(PRODUCER, job.type().wireName()), job.sizeHint());
        return decision(p);
      }

      @Override
      public void learned(Job job, double handlerNanos) {
        predictor.observe(Keys.of(PRODUCER, job.type().wireName()), job.sizeHint(), handlerNanos);
      }

      @Override
      public Optional<double[]> boundariesMillis() {
        return predictor.boundaries().map(Placement::millis);
      }

      @Override
      public String toString() {
        return predictor.stats().toString();
      }
    };
  }

  /**
   * Returns the decision a predictor's verdict amounts to.
   *
   * @param p the verdict
   * @return its level, its outcome in lower case and its estimate in milliseconds
   */
  static Decision decision(Prediction p) {
    return new Decision(
        p.level(), p.outcome().name().toLowerCase(Locale.ROOT), p.estimateNanos() / 1e6);
  }

  /**
   * Returns boundaries in milliseconds.
   *
   * @param b the boundaries
   * @return one value per boundary
   */
  static double[] millis(Boundaries b) {
    double[] nanos = b.toArray();
    for (int i = 0; i < nanos.length; i++) {
      nanos[i] /= 1e6;
    }
    return nanos;
  }
}
