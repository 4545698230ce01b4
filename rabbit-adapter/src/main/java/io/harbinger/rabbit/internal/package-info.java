/**
 * The implementation of the adapter: the forwarding and wrapped channels, the publish stamper and
 * the delivery tracker. Not an API: use {@link io.harbinger.rabbit.PredictiveChannels}.
 */
package io.harbinger.rabbit.internal;
