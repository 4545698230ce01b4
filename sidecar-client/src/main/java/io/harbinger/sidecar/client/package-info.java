/**
 * The producer side of the sidecar: {@link io.harbinger.sidecar.client.SidecarRouter}, a {@link
 * io.harbinger.predictor.Router} that keeps the sidecar's route table locally.
 */
package io.harbinger.sidecar.client;
