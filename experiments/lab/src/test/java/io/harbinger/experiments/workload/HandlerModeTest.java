package io.harbinger.experiments.workload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.harbinger.predictor.Ticker;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class HandlerModeTest {

  private final List<Long> sleeps = new ArrayList<>();
  private final long[] clock = {0};
  private final Sleeper recording =
      nanos -> {
        sleeps.add(nanos);
        clock[0] += nanos;
      };
  private final Ticker ticker = () -> clock[0];

  private static Job job(JobType type, long units, double cpu, double sleep, double failed) {
    return new Job(3, type, Phase.STEADY, 0, units, cpu, sleep, failed, cpu + sleep + failed, 0);
  }

  @Test
  void sleepHandler_sleepsPlannedDurationAndSucceeds() throws InterruptedException {
    Handler handler = HandlerMode.SLEEP.create(recording, ticker);

    Handler.AttemptResult r = handler.handle(job(JobType.GENERATE_INVOICE, 12, 0.5, 4.0, 0), 1);

    assertThat(r.succeeded()).isTrue();
    assertThat(sleeps).containsExactly(4_500_000L);
    assertThat(r.handlerNanos()).isEqualTo(4_500_000L);
  }

  @Test
  void bothModes_failingWebhook_firstAttemptTimesOutAndFails_retrySucceeds()
      throws InterruptedException {
    Job failing = job(JobType.DELIVER_WEBHOOK, 0, 0, 40, 1500);
    for (HandlerMode mode : HandlerMode.values()) {
      sleeps.clear();
      Handler handler = mode.create(recording, ticker);

      Handler.AttemptResult first = handler.handle(failing, 1);
      Handler.AttemptResult retry = handler.handle(failing, 2);

      assertThat(first.succeeded()).as(mode.name()).isFalse();
      assertThat(first.handlerNanos()).isEqualTo(1_500_000_000L);
      assertThat(retry.succeeded()).isTrue();
      assertThat(sleeps).containsExactly(1_500_000_000L, 40_000_000L);
    }
  }

  @Test
  void cpuHandler_runsKernelThenSleepsIo() throws InterruptedException {
    Handler handler = HandlerMode.CPU.create(recording, Ticker.SYSTEM);
    long before = Sink.last();

    Handler.AttemptResult r = handler.handle(job(JobType.REINDEX_PRODUCT, 4000, 0.4, 2.0, 0), 1);

    assertThat(r.succeeded()).isTrue();
    assertThat(sleeps).containsExactly(2_000_000L);
    assertThat(Sink.last()).isNotEqualTo(before);
  }

  @Test
  void handle_badAttempt_failsWithRule() {
    Handler handler = HandlerMode.SLEEP.create(recording, ticker);

    assertThatThrownBy(() -> handler.handle(job(JobType.SEND_SMS, 0, 0, 80, 0), 0))
        .hasMessage("attempt must be at least 1: 0");
    assertThatThrownBy(() -> HandlerMode.fromWireName("gpu"))
        .hasMessage("handlers must be cpu or sleep: gpu");
    assertThat(HandlerMode.fromWireName("cpu")).isEqualTo(HandlerMode.CPU);
  }
}
