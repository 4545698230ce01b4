package io.harbinger.experiments.bench;

import java.net.URI;
import java.util.Objects;

/**
 * Where the external brokers are.
 *
 * @param rabbitmq the AMQP URI, such as {@code amqp://guest:guest@127.0.0.1:5672/%2F}
 * @param redis the Redis URI, such as {@code redis://127.0.0.1:6379}
 */
record Endpoints(URI rabbitmq, URI redis) {

  /** The RabbitMQ URI used when {@code RABBITMQ_URI} is not set. */
  static final String DEFAULT_RABBITMQ = "amqp://guest:guest@127.0.0.1:5672/%2F";

  /** The Redis URI used when {@code REDIS_URI} is not set. */
  static final String DEFAULT_REDIS = "redis://127.0.0.1:6379";

  Endpoints {
    Objects.requireNonNull(rabbitmq, "rabbitmq");
    Objects.requireNonNull(redis, "redis");
  }

  /**
   * Returns the endpoints from {@code RABBITMQ_URI} and {@code REDIS_URI}, loopback by default.
   *
   * @return the endpoints
   */
  static Endpoints fromEnvironment() {
    return new Endpoints(
        URI.create(System.getenv().getOrDefault("RABBITMQ_URI", DEFAULT_RABBITMQ)),
        URI.create(System.getenv().getOrDefault("REDIS_URI", DEFAULT_REDIS)));
  }
}
