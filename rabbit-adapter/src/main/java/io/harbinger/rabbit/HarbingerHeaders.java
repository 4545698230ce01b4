package io.harbinger.rabbit;

/**
 * The names Harbinger puts on the wire: the header a wrapped channel stamps on every message, the
 * first version's three headers that consumers still read, the default job-type header, the header
 * of a learner's probe and the reports exchange.
 */
public final class HarbingerHeaders {

  /**
   * The one header a wrapped channel stamps: publish time, level and mode in one short string, such
   * as {@code v1;l=0;m=p;t=1796126400000001} ({@link Stamp#headerValue()} has the format).
   */
  public static final String STAMP = "x-harbinger";

  /**
   * When the message was published, in epoch microseconds (a {@code long}): the first version's
   * header, no longer written; consumers read it from messages that carry no {@link #STAMP}.
   */
  public static final String PUBLISHED_AT = "x-harbinger-published-at";

  /**
   * The level the message was published at, 0 served first (an {@code int}): the first version's
   * header, no longer written; consumers read it from messages that carry no {@link #STAMP}.
   */
  public static final String LEVEL = "x-harbinger-level";

  /**
   * The mode the level was chosen in: the first version's header, no longer written nor read (the
   * consumer needs no mode).
   */
  public static final String MODE = "x-harbinger-mode";

  /** The header that carries a message's job type unless configured otherwise. */
  public static final String DEFAULT_JOB_TYPE = "x-job-type";

  /**
   * The header of a learner's probe: an empty message it publishes to the reports exchange to check
   * that its queue is bound (see {@link ReportBinding}). Every learner skips such messages.
   */
  public static final String PROBE = "x-harbinger-probe";

  /** The durable fanout exchange that duration reports are published to. */
  public static final String REPORTS_EXCHANGE = "harbinger.reports";

  private HarbingerHeaders() {}
}
