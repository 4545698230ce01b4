package io.harbinger.broker.sched;

import io.harbinger.predictor.Ticker;
import java.time.Duration;

/** A ticker that moves only when told. */
final class FakeTicker implements Ticker {

  private long nowNanos;

  @Override
  public long nanos() {
    return nowNanos;
  }

  void advance(Duration duration) {
    nowNanos += duration.toNanos();
  }
}
