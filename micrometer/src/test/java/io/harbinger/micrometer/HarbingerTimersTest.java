package io.harbinger.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.harbinger.rabbit.DurationReport;
import io.harbinger.rabbit.Settlement;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class HarbingerTimersTest {

  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final List<DurationReport> passedOn = new ArrayList<>();
  private final HarbingerTimers timers = new HarbingerTimers(registry, 3, passedOn::add);

  private static DurationReport report(
      Settlement settlement, int level, long waitMicros, long handlerNanos) {
    return new DurationReport(
        "shop", "send_email", -1, settlement, handlerNanos, waitMicros, level, false, 0, 0);
  }

  private Timer wait(String level) {
    return registry.get("harbinger.client.queue.wait").tag("level", level).timer();
  }

  private Timer handler(String level, String result) {
    return registry
        .get("harbinger.client.handler")
        .tag("level", level)
        .tag("result", result)
        .timer();
  }

  @Test
  void accept_recordsWaitAndHandlerTimeByLevel_andPassesEveryReportOn() {
    timers.accept(report(Settlement.ACK, 0, 1_500, 2_000_000));
    timers.accept(report(Settlement.ACK, 0, 2_500, 4_000_000));
    timers.accept(report(Settlement.ACK, 2, 900_000, 300_000_000));
    timers.accept(report(Settlement.NACK, 2, 10, 5_000_000));

    assertThat(wait("0").count()).isEqualTo(2);
    assertThat(wait("0").totalTime(TimeUnit.MICROSECONDS)).isEqualTo(4_000);
    assertThat(wait("2").count()).isEqualTo(2);
    assertThat(wait("1").count()).isZero();
    assertThat(handler("0", "ack").totalTime(TimeUnit.MILLISECONDS)).isEqualTo(6);
    assertThat(handler("2", "ack").count()).isEqualTo(1);
    assertThat(handler("2", "nack").count()).isEqualTo(1);
    assertThat(passedOn).hasSize(4);
  }

  @Test
  void accept_reportWithoutAStamp_countsAsUnknownLevel_andWithoutAWaitRecordsNoWait() {
    timers.accept(report(Settlement.ACK, -1, -1, 1_000_000));
    timers.accept(report(Settlement.REJECT, 7, 50, 1_000));

    assertThat(wait("unknown").count()).isEqualTo(1);
    assertThat(handler("unknown", "ack").count()).isEqualTo(1);
    assertThat(handler("unknown", "reject").count()).isEqualTo(1);
  }

  @Test
  void accept_censoredDelivery_recordsItsWaitButNoHandlerTime() {
    timers.accept(report(Settlement.CENSORED, 1, 200, 0));

    assertThat(wait("1").count()).isEqualTo(1);
    assertThat(registry.get("harbinger.client.handler").timers())
        .allSatisfy(t -> assertThat(t.count()).isZero());
    assertThat(passedOn).hasSize(1);
  }

  @Test
  void create_registersEveryTimerAtOnce_withAFixedSetOfTags() {
    assertThat(registry.get("harbinger.client.queue.wait").timers()).hasSize(4);
    assertThat(registry.get("harbinger.client.handler").timers()).hasSize(12);
  }

  @Test
  void create_levelsOutOfRange_failsNamingThem() {
    assertThatThrownBy(() -> new HarbingerTimers(registry, 11, r -> {}))
        .hasMessage("levels must be in [2, 10]: 11");
  }
}
