package io.harbinger.rabbit;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Envelope;

/**
 * One delivery a lanes consumer holds: what RabbitMQ delivered from a lane, with the level it waits
 * at (its lane's, or above after aging) and its times.
 *
 * <p>Not thread-safe: read and changed under its lanes consumer's lock ({@link LaneDispatch}).
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
