/**
 * Harbinger for RabbitMQ applications: the public API of the adapter.
 *
 * <p>{@link io.harbinger.rabbit.PredictiveChannels} wraps a {@code com.rabbitmq.client.Channel}
 * with {@link io.harbinger.rabbit.ChannelOptions}; {@link io.harbinger.rabbit.ReportPublisher}
 * sends the consumers' duration reports to the {@code harbinger.reports} exchange; {@link
 * io.harbinger.rabbit.EmbeddedRouter} runs the predictor in-process, learning from that exchange
 * (its counters: {@link io.harbinger.rabbit.IngestStats}); {@link
 * io.harbinger.rabbit.PriorityQueues} declares the priority queues, classic or quorum; {@link
 * io.harbinger.rabbit.PriorityScheme} maps levels to the priorities a {@link
 * io.harbinger.rabbit.QueueType} understands on a broker version; {@link
 * io.harbinger.rabbit.HarbingerHeaders} names what goes on the wire; {@link
 * io.harbinger.rabbit.AdapterStats} counts what happened.
 *
 * <p>For framework integrations that own their channels (Spring AMQP), {@link
 * io.harbinger.rabbit.MessageStamper} computes a message's {@link io.harbinger.rabbit.Stamp} and
 * {@link io.harbinger.rabbit.DeliveryTimer} times and reports deliveries: the same code the wrapped
 * channel runs.
 *
 * <p>Everything in {@code io.harbinger.rabbit.internal} is implementation and may change without
 * notice.
 */
package io.harbinger.rabbit;
