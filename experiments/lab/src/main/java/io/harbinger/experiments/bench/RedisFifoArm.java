package io.harbinger.experiments.bench;

import io.harbinger.experiments.workload.Service;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.args.ListDirection;

/**
 * The Redis FIFO arm: the reliable list queue.
 *
 * <p>Implementation notes: the reliable-queue pattern of Redis's documentation on {@code LMOVE}.
 * Producers {@code LPUSH} onto the queue list; each of the four workers, on its own connection,
 * takes the oldest message with {@code BLMOVE queue processing RIGHT LEFT} into its own processing
 * list (so a crashed worker's message is not lost), runs it, and on success removes it with {@code
 * LREM processing 1 body}. A failed attempt is pushed back with {@code RPUSH} at the consuming end,
 * the place RabbitMQ's requeue also puts a message, and then removed from the processing list. Key
 * names are unique per run and deleted afterwards. Prefetch is 1 by construction: a worker holds
 * one message at a time.
 */
final class RedisFifoArm implements BenchArm {

  private static final double BLOCK_SECONDS = 0.2;

  private final String name;

  /**
   * Creates the arm.
   *
   * @param name the arm's name in the registry
   */
  RedisFifoArm(String name) {
    this.name = java.util.Objects.requireNonNull(name, "name");
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public Backend backend() {
    return Backend.REDIS;
  }

  @Override
  public Session open(Endpoints endpoints, double timeScale, Worker worker) throws Exception {
    String prefix = "harbinger:bench:" + UUID.randomUUID().toString().substring(0, 8);
    RedisSession session = new RedisSession(endpoints, prefix);
    try (Jedis probe = new Jedis(endpoints.redis())) {
      session.attributes.put("broker", "redis " + version(probe.info("server")));
    }
    session.attributes.put("queue", session.queue);
    for (int i = 0; i < BenchRunner.WORKERS; i++) {
      String processing = prefix + ":processing:" + i;
      Jedis jedis = session.connect();
      session.keys.add(processing);
      session.threads.add(
          Thread.ofPlatform()
              .name("bench-redis-consumer-" + i)
              .daemon()
              .start(() -> consume(session, jedis, processing, worker)));
    }
    return session;
  }

  private static void consume(RedisSession session, Jedis jedis, String processing, Worker worker) {
    while (session.running) {
      try {
        String item =
            jedis.blmove(
                session.queue, processing, ListDirection.RIGHT, ListDirection.LEFT, BLOCK_SECONDS);
        if (item == null) {
          continue;
        }
        boolean ok = worker.deliver(item.getBytes(StandardCharsets.UTF_8));
        if (!ok) {
          jedis.rpush(session.queue, item);
        }
        jedis.lrem(processing, 1, item);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      } catch (RuntimeException e) {
        if (!session.running) {
          return;
        }
        session.consumerErrors.incrementAndGet();
      }
    }
  }

  static String version(String info) {
    for (String line : info.split("\r?\n")) {
      if (line.startsWith("redis_version:")) {
        return line.substring("redis_version:".length()).trim();
      }
    }
    return "unknown";
  }

  /** A running Redis arm. */
  private static final class RedisSession implements Session {
    private final Endpoints endpoints;
    private final String queue;
    private final List<String> keys = new ArrayList<>();
    private final List<Jedis> connections = new ArrayList<>();
    private final List<Thread> threads = new ArrayList<>();
    private final Map<String, String> attributes = new LinkedHashMap<>();
    private final java.util.concurrent.atomic.AtomicLong consumerErrors =
        new java.util.concurrent.atomic.AtomicLong();
    private volatile boolean running = true;

    RedisSession(Endpoints endpoints, String prefix) {
      this.endpoints = endpoints;
      this.queue = prefix + ":queue";
      keys.add(queue);
    }

    synchronized Jedis connect() {
      Jedis jedis = new Jedis(endpoints.redis());
      connections.add(jedis);
      return jedis;
    }

    @Override
    public Publisher publisher(Service service) {
      Jedis jedis = connect();
      return job -> jedis.lpush(queue, job.payloadJson());
    }

    @Override
    public Map<String, String> attributes() {
      Map<String, String> out = new LinkedHashMap<>(attributes);
      out.put("consumer_errors", Long.toString(consumerErrors.get()));
      return out;
    }

    @Override
    public void close() {
      running = false;
      for (Thread t : threads) {
        RabbitArm.quietly(() -> t.join(2_000));
      }
      RabbitArm.quietly(
          () -> {
            try (Jedis admin = new Jedis(endpoints.redis())) {
              admin.del(keys.toArray(String[]::new));
            }
          });
      synchronized (this) {
        for (Jedis j : connections) {
          RabbitArm.quietly(j::close);
        }
      }
    }
  }
}
