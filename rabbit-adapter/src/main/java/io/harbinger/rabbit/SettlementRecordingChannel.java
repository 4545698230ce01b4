package io.harbinger.rabbit;

import com.rabbitmq.client.Channel;
import java.io.IOException;

/**
 * A channel that forwards every call to its delegate and records each acknowledgement, nack and
 * reject in a {@link DeliveryTracker}, for deliveries consumed outside a wrapped channel (by a
 * framework's listener container) that a listener settles itself.
 *
 * <p>Implementation notes. As in {@link PredictiveChannel}, a settlement is forwarded first,
 * unchanged, and recorded only once the delegate accepted it (acknowledgements behave exactly as
 * without Harbinger). Everything else is the delegate's own behaviour.
 *
 * <p>Thread safety: as the delegate; the tracker is thread-safe.
 */
final class SettlementRecordingChannel extends ForwardingChannel {

  private final DeliveryTracker tracker;

  /**
   * Wraps a channel.
   *
   * @param delegate the channel the deliveries arrived on
   * @param tracker the tracker of that channel's deliveries
   */
  SettlementRecordingChannel(Channel delegate, DeliveryTracker tracker) {
    super(delegate);
    this.tracker = tracker;
  }

  @Override
  public void basicAck(long deliveryTag, boolean multiple) throws IOException {
    delegate.basicAck(deliveryTag, multiple);
    tracker.settle(deliveryTag, multiple, Settlement.ACK, false);
  }

  @Override
  public void basicNack(long deliveryTag, boolean multiple, boolean requeue) throws IOException {
    delegate.basicNack(deliveryTag, multiple, requeue);
    tracker.settle(deliveryTag, multiple, Settlement.NACK, requeue);
  }

  @Override
  public void basicReject(long deliveryTag, boolean requeue) throws IOException {
    delegate.basicReject(deliveryTag, requeue);
    tracker.settle(deliveryTag, false, Settlement.REJECT, requeue);
  }

  @Override
  public String toString() {
    return "SettlementRecordingChannel(" + delegate + ")";
  }
}
