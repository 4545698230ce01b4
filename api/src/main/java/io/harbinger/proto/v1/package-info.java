/**
 * The messages and gRPC services generated from {@code harbinger/v1/*.proto}: the duration reports
 * the consumers publish ({@code reports.proto}), the sidecar's route table, admin and health
 * services ({@code sidecar.proto}), and the comparison broker's service ({@code broker.proto}).
 *
 * <p>The RabbitMQ client integration encodes and decodes the report messages itself and does not
 * link this module; the sidecar, its client and other languages' tools use it.
 */
package io.harbinger.proto.v1;
