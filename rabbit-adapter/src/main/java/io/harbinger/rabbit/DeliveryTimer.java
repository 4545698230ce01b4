package io.harbinger.rabbit;

import com.rabbitmq.client.Channel;
import java.util.Map;
import java.util.Objects;

/**
 * Times the deliveries of one AMQP channel that are consumed outside a wrapped channel, by a
 * framework's listener container, and reports each settled one to the options' {@link ReportSink}:
 * the same rules, and the same code, as a wrapped consumer.
 *
 * <p>A delivery is {@linkplain #begin begun} just before its listener runs, marked {@linkplain
 * #handlerDone done} when the listener returns or throws, and settled by {@link #acked}, {@link
 * #nacked} or {@link #rejected}, or through a channel from {@link #recordingSettlements} that the
 * listener acknowledges on. Its one report is sent when both happened, whichever came last; its
 * duration runs from begin to that moment. A delivery begun with {@code autoAck} is settled when
 * its listener returns: an ack if it returned, a nack if it threw. A redelivered message that this
 * process did not requeue is also reported once as censored. Only acks teach durations.
 *
 * <p>Example, around a listener that acknowledges itself:
 *
 * <pre>{@code
 * DeliveryTimer timer = DeliveryTimer.create(options);          // one per AMQP channel
 * DeliveryTimer.TimedDelivery d =
 *     timer.begin(tag, redelivered, userId, appId, messageId, headers, body, false);
 * boolean ok = false;
 * try { listener.onMessage(message, timer.recordingSettlements(channel)); ok = true; }
 * finally { timer.handlerDone(d, ok); }
 * }</pre>
 *
 * <p>Delivery tags belong to a channel, so use one timer per channel, and call {@link
 * #forgetUnsettled} when that channel closes (its unsettled tags are stale; their redelivery is the
 * censored observation). Thread-safe: every method may be called from any thread; nothing blocks.
 */
public final class DeliveryTimer {

  private final DeliveryTracker tracker;

  private DeliveryTimer(DeliveryTracker tracker) {
    this.tracker = tracker;
  }

  /**
   * Creates the timer of one channel.
   *
   * @param options the job-type header, size hints, report sink, counters and clocks; its user and
   *     router are not used
   * @return the timer
   */
  public static DeliveryTimer create(ChannelOptions options) {
    Objects.requireNonNull(options, "options");
    return new DeliveryTimer(DeliveryTracker.create(options));
  }

  /**
   * Starts timing a delivery, just before its listener runs.
   *
   * @param deliveryTag the delivery tag on this timer's channel
   * @param redelivered whether RabbitMQ marked the delivery redelivered
   * @param userId the delivered message's {@code user-id}, the producer part of its key, or null
   * @param appId the delivered message's {@code app-id}, the producer part of its key when the
   *     options say {@link ProducerProperty#APP_ID}, or null
   * @param messageId the delivered message's {@code message-id}, or null
   * @param headers the delivered message's headers (job type, {@code x-harbinger-*}), or null
   * @param body the body, or null
   * @param autoAck true when the delivery counts as settled once its listener returns
   * @return the delivery, for {@link #handlerDone}
   */
  public TimedDelivery begin(
      long deliveryTag,
      boolean redelivered,
      String userId,
      String appId,
      String messageId,
      Map<String, ?> headers,
      byte[] body,
      boolean autoAck) {
    return new TimedDelivery(
        tracker.begin(deliveryTag, redelivered, userId, appId, messageId, headers, body, autoAck));
  }

  /**
   * Marks a delivery's listener as returned or thrown.
   *
   * @param delivery the delivery from {@link #begin}
   * @param succeeded whether the listener returned normally
   */
  public void handlerDone(TimedDelivery delivery, boolean succeeded) {
    tracker.handlerDone(delivery.inFlight, succeeded);
  }

  /**
   * Records an acknowledgement that was sent.
   *
   * @param deliveryTag the tag, or 0 with {@code multiple} for every unsettled delivery
   * @param multiple whether every delivery up to the tag is acknowledged
   */
  public void acked(long deliveryTag, boolean multiple) {
    tracker.settle(deliveryTag, multiple, Settlement.ACK, false);
  }

  /**
   * Records a nack that was sent.
   *
   * @param deliveryTag the tag, or 0 with {@code multiple} for every unsettled delivery
   * @param multiple whether every delivery up to the tag is nacked
   * @param requeue whether the messages go back to their queue
   */
  public void nacked(long deliveryTag, boolean multiple, boolean requeue) {
    tracker.settle(deliveryTag, multiple, Settlement.NACK, requeue);
  }

  /**
   * Records a reject that was sent.
   *
   * @param deliveryTag the tag
   * @param requeue whether the message goes back to its queue
   */
  public void rejected(long deliveryTag, boolean requeue) {
    tracker.settle(deliveryTag, false, Settlement.REJECT, requeue);
  }

  /**
   * Returns a channel that forwards every call to {@code channel} and records here each ack, nack
   * and reject sent through it, after the channel accepted it.
   *
   * @param channel the channel this timer's deliveries arrived on
   * @return the recording channel
   */
  public Channel recordingSettlements(Channel channel) {
    return new SettlementRecordingChannel(channel, tracker);
  }

  /** Forgets every unsettled delivery, when their channel has closed. */
  public void forgetUnsettled() {
    tracker.clear();
  }

  /**
   * Returns the deliveries begun and not yet settled.
   *
   * @return the count
   */
  public int unsettled() {
    return tracker.unsettledCount();
  }

  /** One delivery being timed; opaque. */
  public static final class TimedDelivery {
    private final DeliveryTracker.InFlight inFlight;

    private TimedDelivery(DeliveryTracker.InFlight inFlight) {
      this.inFlight = inFlight;
    }
  }
}
