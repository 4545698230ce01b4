/**
 * The broker cost benchmark: the same load against Harbinger's broker, RabbitMQ and Redis, side by
 * side in one run ({@link io.harbinger.broker.bench.BrokerCostBench}).
 */
package io.harbinger.broker.bench;
