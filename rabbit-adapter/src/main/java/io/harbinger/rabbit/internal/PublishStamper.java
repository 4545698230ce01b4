package io.harbinger.rabbit.internal;

import com.rabbitmq.client.AMQP;
import io.harbinger.predictor.Keys;
import io.harbinger.predictor.Mode;
import io.harbinger.predictor.Prediction;
import io.harbinger.predictor.Router;
import io.harbinger.rabbit.AdapterStats;
import io.harbinger.rabbit.AdapterStats.Counter;
import io.harbinger.rabbit.ChannelOptions;
import io.harbinger.rabbit.PriorityScheme;
import io.harbinger.rabbit.QueueType;
import java.time.Clock;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Computes the properties of an outgoing message: key, level, priority, headers, {@code user-id}.
 *
 * <p>Implementation notes. The key of a job type is cached (the connection's user is fixed per
 * wrapped channel, so a key depends on the job type alone) up to {@value #MAX_CACHED_KEYS} job
 * types, after which keys are built per publish. Priorities and level values are boxed once, the
 * priorities once per queue type: a publish to the default exchange looks up the type of the queue
 * it addresses in {@link DeclaredQueues} and takes that type's {@link PriorityScheme} on this
 * broker's version (rabbitmq-facts section 1.2); any other publish, and one to a queue of unknown
 * type, keeps the classic mapping. A scheme without priorities leaves the caller's priority alone.
 * A publish allocates one properties object, whose constructor copies the caller's headers plus the
 * three stamped ones from a {@link StampedHeaders} view (copy on write: the caller's properties and
 * headers are never modified), reads the clock once and makes one router lookup, which is a local
 * call by the {@link Router} contract; a router that throws or answers a level out of range gives
 * the default level and a counter (DESIGN.md, "the wrapper never blocks, drops or delays a publish
 * because of Harbinger").
 *
 * <p>Thread-safe and lock-free: the key cache is a concurrent map read without locking.
 */
final class PublishStamper {

  static final int MAX_CACHED_KEYS = 1024;

  private static final String PREDICTIVE = "predictive";
  private static final String SHADOW = "shadow";
  private static final String OFF = "off";

  private final String user;
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
  private final Integer[] levelValues;
  private final ConcurrentHashMap<String, String> keys = new ConcurrentHashMap<>();

  PublishStamper(ChannelOptions options) {
    this(options, null, DeclaredQueues.SHARED);
  }

  /**
   * Creates the stamper of one channel.
   *
   * @param options how the channel is wrapped
   * @param brokerVersion the version the broker reports, or null when unknown
   * @param queues where the types of declared queues are found
   */
  PublishStamper(ChannelOptions options, String brokerVersion, DeclaredQueues queues) {
    user = options.user();
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
    levelValues = new Integer[levels];
    for (int level = 0; level < levels; level++) {
      levelValues[level] = level;
    }
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

  /** Returns the priorities of each level for a publish to an exchange with a routing key. */
  private Integer[] prioritiesFor(String exchange, String routingKey) {
    QueueType type =
        exchange == null || exchange.isEmpty() ? queues.type(routingKey) : QueueType.CLASSIC;
    return prioritiesByType[(type == null ? QueueType.CLASSIC : type).ordinal()];
  }

  /**
   * Returns the properties to publish in place of the caller's.
   *
   * @param exchange the exchange published to, empty for the default exchange
   * @param routingKey the routing key, the queue's name on the default exchange
   * @param props the caller's properties, or null
   * @param bodyLength the body length in bytes, the size hint when size hints are on
   * @return new properties; the caller's are untouched
   */
  AMQP.BasicProperties stamp(
      String exchange, String routingKey, AMQP.BasicProperties props, long bodyLength) {
    Map<String, Object> callerHeaders = props == null ? null : props.getHeaders();
    String key = keyOf(callerHeaders == null ? null : callerHeaders.get(jobTypeHeader));
    Prediction prediction = route(key, bodyLength);
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
      if (level >= levels) {
        stats.increment(Counter.INVALID_LEVEL);
        level = defaultLevel;
      }
    }
    Map<String, Object> headers =
        new StampedHeaders(callerHeaders, epochMicros(clock), levelValues[level], mode);
    Integer priority = shadowNow ? null : prioritiesFor(exchange, routingKey)[level];
    if (props == null) {
      stats.increment(Counter.PUBLISHED);
      return new AMQP.BasicProperties(
          null, null, headers, null, priority, null, null, null, null, null, null, user, null,
          null);
    }
    if (props.getUserId() != null && !user.equals(props.getUserId())) {
      stats.increment(Counter.USER_ID_REPLACED);
    }
    stats.increment(Counter.PUBLISHED);
    // The constructor copies the headers view into a map of its own.
    return new AMQP.BasicProperties(
        props.getContentType(),
        props.getContentEncoding(),
        headers,
        props.getDeliveryMode(),
        priority == null ? props.getPriority() : priority,
        props.getCorrelationId(),
        props.getReplyTo(),
        props.getExpiration(),
        props.getMessageId(),
        props.getTimestamp(),
        props.getType(),
        user,
        props.getAppId(),
        props.getClusterId());
  }

  /** Returns the key of a job-type header value, from the cache when possible. */
  String keyOf(Object jobTypeValue) {
    if (jobTypeValue == null) {
      return producerOnlyKey;
    }
    String jobType = jobTypeValue.toString();
    String key = keys.get(jobType);
    if (key != null) {
      return key;
    }
    key = Keys.of(user, jobType);
    if (keys.size() < MAX_CACHED_KEYS) {
      keys.putIfAbsent(jobType, key);
    }
    return key;
  }

  private Prediction route(String key, long bodyLength) {
    if (router == null) {
      stats.increment(Counter.ROUTER_ABSENT);
      return null;
    }
    try {
      Prediction p = sizeHints ? router.route(key, bodyLength) : router.route(key);
      if (p == null) {
        stats.increment(Counter.ROUTER_FAILURE);
      }
      return p;
    } catch (RuntimeException | LinkageError e) {
      stats.increment(Counter.ROUTER_FAILURE);
      return null;
    }
  }

  static long epochMicros(Clock clock) {
    Instant now = clock.instant();
    return now.getEpochSecond() * 1_000_000L + now.getNano() / 1_000;
  }
}
