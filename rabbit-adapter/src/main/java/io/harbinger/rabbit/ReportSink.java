package io.harbinger.rabbit;

/**
 * Receives the duration report of every settled delivery of a wrapped consumer.
 *
 * <p>Implementations must return at once and never throw: they are called on the consumer's thread,
 * right after its handler or its acknowledgement. {@link ReportPublisher} is the implementation
 * that sends reports to RabbitMQ.
 */
@FunctionalInterface
public interface ReportSink {

  /** A sink that discards every report: what a producer-only channel uses. */
  ReportSink NO_OP = report -> {};

  /**
   * Takes one report; must not block.
   *
   * @param report the report of one settled delivery
   */
  void accept(DurationReport report);
}
