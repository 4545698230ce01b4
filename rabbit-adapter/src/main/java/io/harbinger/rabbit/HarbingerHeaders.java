package io.harbinger.rabbit;

/**
 * The names Harbinger puts on the wire: the headers a wrapped channel stamps on every message, the
 * default job-type header and the reports exchange.
 */
public final class HarbingerHeaders {

  /** When the message was published, in epoch microseconds (a {@code long}). */
  public static final String PUBLISHED_AT = "x-harbinger-published-at";

  /** The level the message was published at, 0 served first (an {@code int}). */
  public static final String LEVEL = "x-harbinger-level";

  /** The mode the level was chosen in: {@code predictive}, {@code shadow} or {@code off}. */
  public static final String MODE = "x-harbinger-mode";

  /** The header that carries a message's job type unless configured otherwise. */
  public static final String DEFAULT_JOB_TYPE = "x-job-type";

  /** The durable fanout exchange that duration reports are published to. */
  public static final String REPORTS_EXCHANGE = "harbinger.reports";

  private HarbingerHeaders() {}
}
