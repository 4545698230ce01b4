package io.harbinger.rabbit;

/**
 * The message property that carries a message's producer identity: the first part of its key, on
 * the publishing side and the consuming side alike.
 */
public enum ProducerProperty {
  /**
   * The AMQP {@code user-id} property, which RabbitMQ checks against the publishing connection's
   * user: a producer cannot claim another producer's history. The default.
   */
  USER_ID,

  /**
   * The AMQP {@code app-id} property, for deployments where the {@code user-id} cannot be known or
   * set (for example a proxy that publishes for many applications). RabbitMQ does not check it:
   * anyone who can publish to the queue can claim any producer name, and with it that producer's
   * learned levels. Use it only where every publisher is trusted.
   */
  APP_ID
}
