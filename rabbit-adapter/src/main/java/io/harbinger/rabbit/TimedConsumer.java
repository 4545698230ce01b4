package io.harbinger.rabbit;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Consumer;
import com.rabbitmq.client.Envelope;
import com.rabbitmq.client.ShutdownSignalException;
import java.io.IOException;

/**
 * A {@link Consumer} that times its delegate's {@code handleDelivery} and forwards every other
 * callback unchanged (the pattern of the RabbitMQ client's {@code ObservationConsumer}).
 *
 * <p>Thread safety: called by the client's dispatcher, one delivery at a time per channel.
 */
final class TimedConsumer implements Consumer {

  private final Consumer delegate;
  private final DeliveryTracker tracker;
  private final boolean autoAck;

  TimedConsumer(Consumer delegate, DeliveryTracker tracker, boolean autoAck) {
    this.delegate = delegate;
    this.tracker = tracker;
    this.autoAck = autoAck;
  }

  @Override
  public void handleConsumeOk(String consumerTag) {
    delegate.handleConsumeOk(consumerTag);
  }

  @Override
  public void handleCancelOk(String consumerTag) {
    delegate.handleCancelOk(consumerTag);
  }

  @Override
  public void handleCancel(String consumerTag) throws IOException {
    delegate.handleCancel(consumerTag);
  }

  @Override
  public void handleShutdownSignal(String consumerTag, ShutdownSignalException sig) {
    delegate.handleShutdownSignal(consumerTag, sig);
  }

  @Override
  public void handleRecoverOk(String consumerTag) {
    delegate.handleRecoverOk(consumerTag);
  }

  @Override
  public void handleDelivery(
      String consumerTag, Envelope envelope, AMQP.BasicProperties properties, byte[] body)
      throws IOException {
    DeliveryTracker.InFlight f = tracker.begin(envelope, properties, body, autoAck);
    boolean succeeded = false;
    try {
      delegate.handleDelivery(consumerTag, envelope, properties, body);
      succeeded = true;
    } finally {
      tracker.handlerDone(f, succeeded);
    }
  }

  @Override
  public String toString() {
    return "TimedConsumer(" + delegate + ")";
  }
}
