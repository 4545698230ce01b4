/**
 * Harbinger for RabbitMQ applications: the adapter, its public API and its implementation.
 *
 * <p>The public API is the public types of this package. {@link
 * io.harbinger.rabbit.PredictiveChannels} wraps a {@code com.rabbitmq.client.Channel} with {@link
 * io.harbinger.rabbit.ChannelOptions}; {@link io.harbinger.rabbit.ReportPublisher} sends the
 * consumers' duration reports to the {@code harbinger.reports} exchange; {@link
 * io.harbinger.rabbit.EmbeddedRouter} runs the predictor in-process, learning from that exchange
 * through a {@link io.harbinger.rabbit.ReportIngestor} (its counters: {@link
 * io.harbinger.rabbit.IngestStats}), which a learner of its own (the sidecar) uses directly, and
 * keeps its queue bound to that exchange with a {@link io.harbinger.rabbit.ReportBinding}; {@link
 * io.harbinger.rabbit.PriorityQueues} declares the priority queues, classic or quorum; {@link
 * io.harbinger.rabbit.PriorityScheme} maps levels to the priorities a {@link
 * io.harbinger.rabbit.QueueType} understands on a broker version; {@link io.harbinger.rabbit.Lanes}
 * declares the queues of one lane per level; {@link io.harbinger.rabbit.HarbingerHeaders} names
 * what goes on the wire; {@link io.harbinger.rabbit.AdapterStats} counts what happened, and {@link
 * io.harbinger.rabbit.ClientStats} is its snapshot for metrics.
 *
 * <p>For framework integrations that own their channels (Spring AMQP), {@link
 * io.harbinger.rabbit.MessageStamper} computes a message's {@link io.harbinger.rabbit.Stamp} and
 * {@link io.harbinger.rabbit.DeliveryTimer} times and reports deliveries: the same code the wrapped
 * channel runs.
 *
 * <p>Implementation. Every other type of this package is package-private and may change without
 * notice: the wrapped channel and its mechanical {@code Channel} delegation, the publish stamping,
 * the delivery tracking, the lanes consumers and the registries of declared queues. The package has
 * no sub-packages, so the public API never depends on an implementation package (the model is
 * Caffeine's single package with a small public API; the RabbitMQ Java client states its API and
 * {@code impl} packages the same way).
 */
package io.harbinger.rabbit;
