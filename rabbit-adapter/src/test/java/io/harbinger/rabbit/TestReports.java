package io.harbinger.rabbit;

/** Duration reports for tests. */
public final class TestReports {

  private TestReports() {}

  /**
   * Returns an acknowledged report with nothing else set.
   *
   * @param producer the producer
   * @param jobType the job type
   * @param handlerNanos the handler time
   * @return the report
   */
  public static DurationReport ack(String producer, String jobType, long handlerNanos) {
    return sized(producer, jobType, -1, handlerNanos);
  }

  /**
   * Returns an acknowledged report with a size hint.
   *
   * @param producer the producer
   * @param jobType the job type
   * @param size the size hint, or -1 for none
   * @param handlerNanos the handler time
   * @return the report
   */
  public static DurationReport sized(
      String producer, String jobType, long size, long handlerNanos) {
    return new DurationReport(
        producer, jobType, size, Settlement.ACK, handlerNanos, 0, 0, false, 0, 0);
  }

  /**
   * Returns a report settled otherwise.
   *
   * @param producer the producer
   * @param jobType the job type
   * @param settlement how it was settled
   * @param handlerNanos the handler time
   * @return the report
   */
  public static DurationReport settled(
      String producer, String jobType, Settlement settlement, long handlerNanos) {
    return new DurationReport(producer, jobType, -1, settlement, handlerNanos, 0, 0, false, 0, 0);
  }

  /**
   * Decodes a report batch as learners do.
   *
   * @param body the message body
   * @return the batch
   * @throws IllegalStateException when the body is not a report batch
   */
  public static ReportBatch batch(byte[] body) {
    try {
      return ReportWire.decode(body);
    } catch (ReportWire.MalformedException e) {
      throw new IllegalStateException("not a report batch: " + e.getMessage(), e);
    }
  }
}
