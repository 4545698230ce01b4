package io.harbinger.micrometer;

import io.harbinger.rabbit.DurationReport;
import io.harbinger.rabbit.ReportSink;
import io.harbinger.rabbit.Settlement;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * Measures what ordering changes, from the duration report of every settled delivery: how long
 * messages waited in the queue (publish to delivery, from the publish time the producer stamped)
 * and how long their handlers ran, by the level they were published at. With FIFO every level waits
 * about as long; with Harbinger the short work's level waits less, and these timers show by how
 * much on the application's own traffic.
 *
 * <p>Example, on a consumer's channel options:
 *
 * <pre>{@code
 * ReportPublisher publisher = ReportPublisher.start(factory);
 * ChannelOptions options =
 *     ChannelOptions.builder(user).reports(new HarbingerTimers(registry, 3, publisher)).build();
 * // Prometheus: harbinger_client_queue_wait_seconds_bucket{level="0",...},
 * // harbinger_client_handler_seconds_count{level="2",result="ack"}, ...
 * }</pre>
 *
 * <p>Meters: {@code harbinger.client.queue.wait} tagged {@code level} (0 to levels - 1, or {@code
 * unknown} for a message without a readable stamp), recorded when the report carries a wait; {@code
 * harbinger.client.handler} tagged {@code level} and {@code result} ({@code ack}, {@code nack},
 * {@code reject}), recorded for every settled delivery but the censored ones. Both publish
 * percentile histograms between 100 us and 1 hour, so P50 and P99 per level can be computed across
 * instances. The tags are a closed set: no key, job type or queue. Every timer is registered when
 * this is created, and a report costs a few array reads and two timer records.
 *
 * <p>Thread-safe; never throws from {@link #accept}.
 */
public final class HarbingerTimers implements ReportSink {

  private static final String[] RESULTS = {"ack", "nack", "reject"};

  private final int levels;
  private final Timer[] waits;
  private final Timer[][] handlers;
  private final ReportSink next;

  /**
   * Registers the timers and passes every report on.
   *
   * @param registry where the timers go
   * @param levels the number of levels the producers stamp, in [2, 10]
   * @param next the sink the reports go on to, such as the process's {@code ReportPublisher}
   */
  public HarbingerTimers(MeterRegistry registry, int levels, ReportSink next) {
    Objects.requireNonNull(registry, "registry");
    this.next = Objects.requireNonNull(next, "next");
    if (levels < 2 || levels > 10) {
      throw new IllegalArgumentException("levels must be in [2, 10]: " + levels);
    }
    this.levels = levels;
    waits = new Timer[levels + 1];
    handlers = new Timer[levels + 1][RESULTS.length];
    for (int i = 0; i <= levels; i++) {
      String level = i == levels ? "unknown" : Integer.toString(i);
      waits[i] =
          timer("harbinger.client.queue.wait", "Time messages waited in the queue, by level")
              .tag("level", level)
              .register(registry);
      for (int r = 0; r < RESULTS.length; r++) {
        handlers[i][r] =
            timer("harbinger.client.handler", "Handler time of settled deliveries, by level")
                .tag("level", level)
                .tag("result", RESULTS[r])
                .register(registry);
      }
    }
  }

  private static Timer.Builder timer(String name, String description) {
    return Timer.builder(name)
        .description(description)
        .publishPercentileHistogram()
        .minimumExpectedValue(Duration.ofNanos(100_000))
        .maximumExpectedValue(Duration.ofHours(1));
  }

  @Override
  public void accept(DurationReport report) {
    try {
      int level =
          report.publishedLevel() >= 0 && report.publishedLevel() < levels
              ? report.publishedLevel()
              : levels;
      if (report.waitMicros() >= 0) {
        waits[level].record(report.waitMicros(), TimeUnit.MICROSECONDS);
      }
      int result = result(report.settlement());
      if (result >= 0) {
        handlers[level][result].record(report.handlerNanos(), TimeUnit.NANOSECONDS);
      }
    } catch (RuntimeException e) {
      // A meter registry that fails must not stop the report on its way.
    }
    next.accept(report);
  }

  private static int result(Settlement s) {
    return switch (s) {
      case ACK -> 0;
      case NACK -> 1;
      case REJECT -> 2;
      default -> -1;
    };
  }
}
