package io.harbinger.benchmarks;

import io.harbinger.predictor.HistogramPredictor;
import io.harbinger.predictor.Keys;
import io.harbinger.predictor.Mode;
import io.harbinger.predictor.PredictorConfig;
import io.harbinger.predictor.Ticker;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;

/**
 * Measures the heap retained per tracked key: the used heap after a full GC with N keys tracked,
 * minus the used heap of an empty predictor, divided by N.
 *
 * <p>Run: {@code java -XX:+UseSerialGC -Xmx2g -cp experiments/benchmarks/target/benchmarks.jar
 * io.harbinger.benchmarks.MemoryFootprint [keys]}. The predictor gets room for twice the keys so
 * that no shard overflows. Keys look like a real producer's: {@code
 * "orders-service\u001Fjob_type_000123"} (33 bytes).
 */
public final class MemoryFootprint {

  private MemoryFootprint() {}

  /**
   * Prints the measurement.
   *
   * @param args optional key count (default 100,000)
   */
  public static void main(String[] args) {
    int keys = args.length > 0 ? Integer.parseInt(args[0]) : 100_000;
    PredictorConfig config = PredictorConfig.builder().maxKeys(2 * keys).build();
    HistogramPredictor predictor = new HistogramPredictor(config, Ticker.SYSTEM, Mode.PREDICTIVE);
    String[] names = new String[keys];
    for (int i = 0; i < keys; i++) {
      names[i] = String.format("job_type_%06d", i);
    }
    long before = usedAfterGc();
    for (int round = 0; round < 25; round++) {
      for (int i = 0; i < keys; i++) {
        predictor.observe(Keys.of("orders-service", names[i]), 1_000_000.0 * (1 + i % 500));
      }
    }
    long after = usedAfterGc();
    int tracked = predictor.stats().keys();
    System.out.printf(
        "keys tracked: %d%nheap retained: %d bytes%nper key: %.0f bytes%n",
        tracked, after - before, (double) (after - before) / tracked);
    if (tracked != keys) {
      throw new IllegalStateException("expected " + keys + " keys, tracked " + tracked);
    }
  }

  private static long usedAfterGc() {
    MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
    for (int i = 0; i < 5; i++) {
      System.gc();
    }
    return memory.getHeapMemoryUsage().getUsed();
  }
}
