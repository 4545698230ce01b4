package io.harbinger.broker.bench;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.args.ListDirection;

/**
 * Redis's reliable list queue: producers LPUSH; each consumer BLMOVEs from the tail into its own
 * processing list and LREMs the message from there once handled (the ack). Keys are unique per run
 * and deleted at the end.
 */
final class RedisTransport implements Transport {

  private final URI uri;
  private final byte[] queueKey;
  private final String prefix;
  private final List<Jedis> connections = new ArrayList<>();
  private final List<Thread> consumers = new ArrayList<>();
  private final List<byte[]> processingKeys = new ArrayList<>();
  private final AtomicBoolean running = new AtomicBoolean();

  RedisTransport(URI uri, String prefix) {
    this.uri = uri;
    this.prefix = prefix;
    this.queueKey = (prefix + ":queue").getBytes(StandardCharsets.UTF_8);
  }

  @Override
  public String name() {
    return "redis";
  }

  private synchronized Jedis connect() {
    Jedis jedis = new Jedis(uri);
    connections.add(jedis);
    return jedis;
  }

  @Override
  public Sender newSender() {
    Jedis jedis = connect();
    return payload -> jedis.lpush(queueKey, payload);
  }

  @Override
  public void startConsumers(int count, Sink sink) {
    running.set(true);
    for (int i = 0; i < count; i++) {
      byte[] processing = (prefix + ":processing:" + i).getBytes(StandardCharsets.UTF_8);
      processingKeys.add(processing);
      Jedis jedis = connect();
      consumers.add(
          Thread.ofPlatform()
              .name("redis-consumer-" + i)
              .start(
                  () -> {
                    while (running.get()) {
                      byte[] m =
                          jedis.blmove(
                              queueKey, processing, ListDirection.RIGHT, ListDirection.LEFT, 0.2);
                      if (m != null) {
                        sink.accept(m);
                        jedis.lrem(processing, 1, m);
                      }
                    }
                  }));
    }
  }

  @Override
  public void stopConsumers() throws InterruptedException {
    running.set(false);
    for (Thread t : consumers) {
      t.join(5_000);
    }
    consumers.clear();
  }

  @Override
  public void close() throws Exception {
    stopConsumers();
    try (Jedis jedis = new Jedis(uri)) {
      jedis.del(queueKey);
      for (byte[] k : processingKeys) {
        jedis.del(k);
      }
    }
    for (Jedis j : connections) {
      j.close();
    }
  }
}
