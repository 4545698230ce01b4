package io.harbinger.rabbit.internal;

import com.rabbitmq.client.AMQP;
import io.harbinger.predictor.Keys;
import io.harbinger.predictor.Mode;
import io.harbinger.predictor.Prediction;
import io.harbinger.predictor.Router;
import io.harbinger.rabbit.AdapterStats;
import io.harbinger.rabbit.AdapterStats.Counter;
import io.harbinger.rabbit.ChannelOptions;
import io.harbinger.rabbit.ProducerProperty;
import java.time.Clock;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Computes the properties of an outgoing message: key, level, priority, headers, {@code user-id}.
 *
 * <p>Implementation notes. The key of a job type is cached (the connection's user is fixed per
 * wrapped channel, so a key depends on the job type alone) up to {@value #MAX_CACHED_KEYS} job
 * types, after which keys are built per publish. Priorities and level values are boxed once. A
 * publish allocates one properties object, whose constructor copies the caller's headers plus the
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
  private final boolean appId;
  private final Router router;
  private final int levels;
  private final int defaultLevel;
  private final String jobTypeHeader;
  private final boolean shadow;
  private final boolean sizeHints;
  private final AdapterStats stats;
  private final Clock clock;
  private final String producerOnlyKey;
  private final Integer[] priorities;
  private final Integer[] levelValues;
  private final ConcurrentHashMap<String, String> keys = new ConcurrentHashMap<>();

  PublishStamper(ChannelOptions options) {
    user = options.user();
    appId = options.producerProperty() == ProducerProperty.APP_ID;
    router = options.router();
    levels = options.levels();
    defaultLevel = options.defaultLevel();
    jobTypeHeader = options.jobTypeHeader();
    shadow = options.shadow();
    sizeHints = options.sizeHints();
    stats = options.stats();
    clock = options.clock();
    producerOnlyKey = Keys.of(user, null);
    priorities = new Integer[levels];
    levelValues = new Integer[levels];
    for (int level = 0; level < levels; level++) {
      priorities[level] = levels - 1 - level;
      levelValues[level] = level;
    }
  }

  /**
   * Returns the properties to publish in place of the caller's.
   *
   * @param props the caller's properties, or null
   * @param bodyLength the body length in bytes, the size hint when size hints are on
   * @return new properties; the caller's are untouched
   */
  AMQP.BasicProperties stamp(AMQP.BasicProperties props, long bodyLength) {
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
    if (props == null) {
      stats.increment(Counter.PUBLISHED);
      return new AMQP.BasicProperties(
          null,
          null,
          headers,
          null,
          shadowNow ? null : priorities[level],
          null,
          null,
          null,
          null,
          null,
          null,
          appId ? null : user,
          appId ? user : null,
          null);
    }
    if (!appId && props.getUserId() != null && !user.equals(props.getUserId())) {
      stats.increment(Counter.USER_ID_REPLACED);
    }
    stats.increment(Counter.PUBLISHED);
    // The constructor copies the headers view into a map of its own.
    return new AMQP.BasicProperties(
        props.getContentType(),
        props.getContentEncoding(),
        headers,
        props.getDeliveryMode(),
        shadowNow ? props.getPriority() : priorities[level],
        props.getCorrelationId(),
        props.getReplyTo(),
        props.getExpiration(),
        props.getMessageId(),
        props.getTimestamp(),
        props.getType(),
        appId ? props.getUserId() : user,
        appId ? user : props.getAppId(),
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
