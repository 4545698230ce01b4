package io.harbinger.rabbit;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/** The check every lanes consumer makes before it consumes: each lane exists. */
final class LaneCheck {

  private LaneCheck() {}

  /**
   * Passively declares every lane of a layout on a channel of its own, so that a missing one is
   * named before anything is consumed.
   *
   * @param delegate the channel whose connection opens the probe channel
   * @param layout the lanes
   * @throws Lanes.LanesException naming every missing lane
   * @throws IOException when RabbitMQ refuses a check for another reason
   */
  static void requireLanes(Channel delegate, LaneLayout layout) throws IOException {
    Connection connection = delegate.getConnection();
    if (connection == null) {
      return;
    }
    List<String> missing = new ArrayList<>();
    Channel probe = null;
    try {
      for (int level = 0; level < layout.levels(); level++) {
        String lane = layout.laneName(level);
        if (probe == null || !probe.isOpen()) {
          probe = connection.createChannel();
          if (probe == null) {
            throw new IOException("no channel available to check the lanes of " + layout.queue());
          }
        }
        try {
          probe.queueDeclarePassive(lane);
        } catch (IOException e) {
          if (!String.valueOf(BrokerReplies.reasonOf(e)).contains("NOT_FOUND")) {
            throw e;
          }
          missing.add("'" + lane + "' (level " + level + ")");
        }
      }
    } finally {
      if (probe != null && probe.isOpen()) {
        try {
          probe.close();
        } catch (IOException | java.util.concurrent.TimeoutException | RuntimeException ignored) {
          // Best effort: the probe channel carries nothing.
        }
      }
    }
    if (!missing.isEmpty()) {
      throw new Lanes.LanesException(
          "the lanes queue '"
              + layout.queue()
              + "' has "
              + layout.levels()
              + " lanes, and RabbitMQ has no queue for lane "
              + String.join(", ", missing)
              + ": nothing was consumed. Fix: declare the lanes with Lanes.declare(channel, \""
              + layout.queue()
              + "\", "
              + layout.levels()
              + ", arguments) before consuming, or record the layout they were declared with.",
          null);
    }
  }
}
