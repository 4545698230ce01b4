package io.harbinger.benchmarks.rabbit;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import io.harbinger.predictor.Mode;
import io.harbinger.predictor.Outcome;
import io.harbinger.predictor.Prediction;
import io.harbinger.predictor.Router;
import io.harbinger.rabbit.ChannelOptions;
import io.harbinger.rabbit.LaneFetch;
import io.harbinger.rabbit.LaneLayout;
import io.harbinger.rabbit.LaneOptions;
import io.harbinger.rabbit.Lanes;
import io.harbinger.rabbit.PredictiveChannels;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Starvation on RabbitMQ: sustained overload by short work with a trickle of long jobs, through
 * strict lanes and through weighted lanes, one after the other on the same broker.
 *
 * <p>One consumer (prefetch 1) serves 3-level lanes. Short jobs (level 0, a 2 ms handler) arrive at
 * 1.5 times what it can serve, so their lane never empties; a long job (level 2, a 50 ms handler)
 * arrives every second. Under strict priority a long job runs only when the short lane is empty,
 * which it never is: the longest long-job wait grows with the run. With weights (8, 3, 1) and the
 * middle lane empty, the long lane gets 1/9 of the worker time while both have work, so a long job
 * waits at most about (8 + 1) x 50 ms = 0.45 s behind the short work charged before it, plus the
 * long jobs queued ahead of it (the trickle needs 5% of the worker time, under its 11% share, so
 * none accumulate). It prints, per arm, the long jobs published and run, and the longest long-job
 * wait (publish to handler start; a long job still waiting at the end counts with its wait so far).
 *
 * <p>Run with {@code java -cp experiments/benchmarks/target/benchmarks.jar
 * io.harbinger.benchmarks.rabbit.LanesStarvation [--seconds S] [--pull]} (default 120 s per arm;
 * {@code --pull} consumes the lanes by pulling, {@link LaneFetch#PULL}). The broker is found from
 * {@code RABBITMQ_URI} (default the loopback guest account).
 */
public final class LanesStarvation {

  private static final long SHORT_MILLIS = 2;
  private static final long LONG_MILLIS = 50;

  private LanesStarvation() {}

  /**
   * Runs both arms.
   *
   * @param args {@code --seconds S}
   * @throws Exception on a broker failure
   */
  public static void main(String[] args) throws Exception {
    int seconds = 120;
    LaneFetch fetch = LaneFetch.PUSH;
    for (int i = 0; i < args.length; i++) {
      if (args[i].equals("--seconds")) {
        seconds = Integer.parseInt(args[++i]);
      } else if (args[i].equals("--pull")) {
        fetch = LaneFetch.PULL;
      } else {
        throw new IllegalArgumentException("unknown option: " + args[i]);
      }
    }
    if (seconds < 1 || seconds > 3600) {
      throw new IllegalArgumentException("--seconds must be in [1, 3600]: " + seconds);
    }
    ConnectionFactory factory = new ConnectionFactory();
    factory.setUri(
        System.getenv().getOrDefault("RABBITMQ_URI", "amqp://guest:guest@127.0.0.1:5672/%2F"));
    System.out.printf(
        Locale.ROOT,
        "%d s per arm; short jobs %d ms at 1.5x one consumer's capacity, one %d ms long job a"
            + " second; bound implied by weights 8:3:1 with the middle lane empty: about %.2f s%n",
        seconds,
        SHORT_MILLIS,
        LONG_MILLIS,
        9 * LONG_MILLIS / 1000.0);
    for (LaneOptions options : List.of(LaneOptions.strict(), LaneOptions.defaults())) {
      run(factory, options.withFetch(fetch), seconds);
    }
  }

  private static void run(ConnectionFactory factory, LaneOptions options, int seconds)
      throws Exception {
    String queue = "harbinger.bench.starvation." + UUID.randomUUID().toString().substring(0, 8);
    String user = factory.getUsername();
    try (Connection connection = factory.newConnection("harbinger-lanes-starvation")) {
      LaneLayout layout;
      try (Channel admin = connection.createChannel()) {
        layout = Lanes.declare(admin, queue, 3, Map.of());
      }
      Map<String, Long> publishedAt = new ConcurrentHashMap<>();
      Map<String, Long> startedAt = new ConcurrentHashMap<>();
      AtomicLong shortsRun = new AtomicLong();
      Channel consumer =
          PredictiveChannels.wrap(
              connection.createChannel(), ChannelOptions.builder(user).lanes(options).build());
      consumer.basicQos(1);
      consumer.basicConsume(
          queue,
          false,
          (tag, d) -> {
            String id = d.getProperties().getMessageId();
            boolean longJob = id.startsWith("long");
            if (longJob) {
              startedAt.put(id, System.nanoTime());
            } else {
              shortsRun.incrementAndGet();
            }
            try {
              Thread.sleep(longJob ? LONG_MILLIS : SHORT_MILLIS);
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
            consumer.basicAck(d.getEnvelope().getDeliveryTag(), false);
          },
          tag -> {});
      Channel producer =
          PredictiveChannels.wrap(
              connection.createChannel(), ChannelOptions.builder(user).router(router()).build());
      // Capacity: one consumer runs a 2 ms job in a bit over 2 ms; 1.5x that is ~600 short jobs/s.
      long shortIntervalNanos = TimeUnit.MICROSECONDS.toNanos(1_667);
      long start = System.nanoTime();
      long end = start + TimeUnit.SECONDS.toNanos(seconds);
      long nextShort = start;
      long nextLong = start + TimeUnit.MILLISECONDS.toNanos(500);
      int shorts = 0;
      int longs = 0;
      while (System.nanoTime() < end) {
        long now = System.nanoTime();
        while (nextShort <= now) {
          producer.basicPublish("", queue, job("short", "short-" + shorts++), new byte[0]);
          nextShort += shortIntervalNanos;
        }
        if (nextLong <= now) {
          String id = "long-" + longs++;
          publishedAt.put(id, System.nanoTime());
          producer.basicPublish("", queue, job("long", id), new byte[0]);
          nextLong += TimeUnit.SECONDS.toNanos(1);
        }
        TimeUnit.NANOSECONDS.sleep(Math.max(0, Math.min(nextShort, nextLong) - System.nanoTime()));
      }
      long stop = System.nanoTime();
      consumer.close();
      long longestNanos = 0;
      int run = 0;
      for (Map.Entry<String, Long> e : publishedAt.entrySet()) {
        Long started = startedAt.get(e.getKey());
        if (started != null) {
          run++;
        }
        longestNanos = Math.max(longestNanos, (started == null ? stop : started) - e.getValue());
      }
      System.out.printf(
          Locale.ROOT,
          "%-40s long jobs published %d, run %d, longest long-job wait %.2f s; short jobs"
              + " published %d, run %d%n",
          options.selection().label()
              + (options.fetch() == LaneFetch.PULL ? " pulled" : "")
              + " lanes "
              + (options.selection() == io.harbinger.scheduler.Selection.WEIGHTED
                  ? options.weightsFor(3) + " " + options.aging().label() + " aging"
                  : ""),
          longs,
          run,
          longestNanos / 1e9,
          shorts,
          shortsRun.get());
      try (Channel admin = connection.createChannel()) {
        for (String lane : layout.laneNames()) {
          admin.queueDelete(lane);
        }
      }
    }
  }

  private static AMQP.BasicProperties job(String type, String id) {
    return new AMQP.BasicProperties.Builder()
        .messageId(id)
        .deliveryMode(1)
        .headers(Map.of("x-job-type", type))
        .build();
  }

  /** Short jobs at level 0, long ones at level 2: the levels a trained predictor gives them. */
  private static Router router() {
    return new Router() {
      @Override
      public Prediction route(String key) {
        int level = key.endsWith("short") ? 0 : 2;
        return new Prediction(level, level, Outcome.PREDICTED, Double.NaN, Mode.PREDICTIVE);
      }

      @Override
      public int levels() {
        return 3;
      }
    };
  }
}
