/**
 * The Harbinger sidecar: consumes duration reports from RabbitMQ, keeps the predictor, and serves
 * route tables and key statistics over gRPC ({@code harbinger.v1.Sidecar}), with Prometheus metrics
 * and snapshots.
 *
 * <p>Public API: {@link io.harbinger.sidecar.SidecarMain} (the process), {@link
 * io.harbinger.sidecar.SidecarConfig} and {@link io.harbinger.sidecar.ConfigLoader}
 * (configuration), {@link io.harbinger.sidecar.SidecarServer} (the gRPC server, for embedding and
 * tests). The producer-side client, {@code io.harbinger.sidecar.client}, is its own module
 * (sidecar-client).
 */
package io.harbinger.sidecar;
