package io.harbinger.rabbit;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Consumer;

/**
 * What an application asked for when it consumed a logical lanes queue on a wrapped channel: what
 * every kind of lanes consumer is built from.
 *
 * @param delegate the channel the lanes are consumed on
 * @param layout the logical queue's lanes
 * @param options how the channel is wrapped: lane options, counters, ticker, job-type header
 * @param application the application's consumer, already timed by the channel's tracker
 * @param consumerTag the application's tag, or null or empty for a generated one
 * @param autoAck whether the application acknowledges automatically
 * @param prefetch the application's effective prefetch, 0 for none
 */
record LanesConsumeRequest(
    Channel delegate,
    LaneLayout layout,
    ChannelOptions options,
    Consumer application,
    String consumerTag,
    boolean autoAck,
    int prefetch) {}
