package io.harbinger.benchmarks.rabbit;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import io.harbinger.predictor.HistogramPredictor;
import io.harbinger.predictor.Keys;
import io.harbinger.predictor.Mode;
import io.harbinger.predictor.PredictorConfig;
import io.harbinger.predictor.Ticker;
import io.harbinger.rabbit.PriorityQueues;
import java.util.Map;
import java.util.UUID;

/**
 * What the publish benchmarks share on the real broker: one connection (found from {@code
 * RABBITMQ_URI}, default the loopback guest account), a classic priority queue of 3 levels capped
 * at 10,000 messages (oldest dropped) so that a long run does not fill the broker, and a predictor
 * that has learned a short ({@code reserve}, 2 ms) and a long ({@code export}, 2 s) job type of the
 * connection's user.
 *
 * <p>Not thread-safe: set up and torn down by one thread.
 */
final class BrokerFixture implements AutoCloseable {

  final Connection connection;
  final String user;
  final String queue;

  private BrokerFixture(Connection connection, String user, String queue) {
    this.connection = connection;
    this.user = user;
    this.queue = queue;
  }

  /**
   * Connects and declares the capped queue.
   *
   * @param name the connection name and queue prefix
   * @return the fixture
   * @throws Exception if the broker is unreachable or refuses the queue
   */
  static BrokerFixture open(String name) throws Exception {
    ConnectionFactory factory = new ConnectionFactory();
    factory.setUri(
        System.getenv().getOrDefault("RABBITMQ_URI", "amqp://guest:guest@127.0.0.1:5672/%2F"));
    Connection connection = factory.newConnection(name);
    String queue = name + "." + UUID.randomUUID().toString().substring(0, 8);
    try (Channel ch = connection.createChannel()) {
      PriorityQueues.declare(
          ch, queue, 3, Map.of("x-max-length", 10_000, "x-overflow", "drop-head"));
    } catch (Exception e) {
      connection.close();
      throw e;
    }
    return new BrokerFixture(connection, factory.getUsername(), queue);
  }

  /**
   * Returns a predictor that predicts the {@code reserve} key at level 0 and {@code export} at the
   * top level.
   *
   * @return a new trained predictor
   */
  HistogramPredictor trainedPredictor() {
    HistogramPredictor predictor =
        new HistogramPredictor(PredictorConfig.defaults(), Ticker.SYSTEM, Mode.PREDICTIVE);
    for (int i = 0; i < 300; i++) {
      predictor.observe(Keys.of(user, "reserve"), 2_000_000 + i);
      predictor.observe(Keys.of(user, "export"), 2_000_000_000L + i);
    }
    return predictor;
  }

  /** Deletes the queue and closes the connection. */
  @Override
  public void close() throws Exception {
    try (Channel ch = connection.createChannel()) {
      ch.queueDelete(queue);
    } finally {
      connection.close();
    }
  }
}
