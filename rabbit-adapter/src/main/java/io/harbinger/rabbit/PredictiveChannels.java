package io.harbinger.rabbit;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.Recoverable;
import io.harbinger.predictor.Router;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Wraps RabbitMQ channels so that producers publish at learned priorities and consumers report
 * handler durations: the entry point of the adapter.
 *
 * <p>A producer publishes through the wrapped channel exactly as through its own; each publish gets
 * the priority of its key's level, the {@code x-harbinger-*} headers and the connection's user as
 * {@code user-id}. A consumer consumes and acknowledges through its wrapped channel; each settled
 * delivery becomes one report to the options' {@link ReportSink}. Everything else (confirms,
 * returns, transactions, qos, automatic recovery) is the delegate's own behaviour. The wrapped
 * channel is also a {@link Recoverable} when the delegate is one.
 *
 * <p>Example:
 *
 * <pre>{@code
 * Channel channel = PredictiveChannels.wrap(connection.createChannel(),
 *     ChannelOptions.builder(factory.getUsername()).router(router).build(), factory);
 * }</pre>
 */
public final class PredictiveChannels {

  private static final Logger LOG = LoggerFactory.getLogger(PredictiveChannels.class);

  private PredictiveChannels() {}

  /**
   * Wraps a channel. Publishes nothing and waits for nothing: RabbitMQ itself checks the stamped
   * {@code user-id} at the first publish, and a wrong user is recognised from its 406, logged at
   * ERROR, and named by every later call on the channel (that first message is lost, as with the
   * raw client). To refuse a wrong user before any message is lost, use {@link #wrap(Channel,
   * ChannelOptions, ConnectionFactory)}.
   *
   * @param channel the application's channel
   * @param options the user, router, report sink and the rest
   * @return the wrapped channel; a {@link Recoverable} when {@code channel} is one
   */
  public static Channel wrap(Channel channel, ChannelOptions options) {
    AmqpClientVersion.require();
    Objects.requireNonNull(channel, "channel");
    Objects.requireNonNull(options, "options");
    return channel instanceof Recoverable
        ? new RecoverablePredictiveChannel(channel, options, PrefetchGuard.SHARED)
        : new PredictiveChannel(channel, options, PrefetchGuard.SHARED);
  }

  /**
   * Wraps a channel, first checking with RabbitMQ (once per factory and user) that the options'
   * user is the one the factory authenticates as, when it is stamped as {@code user-id}.
   *
   * <p>The check runs on a short-lived connection of its own, opened from a copy of {@code factory}
   * (not modified): nothing is published on {@code channel}'s connection, so a resource alarm never
   * blocks the application because of it. It takes at most a few seconds: each step is bounded by 5
   * s, and while RabbitMQ blocks publishing connections (a memory or disk alarm) it gives up as
   * soon as RabbitMQ blocks the check's connection. Where it cannot decide (the factory cannot
   * connect, no write permission on the default exchange, an alarm), it logs one WARN line and the
   * channel is wrapped as by {@link #wrap(Channel, ChannelOptions)}. {@link
   * ChannelOptions.Builder#verifyUserId(boolean) verifyUserId(false)} skips it.
   *
   * @param channel the application's channel, on a connection made from {@code factory}
   * @param options the user, router, report sink and the rest
   * @param factory the factory {@code channel}'s connection was made from
   * @return the wrapped channel; a {@link Recoverable} when {@code channel} is one
   * @throws IllegalArgumentException when RabbitMQ refuses the user as {@code user-id}; the message
   *     names the user and the fix, and nothing was published on {@code channel}
   */
  public static Channel wrap(Channel channel, ChannelOptions options, ConnectionFactory factory) {
    AmqpClientVersion.require();
    Objects.requireNonNull(channel, "channel");
    Objects.requireNonNull(options, "options");
    Objects.requireNonNull(factory, "factory");
    if (options.producerProperty() == ProducerProperty.USER_ID && options.verifyUserId()) {
      IdentityProbe.Result probe = IdentityProbe.check(factory, options.user());
      switch (probe.verdict()) {
        case REFUSED ->
            throw new IllegalArgumentException(
                IdentityProbe.refusal(options.user(), probe.detail()));
        case UNKNOWN ->
            LOG.warn(
                "could not check user '{}' with RabbitMQ ({}): wrapping without the check; a"
                    + " wrong user is recognised at the first publish RabbitMQ refuses",
                options.user(),
                probe.detail());
        case ACCEPTED -> {}
      }
    }
    return wrap(channel, options);
  }

  /**
   * Wraps a producer's channel.
   *
   * @param channel the application's channel
   * @param user the user its connection authenticated as
   * @param router where levels come from, or null to publish every message at the default level
   * @return the wrapped channel
   */
  public static Channel wrap(Channel channel, String user, Router router) {
    AmqpClientVersion.require();
    return wrap(channel, ChannelOptions.builder(user).router(router).build());
  }

  /**
   * Returns the options a channel was wrapped with.
   *
   * @param channel a channel returned by {@link #wrap}
   * @return its options, whose {@link ChannelOptions#stats()} are its counters
   * @throws IllegalArgumentException if the channel was not wrapped here
   */
  public static ChannelOptions optionsOf(Channel channel) {
    if (channel instanceof PredictiveChannel p) {
      return p.options();
    }
    throw new IllegalArgumentException("not a channel wrapped by PredictiveChannels: " + channel);
  }
}
