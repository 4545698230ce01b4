package io.harbinger.sidecar;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.Envelope;
import com.rabbitmq.client.GetResponse;
import java.io.IOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Replaces a report queue that an earlier version declared with other bounds (the oldest batches
 * dropped first, or no bounds at all) by one with this version's, handing the batches that wait in
 * it to the learner.
 *
 * <p>RabbitMQ cannot change the arguments of a queue (declaring it with others fails with 406
 * PRECONDITION_FAILED), and a policy cannot override an {@code x-overflow} argument, so the queue
 * is replaced, on a connection of its own without automatic recovery:
 *
 * <ol>
 *   <li>a temporary exclusive queue {@code <queue>.upgrading}, with the new bounds, is bound to the
 *       exchange, so that the reports published meanwhile wait there;
 *   <li>the old queue is unbound, its batches are fetched one by one and handed to the sink, and it
 *       is deleted (only if empty);
 *   <li>the queue is declared again with the new arguments and bound;
 *   <li>the temporary queue is unbound, drained into the sink and deleted.
 * </ol>
 *
 * <p>No batch is lost; a batch published in the instant between binding one queue and unbinding the
 * other reaches both and is learned twice. The queue is replaced only when RabbitMQ named one of
 * the bounds ({@code x-max-length}, {@code x-overflow}, {@code x-expires}) as the argument that
 * differs, so a queue an operator declared otherwise on purpose (another queue type, say) is left
 * alone, and only when no consumer is on it (another replica with the same id). If a step before
 * the deletion fails, the old queue is bound again and kept, and the temporary queue's batches are
 * handed over before it goes.
 *
 * <p>Not thread-safe: run by the thread that subscribes, before the consumer starts.
 */
final class ReportQueueUpgrade {

  private static final Logger LOG = LoggerFactory.getLogger(ReportQueueUpgrade.class);

  /** The arguments that the queue is replaced for. */
  static final List<String> BOUNDS = List.of("x-max-length", "x-overflow", "x-expires");

  private static final Pattern INEQUIVALENT_ARG = Pattern.compile("inequivalent arg '([^']+)'");

  /** Takes each batch fetched from the old or the temporary queue. */
  @FunctionalInterface
  interface Sink {
    /**
     * Handles one fetched message, as the consumer handles a delivery.
     *
     * @param envelope its envelope
     * @param properties its properties
     * @param body its body
     */
    void accept(Envelope envelope, AMQP.BasicProperties properties, byte[] body);
  }

  private ReportQueueUpgrade() {}

  /**
   * Returns the argument that a 406 PRECONDITION_FAILED names as inequivalent, if it is one of the
   * bounds this class replaces a queue for.
   *
   * @param closeReason the text of the channel close, such as {@code inequivalent arg 'x-overflow'
   *     for queue ...}
   * @return the argument's name, or null when it names none of {@link #BOUNDS}
   */
  static String boundNamed(String closeReason) {
    Matcher m = INEQUIVALENT_ARG.matcher(String.valueOf(closeReason));
    return m.find() && BOUNDS.contains(m.group(1)) ? m.group(1) : null;
  }

  /**
   * Replaces the queue.
   *
   * @param factory the sidecar's connection factory, copied (without automatic recovery)
   * @param exchange the reports exchange
   * @param queue the queue to replace
   * @param arguments the arguments to declare it with
   * @param sink takes the batches waiting in the old queue and those published meanwhile
   * @return true when the old queue was deleted (the caller declares and binds the queue then,
   *     which this has done once already); false when it is kept as it is (the reason logged at
   *     WARN)
   */
  static boolean run(
      ConnectionFactory factory,
      String exchange,
      String queue,
      Map<String, Object> arguments,
      Sink sink) {
    ConnectionFactory own = factory.clone();
    own.setAutomaticRecoveryEnabled(false);
    own.setTopologyRecoveryEnabled(false);
    Connection connection;
    try {
      connection = own.newConnection("harbinger-sidecar upgrade " + queue);
    } catch (IOException | TimeoutException | RuntimeException e) {
      LOG.warn("queue {} cannot be replaced (no connection: {})", queue, e.toString());
      return false;
    }
    String temporary = queue + ".upgrading";
    boolean oldDeleted = false;
    try {
      try {
        Channel first = connection.createChannel();
        int consumers = first.queueDeclarePassive(queue).getConsumerCount();
        if (consumers > 0) {
          LOG.warn(
              "queue {} cannot be replaced: {} other consumer(s) use it (a replica with the same"
                  + " id?)",
              queue,
              consumers);
          return false;
        }
        Map<String, Object> temporaryArguments = new HashMap<>(arguments);
        temporaryArguments.remove("x-expires");
        first.queueDeclare(temporary, false, true, false, temporaryArguments);
        first.queueBind(temporary, exchange, "");
      } catch (IOException | RuntimeException e) {
        LOG.warn("queue {} cannot be replaced: {}", queue, reason(e));
        return false;
      }
      try {
        Channel ch = connection.createChannel();
        ch.queueUnbind(queue, exchange, "");
        long moved = drain(ch, queue, sink);
        ch.queueDelete(queue, false, true);
        oldDeleted = true;
        ch.queueDeclare(queue, true, false, false, arguments);
        ch.queueBind(queue, exchange, "");
        ch.queueUnbind(temporary, exchange, "");
        moved += drain(ch, temporary, sink);
        ch.queueDelete(temporary);
        LOG.info(
            "queue {} declared again with {} in place of an earlier version's; {} batches"
                + " waiting in it were handed over",
            queue,
            arguments,
            moved);
        return true;
      } catch (IOException | RuntimeException e) {
        LOG.warn(
            "replacing queue {} failed{}: {}",
            queue,
            oldDeleted ? "" : "; it is used as it is",
            reason(e));
        keepWhatWaits(connection, exchange, queue, temporary, oldDeleted, sink);
        return oldDeleted;
      }
    } finally {
      try {
        connection.close(5_000);
      } catch (IOException | RuntimeException e) {
        LOG.debug("closing the upgrade connection: {}", e.toString());
      }
    }
  }

  private static String reason(Exception e) {
    return e.getCause() != null ? e.getCause().getMessage() : e.toString();
  }

  /** After a failed step: binds the old queue again if it is still there, and drains the other. */
  private static void keepWhatWaits(
      Connection connection,
      String exchange,
      String queue,
      String temporary,
      boolean oldDeleted,
      Sink sink) {
    try {
      Channel ch = connection.createChannel();
      if (!oldDeleted) {
        ch.queueBind(queue, exchange, "");
      }
      ch.queueUnbind(temporary, exchange, "");
      drain(ch, temporary, sink);
    } catch (IOException | RuntimeException e) {
      LOG.warn("handing over the batches of {} failed: {}", temporary, e.toString());
    }
  }

  private static long drain(Channel ch, String queue, Sink sink) throws IOException {
    long n = 0;
    GetResponse r;
    while ((r = ch.basicGet(queue, false)) != null) {
      try {
        sink.accept(r.getEnvelope(), r.getProps(), r.getBody());
      } finally {
        ch.basicAck(r.getEnvelope().getDeliveryTag(), false);
      }
      n++;
    }
    return n;
  }
}
