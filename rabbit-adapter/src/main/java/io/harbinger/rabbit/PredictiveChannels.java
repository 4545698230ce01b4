package io.harbinger.rabbit;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Recoverable;
import io.harbinger.predictor.Router;
import java.util.Objects;

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
 *     ChannelOptions.builder(factory.getUsername()).router(router).build());
 * }</pre>
 */
public final class PredictiveChannels {

  private PredictiveChannels() {}

  /**
   * Wraps a channel, first checking with RabbitMQ (once per connection and user) that the options'
   * user is the connection's user when it is stamped as {@code user-id}.
   *
   * @param channel the application's channel
   * @param options the user, router, report sink and the rest
   * @return the wrapped channel; a {@link Recoverable} when {@code channel} is one
   * @throws IllegalArgumentException when RabbitMQ refuses the user as {@code user-id}; the message
   *     names the user and the fix, and nothing was published on {@code channel}
   */
  public static Channel wrap(Channel channel, ChannelOptions options) {
    Objects.requireNonNull(channel, "channel");
    Objects.requireNonNull(options, "options");
    if (options.producerProperty() == ProducerProperty.USER_ID && options.verifyUserId()) {
      IdentityProbe.Result probe = IdentityProbe.check(channel, options.user());
      if (probe.verdict() == IdentityProbe.Verdict.REFUSED) {
        throw new IllegalArgumentException(IdentityProbe.refusal(options.user(), probe.detail()));
      }
    }
    return channel instanceof Recoverable
        ? new RecoverablePredictiveChannel(channel, options, PrefetchGuard.SHARED)
        : new PredictiveChannel(channel, options, PrefetchGuard.SHARED);
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
