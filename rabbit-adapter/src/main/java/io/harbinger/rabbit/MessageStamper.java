package io.harbinger.rabbit;

import io.harbinger.predictor.Keys;
import io.harbinger.predictor.Mode;
import io.harbinger.predictor.Outcome;
import io.harbinger.predictor.Prediction;
import io.harbinger.predictor.Router;
import java.time.Clock;
import java.time.Instant;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Computes the {@link Stamp} of every outgoing message from neutral inputs (exchange, routing key,
 * job type, body length, the caller's priority and {@code user-id}): the one definition of how
 * Harbinger stamps a publish, which the wrapped channel and framework integrations share.
 *
 * <p>The key is the options' user, 0x1F and the job type ({@code Keys.of}); a message without a job
 * type gets the producer-only key. The level comes from the router, or is the default level {@code
 * L / 2} when there is none, it fails, answers null or a level out of range (each counted in {@link
 * AdapterStats}); a router without a current answer ({@code Outcome.UNAVAILABLE}, such as a sidecar
 * router whose table went stale) gives its own default level, counted too. The priority is that
 * level's on the addressed queue's type and the broker's version ({@link PriorityScheme}); in
 * shadow mode, and on a queue without priorities, it is the caller's. The producer identity is the
 * options' user, in {@code user-id}: a caller's other value is replaced and counted, because
 * RabbitMQ would close the channel for it; with {@link ProducerProperty#APP_ID} it goes in {@code
 * app-id} instead and the caller's {@code user-id} is kept.
 *
 * <p>Example:
 *
 * <pre>{@code
 * MessageStamper stamper = MessageStamper.create(options, "4.0.5");
 * Stamp stamp = stamper.stamp("", "jobs", "send_email", body.length, null, null);
 * // stamp.priority(), stamp.userId(), stamp.putHeaders(headers): x-harbinger = v1;l=0;m=p;t=...
 * }</pre>
 *
 * <p>Implementation notes. The key of a job type is cached up to {@value #MAX_CACHED_KEYS} job
 * types (the user is fixed per stamper, so a key depends on the job type alone), after which keys
 * are built per publish. Priorities are boxed once per queue type. A publish to the default
 * exchange looks up the type of the queue it addresses among the queues this process declared
 * through a wrapped channel or {@link PriorityQueues}; any other publish, and one to a queue of
 * unknown type, keeps the classic mapping ({@link PriorityScheme#CLASSIC}). One stamp reads the
 * clock once, makes one router lookup, which is a local call by the {@link Router} contract, and
 * allocates the stamp and its header's value (the publish path never blocks on Harbinger).
 *
 * <p>Thread-safe and lock-free: the key cache is a concurrent map read without locking.
 */
public final class MessageStamper {

  static final int MAX_CACHED_KEYS = 1024;

  private static final String PREDICTIVE = "predictive";
  private static final String SHADOW = "shadow";

  /** The mode stamped on a message published in shadow mode. */
  public static final String SHADOW_MODE = SHADOW;

  private static final String OFF = "off";

  private final String user;
  private final boolean appIdIdentity;
  private final Router router;
  private final int levels;
  private final int defaultLevel;
  private final String jobTypeHeader;
  private final boolean shadow;
  private final boolean sizeHints;
  private final AdapterStats stats;
  private final Clock clock;
  private final String producerOnlyKey;
  private final DeclaredQueues queues;
  private final Integer[][] prioritiesByType;
  private final ConcurrentHashMap<String, String> keys = new ConcurrentHashMap<>();

  private MessageStamper(ChannelOptions options, String brokerVersion, DeclaredQueues queues) {
    user = options.user();
    appIdIdentity = options.producerProperty() == ProducerProperty.APP_ID;
    router = options.router();
    levels = options.levels();
    defaultLevel = options.defaultLevel();
    jobTypeHeader = options.jobTypeHeader();
    shadow = options.shadow();
    sizeHints = options.sizeHints();
    stats = options.stats();
    clock = options.clock();
    producerOnlyKey = Keys.of(user, null);
    this.queues = queues;
    QueueType[] types = QueueType.values();
    prioritiesByType = new Integer[types.length][];
    for (QueueType type : types) {
      PriorityScheme scheme = PriorityScheme.of(type, brokerVersion);
      Integer[] priorities = new Integer[levels];
      for (int level = 0; level < levels; level++) {
        priorities[level] = scheme.priority(level, levels);
      }
      prioritiesByType[type.ordinal()] = priorities;
    }
  }

  /**
   * Creates the stamper of one producer connection.
   *
   * @param options whose messages are stamped, the router, the levels, the job-type header, shadow
   *     mode, the counters and the clock
   * @param brokerVersion the version the broker reports in its server properties (such as {@code
   *     4.0.5}), or null when unknown: a quorum queue then gets the mapping every 4.x broker
   *     honours
   * @return the stamper
   */
  public static MessageStamper create(ChannelOptions options, String brokerVersion) {
    Objects.requireNonNull(options, "options");
    return new MessageStamper(options, brokerVersion, DeclaredQueues.SHARED);
  }

  /**
   * Returns the header whose value is a message's job type.
   *
   * @return the header name, {@code x-job-type} unless configured otherwise
   */
  public String jobTypeHeader() {
    return jobTypeHeader;
  }

  /**
   * Returns the number of levels stamped.
   *
   * @return the levels, in [2, 10]
   */
  public int levels() {
    return levels;
  }

  /**
   * Returns the size hint to pass to {@link #stamp} for a message: with size hints on, its {@value
   * ChannelOptions#SIZE_HINT_HEADER} header when that holds a non-negative integer (else, counted
   * in {@link AdapterStats#invalidSizeHints()}, its body length); with size hints off, the body
   * length, which is then not used.
   *
   * @param headers the message's headers, or null
   * @param bodyLength the body length in bytes
   * @return the size hint
   */
  public long sizeHint(Map<String, ?> headers, long bodyLength) {
    return sizeHints ? SizeHints.of(headers, bodyLength, stats) : bodyLength;
  }

  /**
   * Computes the stamp of one message; counts it as published.
   *
   * @param exchange the exchange published to, empty or null for the default exchange
   * @param routingKey the routing key, the queue's name on the default exchange
   * @param jobType the value of the job-type header, or null when the message has none
   * @param sizeHint the router's size hint when size hints are on: {@link #sizeHint}, or the body
   *     length
   * @param callerPriority the priority the caller set, or null; kept in shadow mode and on queues
   *     without priorities
   * @param callerUserId the {@code user-id} the caller set, or null; replaced (and counted) when it
   *     names anyone but the options' user
   * @return the stamp
   */
  public Stamp stamp(
      String exchange,
      String routingKey,
      Object jobType,
      long sizeHint,
      Integer callerPriority,
      String callerUserId) {
    return stamp(
        exchange, routingKey, jobType, sizeHint, callerPriority, callerUserId, null, TO_STAMP);
  }

  /**
   * Computes the stamp of one message and hands its values to an applier, which builds the
   * integration's own message properties from them with no {@link Stamp} in between; counts the
   * message as published.
   *
   * @param exchange as for {@link #stamp(String, String, Object, long, Integer, String)}
   * @param routingKey as for that method
   * @param jobType as for that method
   * @param sizeHint as for that method
   * @param callerPriority as for that method
   * @param callerUserId as for that method
   * @param context what the applier needs besides the stamp (the caller's properties), or null
   * @param applier builds the result from the context and the stamp's values
   * @param <C> the context's type
   * @param <T> the result's type
   * @return what the applier returned
   */
  public <C, T> T stamp(
      String exchange,
      String routingKey,
      Object jobType,
      long sizeHint,
      Integer callerPriority,
      String callerUserId,
      C context,
      Applier<C, T> applier) {
    String key = keyOf(jobType);
    Prediction prediction = route(key, sizeHint);
    boolean shadowNow;
    int level;
    String mode;
    if (prediction == null) {
      shadowNow = shadow;
      level = defaultLevel;
      mode = shadow ? SHADOW : PREDICTIVE;
    } else {
      shadowNow = shadow || prediction.mode() == Mode.SHADOW;
      level = shadowNow ? prediction.predictedLevel() : prediction.level();
      mode = shadowNow ? SHADOW : prediction.mode() == Mode.OFF ? OFF : PREDICTIVE;
      if (level < 0 || level >= levels) {
        stats.increment(Counter.INVALID_LEVEL);
        level = defaultLevel;
      }
    }
    Integer priority = shadowNow ? null : prioritiesFor(exchange, routingKey)[level];
    if (!appIdIdentity && callerUserId != null && !user.equals(callerUserId)) {
      stats.increment(Counter.USER_ID_REPLACED);
    }
    stats.increment(Counter.PUBLISHED);
    return applier.apply(
        context,
        level,
        priority == null ? callerPriority : priority,
        appIdIdentity ? callerUserId : user,
        appIdIdentity ? user : null,
        epochMicros(clock),
        mode);
  }

  /**
   * Builds an integration's result from a computed stamp's values.
   *
   * @param <C> the context's type
   * @param <T> the result's type
   */
  @FunctionalInterface
  public interface Applier<C, T> {

    /**
     * Builds the result.
     *
     * @param context the context given to {@link MessageStamper#stamp}, or null
     * @param level the level, as {@link Stamp#level()}
     * @param priority the priority to publish with, as {@link Stamp#priority()}
     * @param userId the {@code user-id} to publish with, as {@link Stamp#userId()}
     * @param appId the {@code app-id} to publish with, as {@link Stamp#appId()}: null keeps the
     *     caller's
     * @param publishedAtMicros the publish time in epoch microseconds, as {@link
     *     Stamp#publishedAtMicros()}; {@link Stamp#headerValue(long, int, String)} makes the header
     * @param mode the mode, as {@link Stamp#mode()}
     * @return the result
     */
    T apply(
        C context,
        int level,
        Integer priority,
        String userId,
        String appId,
        long publishedAtMicros,
        String mode);
  }

  private static final Applier<Object, Stamp> TO_STAMP = Stamp::new;

  /**
   * Returns the key of a message with a given job type.
   *
   * @param jobType the job-type header's value, or null
   * @return the key; the producer-only key when {@code jobType} is null
   */
  public String keyOf(Object jobType) {
    if (jobType == null) {
      return producerOnlyKey;
    }
    String type = jobType.toString();
    String key = keys.get(type);
    if (key != null) {
      return key;
    }
    key = Keys.of(user, type);
    if (keys.size() < MAX_CACHED_KEYS) {
      keys.putIfAbsent(type, key);
    }
    return key;
  }

  /** Returns the priorities of each level for a publish to an exchange with a routing key. */
  private Integer[] prioritiesFor(String exchange, String routingKey) {
    QueueType type =
        exchange == null || exchange.isEmpty() ? queues.type(routingKey) : QueueType.CLASSIC;
    return prioritiesByType[(type == null ? QueueType.CLASSIC : type).ordinal()];
  }

  private Prediction route(String key, long sizeHint) {
    if (router == null) {
      stats.increment(Counter.ROUTER_ABSENT);
      return null;
    }
    try {
      Prediction p = sizeHints ? router.route(key, sizeHint) : router.route(key);
      if (p == null) {
        stats.increment(Counter.ROUTER_FAILURE);
      } else if (p.outcome() == Outcome.UNAVAILABLE) {
        stats.increment(Counter.ROUTER_UNAVAILABLE);
      }
      return p;
    } catch (RuntimeException | LinkageError e) {
      stats.increment(Counter.ROUTER_FAILURE);
      return null;
    }
  }

  /**
   * Returns a clock's time in epoch microseconds, the unit of the publish time in {@code
   * x-harbinger}.
   *
   * @param clock the wall clock
   * @return microseconds since the epoch
   */
  public static long epochMicros(Clock clock) {
    Instant now = clock.instant();
    return now.getEpochSecond() * 1_000_000L + now.getNano() / 1_000;
  }
}
