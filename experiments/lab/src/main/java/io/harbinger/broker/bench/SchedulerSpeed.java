package io.harbinger.broker.bench;

import io.harbinger.broker.Policy;
import io.harbinger.predictor.HistogramPredictor;
import io.harbinger.predictor.Keys;
import io.harbinger.predictor.Mode;
import io.harbinger.predictor.PredictorConfig;
import io.harbinger.predictor.Ticker;
import io.harbinger.scheduler.AgingMode;
import io.harbinger.scheduler.FairScheduler;
import io.harbinger.scheduler.IngressPolicy;
import io.harbinger.scheduler.QueuedJob;
import io.harbinger.scheduler.Scheduler;
import io.harbinger.scheduler.SchedulerConfig;
import io.harbinger.scheduler.Selection;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * A rough single-thread speed check of the scheduling core as the simulator drives it: route,
 * submit, and with 64 jobs waiting poll, complete and learn, with an aging pass every 512 jobs, in
 * simulated time (1 us per arrival). Prints jobs per second for each arm, three repetitions (the
 * first includes JIT warm-up). Not a JMH benchmark: use it to see the order of magnitude.
 */
public final class SchedulerSpeed {

  private static long simulatedNanos;

  private SchedulerSpeed() {}

  /**
   * Runs the check.
   *
   * @param args optional: the number of jobs per repetition (default 2,000,000)
   */
  public static void main(String[] args) {
    int jobs = args.length > 0 ? Integer.parseInt(args[0]) : 2_000_000;
    Ticker ticker = () -> simulatedNanos;
    String[] types = {
      "reserve_inventory",
      "send_sms",
      "export_report",
      "push_notification",
      "resize_image",
      "reindex_product",
      "generate_invoice",
      "send_order_email",
      "deliver_webhook"
    };
    String[] keys = new String[types.length];
    for (int i = 0; i < types.length; i++) {
      keys[i] = Keys.of("shop", types[i]);
    }
    for (String arm :
        List.of("fifo", "static-tuned+weighted+pausing", "predictive+weighted", "fair")) {
      for (int rep = 0; rep < 3; rep++) {
        SchedulerConfig config = SchedulerConfig.defaults();
        if (arm.contains("weighted")) {
          config = config.withSelection(Selection.WEIGHTED).withAging(AgingMode.PAUSING);
        }
        HistogramPredictor predictor =
            new HistogramPredictor(PredictorConfig.defaults(), ticker, Mode.PREDICTIVE);
        // A queue per job type in equal shares of worker time, no prediction; else the levels.
        boolean fair = arm.equals("fair");
        Scheduler scheduler = fair ? new FairScheduler(ticker) : config.newScheduler(ticker);
        IngressPolicy ingress =
            fair
                ? IngressPolicy.fixed(arm, 0)
                : Policy.fromLabel(arm.split("\\+")[0]).newIngress(3, predictor);
        SplittableRandom random = new SplittableRandom(2026);
        long start = System.nanoTime();
        for (int i = 0; i < jobs; i++) {
          simulatedNanos += 1_000;
          int k = random.nextInt(types.length);
          QueuedJob job = new QueuedJob(keys[k], types[k], -1, k % 3);
          ingress.route(job);
          scheduler.submit(job);
          if (scheduler.size() > 64) {
            QueuedJob done = scheduler.poll();
            double durationNanos = 1e6 * (1 + done.flow().length());
            scheduler.completed(done, durationNanos);
            ingress.observe(done, durationNanos);
          }
          if ((i & 511) == 0) {
            scheduler.age();
          }
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        System.out.printf(Locale.ROOT, "%-30s rep %d: %,12.0f jobs/s%n", arm, rep, jobs / seconds);
      }
    }
  }
}
