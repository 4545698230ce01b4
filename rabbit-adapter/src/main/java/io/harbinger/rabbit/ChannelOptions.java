package io.harbinger.rabbit;

import io.harbinger.predictor.Keys;
import io.harbinger.predictor.PredictorConfig;
import io.harbinger.predictor.Router;
import io.harbinger.predictor.Ticker;
import java.time.Clock;
import java.util.Objects;

/**
 * How a channel is wrapped: whose messages it publishes, where levels come from, where reports go.
 *
 * <p>Build one with {@link #builder(String)}; the one required value is the connection's user,
 * because the AMQP client does not expose it on a {@code Connection} ({@code
 * ConnectionFactory.getUsername()} is the usual source; under x509/EXTERNAL or OAuth 2 it is not
 * the authenticated identity, so give that one).
 *
 * <p>Identity. With {@link ProducerProperty#USER_ID} (the default) the user is stamped as every
 * message's {@code user-id}, which RabbitMQ checks: a wrong user would have RabbitMQ close the
 * channel with 406 at the first publish, losing that message. So {@link
 * PredictiveChannels#wrap(com.rabbitmq.client.Channel, ChannelOptions,
 * com.rabbitmq.client.ConnectionFactory)} checks the user once, on a short-lived connection of its
 * own from the application's factory (never publishing on the application's connection), and
 * refuses a wrong one with an error that names it; where no factory is given, the check cannot
 * decide (no permission on the default exchange, a resource alarm) or {@code verifyUserId} is off,
 * the first 406 is recognised and every later call on the channel fails with that error. With
 * {@link ProducerProperty#APP_ID} nothing is validated: see there what that trusts.
 *
 * @param user the producer identity: with {@code USER_ID} the user the channel's connection
 *     authenticated as, stamped as every message's {@code user-id}; with {@code APP_ID} the name
 *     stamped as {@code app-id}; the producer part of every key; must be a usable key producer
 *     (non-empty, no control characters)
 * @param producerProperty where the producer identity travels, published and consumed
 * @param verifyUserId whether wrapping with a connection factory checks with RabbitMQ that {@code
 *     user} is the factory's user (with {@code USER_ID} only)
 * @param router where publish levels come from, or null for none: every publish then goes out at
 *     the default level and is counted in {@link AdapterStats#routerAbsent()}
 * @param levels the number of levels when there is no router, in [2, 10]; with a router, its own
 *     {@link Router#levels()} is used
 * @param jobTypeHeader the header that carries the job type, {@code x-job-type} by default
 * @param shadow when true, the predicted level is stamped in {@code x-harbinger-level} but the
 *     caller's priority is left alone, so delivery order stays as without Harbinger
 * @param sizeHints when true, each message's size hint is passed to the router and reported (for a
 *     predictor with size bins on): the {@value #SIZE_HINT_HEADER} header the producer set, a
 *     non-negative integer in whatever unit grows with the job's work (items, pixels, bytes), else
 *     the body length
 * @param reports where the duration reports of wrapped consumers go; {@link ReportSink#NO_OP} for a
 *     producer-only channel
 * @param stats the counters the wrapped channels add to
 * @param clock the wall clock of the {@code x-harbinger-published-at} stamps and of wait times
 * @param ticker the monotonic clock of handler durations
 * @param lanes how wrapped consumers of a lanes queue ({@link Lanes}) choose the next delivery
 */
