package io.harbinger.benchmarks.rabbit;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import io.harbinger.rabbit.ChannelOptions;
import io.harbinger.rabbit.LaneFetch;
import io.harbinger.rabbit.LaneLayout;
import io.harbinger.rabbit.LaneOptions;
import io.harbinger.rabbit.Lanes;
import io.harbinger.rabbit.PredictiveChannels;
import io.harbinger.rabbit.QueueType;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Consumption throughput of a lanes consumer against a raw single-queue consumer, with empty
 * handlers, prefetch 1 and manual acknowledgements, in interleaved rounds of one run (the target is
 * a ratio of at least 0.90).
 *
 * <p>Each round fills, for each arm, its queue with the same number of small messages (the lanes
 * arm spread evenly over its lanes, published straight to them, so that only consumption is
 * measured), then times one consumer draining them: {@code raw} consumes one classic queue on a raw
 * channel; {@code lanes} consumes the lanes of one logical queue through a wrapped channel (weights
 * 8:3:1, pausing aging, a lane prefetch of 2; with {@code --pull}, pulling instead: {@code
 * basic.get} from the lane the scheduling core picks). The order of the arms alternates every
 * round. It prints each arm's median rate and the median of the per-round ratios lanes / raw, with
 * their range.
 *
 * <p>Run with {@code java -cp experiments/benchmarks/target/benchmarks.jar
 * io.harbinger.benchmarks.rabbit.LanesConsumeCost [--rounds N] [--per-round N] [--levels L]
 * [--quorum] [--pull]} (defaults 10 rounds of 20,000 messages, 3 levels, classic queues, push). The
 * broker is found from {@code RABBITMQ_URI} (default the loopback guest account).
 */
public final class LanesConsumeCost {

  private LanesConsumeCost() {}

  /**
   * Runs the comparison.
   *
   * @param args the options above
   * @throws Exception on a broker failure
   */
  public static void main(String[] args) throws Exception {
    int rounds = 10;
    int perRound = 20_000;
    int levels = 3;
    boolean quorum = false;
    LaneOptions options = LaneOptions.defaults();
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--rounds" -> rounds = Integer.parseInt(args[++i]);
        case "--per-round" -> perRound = Integer.parseInt(args[++i]);
        case "--levels" -> levels = Integer.parseInt(args[++i]);
        case "--quorum" -> quorum = true;
        case "--pull" -> options = options.withFetch(LaneFetch.PULL);
        default -> throw new IllegalArgumentException("unknown option: " + args[i]);
      }
    }
    if (rounds < 1 || perRound < 1) {
      throw new IllegalArgumentException("--rounds and --per-round must be positive");
    }
    ConnectionFactory factory = new ConnectionFactory();
    factory.setUri(
        System.getenv().getOrDefault("RABBITMQ_URI", "amqp://guest:guest@127.0.0.1:5672/%2F"));
    String unique = UUID.randomUUID().toString().substring(0, 8);
    String rawQueue = "harbinger.bench.consume-raw." + unique;
    String lanesQueue = "harbinger.bench.consume-lanes." + unique;
    Map<String, Object> args0 = Map.of(QueueType.ARGUMENT, quorum ? "quorum" : "classic");
    try (Connection connection = factory.newConnection("harbinger-lanes-consume-cost")) {
      LaneLayout layout;
      try (Channel admin = connection.createChannel()) {
        admin.queueDeclare(rawQueue, true, false, false, args0);
        layout = Lanes.declare(admin, lanesQueue, levels, args0);
      }
      double[] raw = new double[rounds];
      double[] lanes = new double[rounds];
      double[] ratio = new double[rounds];
      byte[] body = new byte[64];
      try {
        for (int r = 0; r < rounds; r++) {
          boolean rawFirst = r % 2 == 0;
          for (int k = 0; k < 2; k++) {
            boolean rawArm = (k == 0) == rawFirst;
            List<String> targets = rawArm ? List.of(rawQueue) : layout.laneNames();
            fill(connection, targets, perRound, body);
            double rate =
                drain(
                    connection,
                    factory.getUsername(),
                    rawArm ? null : options,
                    rawQueue,
                    lanesQueue,
                    perRound);
            if (rawArm) {
              raw[r] = rate;
            } else {
              lanes[r] = rate;
            }
          }
          ratio[r] = lanes[r] / raw[r];
          System.out.printf(
              java.util.Locale.ROOT,
              "round %d: raw %.0f/s, lanes %.0f/s, lanes / raw %.3f%n",
              r + 1,
              raw[r],
              lanes[r],
              ratio[r]);
        }
      } finally {
        try (Channel admin = connection.createChannel()) {
          admin.queueDelete(rawQueue);
          for (String lane : layout.laneNames()) {
            admin.queueDelete(lane);
          }
        }
      }
      double[] sorted = ratio.clone();
      Arrays.sort(sorted);
      System.out.printf(
          java.util.Locale.ROOT,
          "%s queues, %d levels, %s lanes, %d rounds of %d messages, prefetch 1, empty handlers:%n"
              + "raw median %.0f/s, lanes median %.0f/s, lanes / raw median %.3f (range %.3f to"
              + " %.3f; target at least 0.90)%n",
          quorum ? "quorum" : "classic",
          levels,
          options.fetch() == LaneFetch.PULL ? "pulled" : "pushed",
          rounds,
          perRound,
          median(raw),
          median(lanes),
          median(ratio),
          sorted[0],
          sorted[sorted.length - 1]);
    }
  }

  private static void fill(Connection connection, List<String> queues, int n, byte[] body)
      throws Exception {
    try (Channel ch = connection.createChannel()) {
      ch.confirmSelect();
      AMQP.BasicProperties props = new AMQP.BasicProperties.Builder().deliveryMode(1).build();
      for (int i = 0; i < n; i++) {
        ch.basicPublish("", queues.get(i % queues.size()), props, body);
        if (i % 1000 == 999) {
          ch.waitForConfirmsOrDie(30_000);
        }
      }
      ch.waitForConfirmsOrDie(30_000);
    }
  }

  /** Drains one arm: the raw queue when {@code lanes} is null, else the lanes with them. */
  private static double drain(
      Connection connection,
      String user,
      LaneOptions lanes,
      String rawQueue,
      String lanesQueue,
      int n)
      throws Exception {
    boolean raw = lanes == null;
    Channel channel =
        raw
            ? connection.createChannel()
            : PredictiveChannels.wrap(
                connection.createChannel(), ChannelOptions.builder(user).lanes(lanes).build());
    try {
      channel.basicQos(1);
      CountDownLatch done = new CountDownLatch(n);
      long start = System.nanoTime();
      String tag =
          channel.basicConsume(
              raw ? rawQueue : lanesQueue,
              false,
              (t, d) -> {
                channel.basicAck(d.getEnvelope().getDeliveryTag(), false);
                done.countDown();
              },
              t -> {});
      if (!done.await(10, TimeUnit.MINUTES)) {
        throw new IllegalStateException(
            "not drained within 10 minutes: " + done.getCount() + " left");
      }
      long elapsed = System.nanoTime() - start;
      channel.basicCancel(tag);
      return n / (elapsed / 1e9);
    } finally {
      channel.close();
    }
  }

  private static double median(double[] values) {
    double[] s = values.clone();
    Arrays.sort(s);
    int m = s.length / 2;
    return s.length % 2 == 1 ? s[m] : (s[m - 1] + s[m]) / 2;
  }
}
