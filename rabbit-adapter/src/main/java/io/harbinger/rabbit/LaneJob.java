package io.harbinger.rabbit;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Envelope;
import java.util.NavigableMap;
import java.util.function.Consumer;

/**
 * One delivery a lanes consumer holds: what RabbitMQ delivered from a lane, with the level it waits
 * at (its lane's, or above after aging) and its times.
 *
 * <p>Not thread-safe: read and changed under its {@link LanesConsumer}'s lock.
 */
final class LaneJob {

  final int lane;
  final Envelope envelope;
  final AMQP.BasicProperties properties;
  final byte[] body;
  final long receivedNanos;
  final long generation;
  int level;
  long placedNanos;
  int pulledLevel = -1;
  long handedNanos;

  /** The key whose running cost times what is taken ahead behind it; set at hand-off by pull. */
  String costKey;

  /**
   * Removes settled hand-offs from a lanes consumer's unsettled ones, passing each to {@code
   * completed}: the one delivery tag, or with {@code multiple} every tag up to it.
   *
   * @param handed the unsettled hand-offs by delivery tag
   * @param deliveryTag the tag settled
   * @param multiple whether every tag up to it is settled too
   * @param completed told of each settled hand-off
   * @return whether any hand-off was settled
   */
  static boolean settle(
      NavigableMap<Long, LaneJob> handed,
      long deliveryTag,
      boolean multiple,
      Consumer<LaneJob> completed) {
    if (multiple) {
      var head = handed.headMap(deliveryTag, true);
      if (head.isEmpty()) {
        return false;
      }
      head.values().forEach(completed);
      head.clear();
      return true;
    }
    LaneJob job = handed.remove(deliveryTag);
    if (job == null) {
      return false;
    }
    completed.accept(job);
    return true;
  }

  LaneJob(
      int lane,
      Envelope envelope,
      AMQP.BasicProperties properties,
      byte[] body,
      long receivedNanos,
      long generation) {
    this.lane = lane;
    this.level = lane;
    this.envelope = envelope;
    this.properties = properties;
    this.body = body;
    this.receivedNanos = receivedNanos;
    this.placedNanos = receivedNanos;
    this.generation = generation;
  }
}
