package io.harbinger.rabbit;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Recoverable;
import com.rabbitmq.client.RecoveryListener;

/**
 * The wrapped channel of a delegate that recovers automatically: also a {@link Recoverable}, so
 * application code that casts its channel to {@code Recoverable} keeps working (the client's
 * automatically recovering channels implement it).
 *
 * <p>Thread safety: as {@link PredictiveChannel}.
 */
final class RecoverablePredictiveChannel extends PredictiveChannel implements Recoverable {

  private final Recoverable recoverable;

  /**
   * Wraps a recoverable channel.
   *
   * @param delegate the application's channel, a {@link Recoverable}
   * @param options how to wrap it
   * @param prefetchGuard where consumer prefetch is checked
   */
  RecoverablePredictiveChannel(
      Channel delegate, ChannelOptions options, PrefetchGuard prefetchGuard) {
    super(delegate, options, prefetchGuard);
    this.recoverable = (Recoverable) delegate;
  }

  @Override
  public void addRecoveryListener(RecoveryListener listener) {
    recoverable.addRecoveryListener(listener);
  }

  @Override
  public void removeRecoveryListener(RecoveryListener listener) {
    recoverable.removeRecoveryListener(listener);
  }
}
