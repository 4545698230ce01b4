/**
 * Harbinger's own gRPC broker, kept as a comparison arm (seed paper sections 3.1 and 3.2, with the
 * original implementation's broker semantics).
 *
 * <p>Public API: {@link io.harbinger.broker.MessageBroker}, the delivery state machine with no gRPC
 * inside, configured by {@link io.harbinger.broker.BrokerConfig}; {@link
 * io.harbinger.broker.BrokerServer}, which serves it over gRPC; {@link
 * io.harbinger.broker.BrokerMain}, the command line. Errors cross the gRPC boundary in one place,
 * {@link io.harbinger.broker.BrokerService}. The scheduling core is in {@code
 * io.harbinger.scheduler}, its own module; the Java client in {@code io.harbinger.broker.client}.
 */
package io.harbinger.broker;
