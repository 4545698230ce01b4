package io.harbinger.benchmarks;

import io.harbinger.predictor.HistogramPredictor;
import io.harbinger.predictor.Keys;
import io.harbinger.predictor.Mode;
import io.harbinger.predictor.ObserveResult;
import io.harbinger.predictor.Prediction;
import io.harbinger.predictor.PredictorConfig;
import io.harbinger.predictor.Ticker;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Cost of one prediction and one observation on a warm predictor whose keys are all trusted.
 *
 * <p>Run single-threaded and with two threads ({@code -t 2}); {@code keys} sets how many keys are
 * tracked. Each thread walks the keys in a pseudo-random order, so the working set is the whole
 * predictor. {@code predictFreshKey} also builds the key string from its parts, as a publisher
 * does, so it includes the string concatenation and hash that a cached key avoids.
 */
@State(Scope.Benchmark)
@BenchmarkMode(org.openjdk.jmh.annotations.Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(
    value = 1,
    jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
public class PredictorBenchmark {

  @Param({"1000", "10000", "100000"})
  public int keys;

  HistogramPredictor predictor;
  String[] keyNames;
  String[] jobTypes;

  /** Per-thread cursor over the keys. */
  @State(Scope.Thread)
  public static class Cursor {
    private int x = (int) (System.nanoTime() | 1);

    int next(int bound) {
      x ^= x << 13;
      x ^= x >>> 17;
      x ^= x << 5;
      return (x & 0x7fffffff) % bound;
    }
  }

  /** Builds a predictor in which every key has 25 observations and boundaries are published. */
  @Setup(Level.Trial)
  public void setUp() {
    PredictorConfig config = PredictorConfig.builder().maxKeys(Math.max(keys, 16_384)).build();
    predictor = new HistogramPredictor(config, Ticker.SYSTEM, Mode.PREDICTIVE);
    keyNames = new String[keys];
    jobTypes = new String[keys];
    for (int i = 0; i < keys; i++) {
      jobTypes[i] = "job_type_" + i;
      keyNames[i] = Keys.of("producer", jobTypes[i]);
    }
    for (int round = 0; round < 25; round++) {
      for (int i = 0; i < keys; i++) {
        double base = 1_000_000.0 * (1 + (i % 300));
        predictor.observe(keyNames[i], base * (1 + 0.01 * (round % 5)));
      }
    }
    if (!predictor.predict(keyNames[0]).isPredicted()) {
      throw new IllegalStateException("setup failed: key not predicted");
    }
  }

  /** One prediction of a tracked, trusted key. */
  @Benchmark
  public Prediction predict(Cursor cursor) {
    return predictor.predict(keyNames[cursor.next(keys)]);
  }

  /** One prediction including building the key from its producer and job type. */
  @Benchmark
  public Prediction predictFreshKey(Cursor cursor) {
    return predictor.predict(Keys.of("producer", jobTypes[cursor.next(keys)]));
  }

  /**
   * One observation of a tracked key (per-key and pooled histograms, boundary refresh every 256).
   */
  @Benchmark
  public ObserveResult observe(Cursor cursor) {
    int i = cursor.next(keys);
    return predictor.observe(keyNames[i], 1_000_000.0 * (1 + (i % 300)));
  }
}
