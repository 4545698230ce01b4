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
 * <p>Source: seed paper section 4, with the workload, statistics and gates of the original
 * implementation's production-flow benchmark; the RabbitMQ Java client's documentation on consumer
 * threads (its default pool has about one thread per core); Redis's documentation of the
 * reliable-queue pattern ({@code LMOVE}).
 */
package io.harbinger.experiments.bench;
