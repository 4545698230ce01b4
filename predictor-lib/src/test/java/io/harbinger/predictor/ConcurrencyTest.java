package io.harbinger.predictor;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class ConcurrencyTest {

  @Test
  void manyThreads_observingAndPredictingAtOnce_loseNoObservation() throws Exception {
    HistogramPredictor p =
        new HistogramPredictor(PredictorConfig.defaults(), Ticker.SYSTEM, Mode.PREDICTIVE);
    int writers = 4;
    int perWriter = 50_000;
    int keys = 64;
    CountDownLatch start = new CountDownLatch(1);
    ExecutorService pool = Executors.newFixedThreadPool(writers + 2);
    try {
      List<Future<?>> futures = new ArrayList<>();
      for (int w = 0; w < writers; w++) {
        int writer = w;
        futures.add(
            pool.submit(
                () -> {
                  start.await();
                  for (int i = 0; i < perWriter; i++) {
                    String key = "producer\u001Fjob" + ((i + writer) % keys);
                    if (p.observe(key, 1_000_000.0 * (1 + (i % keys))) != ObserveResult.ACCEPTED) {
                      throw new AssertionError("not accepted");
                    }
                  }
                  return null;
                }));
      }
      for (int r = 0; r < 2; r++) {
        futures.add(
            pool.submit(
                () -> {
                  start.await();
                  for (int i = 0; i < perWriter; i++) {
                    Prediction pr =
                        p.predict("producer\u001Fjob" + ThreadLocalRandom.current().nextInt(keys));
                    if (pr.level() < 0 || pr.level() >= 3) {
                      throw new AssertionError("bad level " + pr);
                    }
                  }
                  return null;
                }));
      }
      start.countDown();
      for (Future<?> f : futures) {
        f.get(60, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
    long total = (long) writers * perWriter;
    PredictorStats stats = p.stats();
    assertThat(stats.accepted()).isEqualTo(total);
    assertThat(stats.pooledObservations()).isEqualTo(total);
    assertThat(p.keyStats().stream().mapToLong(KeyStats::observations).sum()).isEqualTo(total);
    assertThat(stats.predictions().values().stream().mapToLong(Long::longValue).sum())
        .isEqualTo(2L * perWriter);
  }
}
