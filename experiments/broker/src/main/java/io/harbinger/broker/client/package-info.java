/**
 * The Java client of Harbinger's broker: {@link io.harbinger.broker.client.BrokerProducer} and
 * {@link io.harbinger.broker.client.BrokerConsumer}, each taking a gRPC {@link io.grpc.Channel}.
 */
package io.harbinger.broker.client;