public record ChannelOptions(
    String user,
    ProducerProperty producerProperty,
    boolean verifyUserId,
    Router router,
    int levels,
    String jobTypeHeader,
    boolean shadow,
    boolean sizeHints,
    ReportSink reports,
    AdapterStats stats,
    Clock clock,
    Ticker ticker,
    LaneOptions lanes) {

  /**
   * The header a producer sets to give a message's size hint, a non-negative integer (as an AMQP
   * integer or decimal text); the same header Harbinger's broker reads.
   */
  public static final String SIZE_HINT_HEADER = "x-size-hint";

  /** Checks the values; see the class description for the rules. */
  public ChannelOptions {
    Objects.requireNonNull(user, "user");
    if (Keys.of(user, null).isEmpty()) {
      throw new IllegalArgumentException(
          "user must be non-empty and free of control characters: '" + user + "'");
    }
    if (router != null) {
      levels = router.levels();
    }
    PredictorConfig.checkLevels(levels);
    Objects.requireNonNull(producerProperty, "producerProperty");
    Objects.requireNonNull(jobTypeHeader, "jobTypeHeader");
    if (jobTypeHeader.isEmpty()) {
      throw new IllegalArgumentException("jobTypeHeader must not be empty");
    }
    Objects.requireNonNull(reports, "reports");
    Objects.requireNonNull(stats, "stats");
    Objects.requireNonNull(clock, "clock");
    Objects.requireNonNull(ticker, "ticker");
    Objects.requireNonNull(lanes, "lanes");
  }

  /**
   * Returns the level of messages whose key is not trusted, or when the router fails.
   *
   * @return {@code levels / 2}
   */
  public int defaultLevel() {
    return levels / 2;
  }

  /**
   * Starts options for a connection's user, with no router, 3 levels, {@code x-job-type}, no
   * shadow, no size hints, no reports, the system clocks.
   *
   * @param user the connection's user (see {@link #user()})
   * @return a builder
   */
  public static Builder builder(String user) {
    return new Builder(user);
  }

  /** Builds {@link ChannelOptions}; not thread-safe. */
  public static final class Builder {
    private final String user;
    private ProducerProperty producerProperty = ProducerProperty.USER_ID;
    private boolean verifyUserId = true;
    private Router router;
    private int levels = PredictorConfig.defaults().levels();
    private String jobTypeHeader = HarbingerHeaders.DEFAULT_JOB_TYPE;
    private boolean shadow;
    private boolean sizeHints;
    private ReportSink reports = ReportSink.NO_OP;
    private AdapterStats stats = new AdapterStats();
    private Clock clock = Clock.systemUTC();
    private Ticker ticker = Ticker.SYSTEM;
    private LaneOptions lanes = LaneOptions.defaults();

    private Builder(String user) {
      this.user = user;
    }

    /**
     * Sets the property that carries the producer identity; {@link ProducerProperty#USER_ID} by
     * default.
     *
     * @param value the property; read its description before choosing {@code APP_ID}
     * @return this builder
     */
    public Builder producerProperty(ProducerProperty value) {
      producerProperty = Objects.requireNonNull(value, "producerProperty");
      return this;
    }

    /**
     * Sets whether wrapping with a connection factory checks the user with RabbitMQ; on by default.
     *
     * @param value false to skip the check (the first 406 is still recognised)
     * @return this builder
     */
    public Builder verifyUserId(boolean value) {
      verifyUserId = value;
      return this;
    }

    /**
     * Sets the router.
     *
     * @param value the router, or null for none
     * @return this builder
     */
    public Builder router(Router value) {
      router = value;
      return this;
    }

    /**
     * Sets the number of levels used when there is no router.
     *
     * @param value in [2, 10]
     * @return this builder
     */
    public Builder levels(int value) {
      levels = value;
      return this;
    }

    /**
     * Sets the job-type header.
     *
     * @param value a non-empty header name
     * @return this builder
     */
    public Builder jobTypeHeader(String value) {
      jobTypeHeader = value;
      return this;
    }

    /**
     * Sets shadow mode.
     *
     * @param value true to stamp levels without changing priorities
     * @return this builder
     */
    public Builder shadow(boolean value) {
      shadow = value;
      return this;
    }

    /**
     * Sets whether size hints are used: the {@value ChannelOptions#SIZE_HINT_HEADER} header, else
     * the body length.
     *
     * @param value true to pass size hints
     * @return this builder
     */
    public Builder sizeHints(boolean value) {
      sizeHints = value;
      return this;
    }

    /**
     * Sets where reports go.
     *
     * @param value the sink
     * @return this builder
     */
    public Builder reports(ReportSink value) {
      reports = value;
      return this;
    }

    /**
     * Sets the counters to add to, for sharing them across option sets.
     *
     * @param value the counters
     * @return this builder
     */
    public Builder stats(AdapterStats value) {
      stats = value;
      return this;
    }

    /**
     * Sets the wall clock.
     *
     * @param value the clock
     * @return this builder
     */
    public Builder clock(Clock value) {
      clock = value;
      return this;
    }

    /**
     * Sets the monotonic clock.
     *
     * @param value the ticker
     * @return this builder
     */
    public Builder ticker(Ticker value) {
      ticker = value;
      return this;
    }

    /**
     * Sets how wrapped consumers of a lanes queue choose the next delivery; {@link
     * LaneOptions#defaults()} by default.
     *
     * @param value the lane options
     * @return this builder
     */
    public Builder lanes(LaneOptions value) {
      lanes = Objects.requireNonNull(value, "lanes");
      return this;
    }

    /**
     * Builds the options.
     *
     * @return the options
     * @throws IllegalArgumentException if a value breaks its rule
     */
    public ChannelOptions build() {
      return new ChannelOptions(
          user,
          producerProperty,
          verifyUserId,
          router,
          levels,
          jobTypeHeader,
          shadow,
          sizeHints,
          reports,
          stats,
          clock,
          ticker,
          lanes);
    }
  }
}
