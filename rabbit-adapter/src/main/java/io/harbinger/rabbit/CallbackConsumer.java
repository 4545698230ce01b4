package io.harbinger.rabbit;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.CancelCallback;
import com.rabbitmq.client.ConsumerShutdownSignalCallback;
import com.rabbitmq.client.DeliverCallback;
import com.rabbitmq.client.Delivery;
import com.rabbitmq.client.Envelope;
import com.rabbitmq.client.ShutdownSignalException;
import java.io.IOException;

/**
 * The {@link com.rabbitmq.client.Consumer} of the functional {@code basicConsume} overloads, as the
 * RabbitMQ client builds it: deliveries to the deliver callback, a broker cancel to the cancel
 * callback, a shutdown to the shutdown callback, everything else ignored.
 *
 * <p>Thread safety: as its callbacks.
 */
final class CallbackConsumer implements com.rabbitmq.client.Consumer {

  private final DeliverCallback deliver;
  private final CancelCallback cancel;
  private final ConsumerShutdownSignalCallback shutdown;

  private CallbackConsumer(
      DeliverCallback deliver, CancelCallback cancel, ConsumerShutdownSignalCallback shutdown) {
    this.deliver = deliver;
    this.cancel = cancel;
    this.shutdown = shutdown;
  }

  /**
   * Returns a consumer of callbacks.
   *
   * @param deliver the deliver callback, not null
   * @param cancel the cancel callback, or null
   * @param shutdown the shutdown callback, or null
   * @return the consumer
   */
  static CallbackConsumer of(
      DeliverCallback deliver, CancelCallback cancel, ConsumerShutdownSignalCallback shutdown) {
    if (deliver == null) {
      throw new NullPointerException("deliverCallback");
    }
    return new CallbackConsumer(deliver, cancel, shutdown);
  }

  /**
   * Returns a consumer of a deliver and a cancel callback.
   *
   * @param deliver the deliver callback, not null
   * @param cancel the cancel callback, or null
   * @return the consumer
   */
  static CallbackConsumer of(DeliverCallback deliver, CancelCallback cancel) {
    return of(deliver, cancel, null);
  }

  /**
   * Returns a consumer of a deliver and a shutdown callback.
   *
   * @param deliver the deliver callback, not null
   * @param shutdown the shutdown callback, or null
   * @return the consumer
   */
  static CallbackConsumer of(DeliverCallback deliver, ConsumerShutdownSignalCallback shutdown) {
    return of(deliver, null, shutdown);
  }

  @Override
  public void handleConsumeOk(String consumerTag) {}

  @Override
  public void handleCancelOk(String consumerTag) {}

  @Override
  public void handleCancel(String consumerTag) throws IOException {
    if (cancel != null) {
      cancel.handle(consumerTag);
    }
  }

  @Override
  public void handleShutdownSignal(String consumerTag, ShutdownSignalException sig) {
    if (shutdown != null) {
      shutdown.handleShutdownSignal(consumerTag, sig);
    }
  }

  @Override
  public void handleRecoverOk(String consumerTag) {}

  @Override
  public void handleDelivery(
      String consumerTag, Envelope envelope, AMQP.BasicProperties properties, byte[] body)
      throws IOException {
    deliver.handle(consumerTag, new Delivery(envelope, properties, body));
  }
}
