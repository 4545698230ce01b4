/**
 * The production-flow benchmark harness: the same seeded workload, handlers and worker setup run
 * against RabbitMQ, Redis and Harbinger's own broker, one {@link
 * io.harbinger.experiments.bench.BenchArm} at a time.
 *
 * <p>Public API: {@link io.harbinger.experiments.bench.BenchCommand} ({@code ./harbinger bench}).
 * Everything else is package-private: {@code BenchRunner} publishes every job at its planned time
 * and records each message, {@code BenchArms} names the arms, and the arm classes ({@code
 * RabbitArm}, {@code RedisFifoArm}, {@code BrokerArm}) are the only code that differs between
 * brokers.
 *
 * <p>Source: harbinger-reference sections 4 and 6, rabbitmq-facts sections 3.1 and 7.
 */
package io.harbinger.experiments.bench;
