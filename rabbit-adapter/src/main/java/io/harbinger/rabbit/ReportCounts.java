package io.harbinger.rabbit;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What became of a {@link ReportPublisher}'s reports, counted once per batch when RabbitMQ settles
 * it: sent (confirmed and routed to a queue), unroutable (confirmed, but returned: nothing is bound
 * to the exchange), or dropped (the buffer was full, or the batch was refused or lost with its
 * channel). The drops a lost or unroutable batch carried are handed back, to be declared again in a
 * later batch.
 *
 * <p>Thread-safe: the counters are adders, the report channel's settlement thread and the
 * publisher's threads update them concurrently.
 */
final class ReportCounts implements ReportChannel.Settlements {

  private static final Logger LOG = LoggerFactory.getLogger(ReportPublisher.class);

  final LongAdder dropped = new LongAdder();
  final LongAdder sent = new LongAdder();
  final LongAdder batches = new LongAdder();
  final LongAdder failedBatches = new LongAdder();
  final LongAdder unroutable = new LongAdder();
  private final AtomicBoolean reachingNoQueue = new AtomicBoolean();
  private final LongConsumer carry;
  private final LongConsumer carryWithNextReports;

  /**
   * Creates the counts.
   *
   * @param carry takes drops to declare again in a later batch (those of a lost batch)
   * @param carryWithNextReports takes drops to declare again with the next reports (those of a
   *     batch that reached no queue)
   */
  ReportCounts(LongConsumer carry, LongConsumer carryWithNextReports) {
    this.carry = carry;
    this.carryWithNextReports = carryWithNextReports;
  }

  /** Counts a batch that will never be confirmed; its reports and the drops it carried go back. */
  void lost(int reports, long carriedDrops) {
    failedBatches.increment();
    dropped.add(reports);
    carry.accept(carriedDrops + reports);
  }

  @Override
  public void sent(ReportChannel.Pending batch) {
    if (!batch.probe()) {
      sent.add(batch.reports());
      batches.increment();
      if (reachingNoQueue.compareAndSet(true, false)) {
        LOG.info("report batches reach a queue again");
      }
    }
  }

  @Override
  public void unroutable(ReportChannel.Pending batch) {
    if (batch.probe()) {
      return;
    }
    unroutable.add(batch.reports());
    if (batch.carriedDrops() > 0) {
      carryWithNextReports.accept(batch.carriedDrops());
    }
    if (reachingNoQueue.compareAndSet(false, true)) {
      LOG.warn(
          "report batches reach no queue: nothing is bound to the reports exchange (no sidecar"
              + " or embedded router consumes it, or it was deleted and declared again); their"
              + " reports are counted as unroutable, not sent");
    }
  }

  @Override
  public void lost(ReportChannel.Pending batch) {
    if (!batch.probe()) {
      lost(batch.reports(), batch.carriedDrops());
    }
  }
}
