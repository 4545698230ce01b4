package io.harbinger.sidecar.client;

import io.grpc.CallCredentials;
import io.grpc.Channel;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;
import io.harbinger.predictor.Keys;
import io.harbinger.predictor.Mode;
import io.harbinger.predictor.Outcome;
import io.harbinger.predictor.Prediction;
import io.harbinger.predictor.PredictorConfig;
import io.harbinger.predictor.Router;
import io.harbinger.predictor.Ticker;
import io.harbinger.proto.v1.RouteEntry;
import io.harbinger.proto.v1.RouteUpdate;
import io.harbinger.proto.v1.SidecarGrpc;
import io.harbinger.proto.v1.SizeRoute;
import io.harbinger.proto.v1.Verdict;
import io.harbinger.proto.v1.WatchRoutesRequest;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link Router} backed by the sidecar's route table, kept locally from a {@code WatchRoutes}
 * stream.
 *
 * <p>{@link #route} is a map lookup: it never waits for the network. Staleness counts from the last
 * message received on the stream (an update or one of the heartbeats the sidecar sends when it has
 * nothing else to say), whether the stream is up or not: once nothing has arrived for the staleness
 * limit, every key gets the default level with {@link Outcome#UNAVAILABLE}, as it does before the
 * first table arrives, and a stream that is still open (a hung sidecar keeps its connections) is
 * cancelled and opened again. While the stream is down the router keeps serving the last table
 * until it goes stale, and reconnects with exponential backoff (100 ms doubling to 10 s). Give the
 * staleness limit a few heartbeat intervals of the sidecar (5 s by default). A key in the table
 * goes to the level the table gives it, whatever its verdict: the sidecar's predictor may place an
 * untrusted key below the default level (see {@code HistogramPredictor}). The mode in the table
 * decides how levels are used: in shadow mode every key is routed to the default level and its
 * learned level is only reported.
 *
 * <p>Assumptions and guarantees: thread-safe; {@link #route} never blocks and never throws. Table
 * updates arrive on the gRPC executor and replace the table or change single entries atomically per
 * key.
 */
public final class SidecarRouter implements Router, AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(SidecarRouter.class);
  private static final long MIN_BACKOFF_MILLIS = 100;
  private static final long MAX_BACKOFF_MILLIS = 10_000;

  private final SidecarGrpc.SidecarStub stub;
  private final Ticker ticker;
  private final long staleAfterNanos;
  private final String clientId;
  private final ScheduledExecutorService scheduler;
  private final AtomicLong reconnects = new AtomicLong();
  private final AtomicLong fallbacks = new AtomicLong();

  private volatile Table table;
  private volatile long connectedSinceNanos = -1;
  private volatile long lastGoodNanos;
  private volatile ClientCallStreamObserver<WatchRoutesRequest> call;
  private final AtomicLong staleCancels = new AtomicLong();
  private volatile boolean closed;
  private long backoffMillis = MIN_BACKOFF_MILLIS;

  private final int expectedLevels;

  SidecarRouter(
      Channel channel,
      int levels,
      Duration staleAfter,
      Ticker ticker,
      String clientId,
      CallCredentials credentials) {
    this.expectedLevels = levels;
    SidecarGrpc.SidecarStub s = SidecarGrpc.newStub(channel);
    this.stub = credentials == null ? s : s.withCallCredentials(credentials);
    this.ticker = ticker;
    this.staleAfterNanos = staleAfter.toNanos();
    this.clientId = clientId;
    this.scheduler =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "harbinger-sidecar-router");
              t.setDaemon(true);
              return t;
            });
    this.lastGoodNanos = ticker.nanos();
  }

  /**
   * Starts watching the sidecar's route table.
   *
   * @param channel a channel to the sidecar (the caller owns and closes it)
   * @param levels the number of levels the producer's queues are declared with, in [2, 10]; used
   *     until the first table arrives, and a table with another number of levels is logged at WARN
   * @param staleAfter how long the last table is served after the stream is lost; positive
   * @param bearerToken the sidecar's token, or null when it requires none
   * @return the router; it answers with the default level until the first table arrives
   */
  public static SidecarRouter watch(
      Channel channel, int levels, Duration staleAfter, String bearerToken) {
    Objects.requireNonNull(channel, "channel");
    PredictorConfig.checkLevels(levels);
    if (staleAfter == null || staleAfter.isNegative() || staleAfter.isZero()) {
      throw new IllegalArgumentException("staleAfter must be positive: " + staleAfter);
    }
    SidecarRouter router =
        new SidecarRouter(
            channel,
            levels,
            staleAfter,
            Ticker.SYSTEM,
            "pid-" + ProcessHandle.current().pid(),
            bearerToken == null ? null : new BearerToken(bearerToken));
    router.start();
    return router;
  }

  /** Opens the stream and starts the watchdog that cancels a stream gone silent. */
  void start() {
    scheduler.execute(this::connect);
    long every = Math.max(1, staleAfterNanos / 4);
    scheduler.scheduleWithFixedDelay(this::checkStale, every, every, TimeUnit.NANOSECONDS);
  }

  private boolean stale() {
    return ticker.nanos() - lastGoodNanos > staleAfterNanos;
  }

  private void checkStale() {
    ClientCallStreamObserver<WatchRoutesRequest> c = call;
    if (c != null && connectedSinceNanos >= 0 && stale()) {
      staleCancels.incrementAndGet();
      LOG.warn(
          "no route update or heartbeat for {} ms: the sidecar is hung or cut off; reconnecting",
          TimeUnit.NANOSECONDS.toMillis(staleAfterNanos));
      c.cancel("no route update or heartbeat within the staleness limit", null);
    }
  }

  @Override
  public Prediction route(String key) {
    Table t = table;
    if (t == null || stale()) {
      fallbacks.incrementAndGet();
      return Prediction.fallback(
          t == null ? expectedLevels / 2 : t.defaultLevel, Outcome.UNAVAILABLE, Mode.PREDICTIVE);
    }
    if (t.mode == Mode.OFF) {
      return Prediction.fallback(t.defaultLevel, Outcome.OFF, Mode.OFF);
    }
    if (key == null) {
      return Prediction.fallback(t.defaultLevel, Outcome.INVALID_KEY, t.mode);
    }
    Prediction known = t.verdicts.get(key);
    if (known != null) {
      return known;
    }
    RouteEntry e = t.entries.get(key);
    if (e == null) {
      // Placed as the sidecar places a key it has not learned: the last level or the default.
      int placed = t.unknownLevel;
      return new Prediction(
          t.mode == Mode.PREDICTIVE ? placed : t.defaultLevel,
          placed,
          Outcome.COLD,
          Double.NaN,
          t.mode);
    }
    if (e.getLevel() < 0 || e.getLevel() >= t.levels) {
      return Prediction.fallback(t.defaultLevel, outcomeOf(e.getVerdict()), t.mode);
    }
    // The sidecar's level stands whatever the verdict: an untrusted key may sit below the default.
    boolean predicted = e.getVerdict() == Verdict.VERDICT_PREDICTED;
    int routed = t.mode == Mode.PREDICTIVE ? e.getLevel() : t.defaultLevel;
    double estimate = predicted || e.getEstimateNanos() > 0 ? e.getEstimateNanos() : Double.NaN;
    Prediction p =
        new Prediction(routed, e.getLevel(), outcomeOf(e.getVerdict()), estimate, t.mode);
    if (t.verdicts.size() < t.entries.size()) {
      t.verdicts.putIfAbsent(key, p);
    }
    return p;
  }

  /**
   * Returns the verdict for a message's key and size hint: {@link #route(String)}, except that a
   * key the table does not hold, or holds as cold, takes the level the sidecar's size routes give
   * its size hint's bin, when one does, counted as {@link Outcome#BORROWED}.
   */
  @Override
  public Prediction route(String key, long sizeHint) {
    Prediction p = route(key);
    Table t = table;
    if (p.outcome() != Outcome.COLD || sizeHint < 0 || t == null) {
      return p;
    }
    SizeRoute r = t.sizes[Keys.sizeBin(sizeHint)];
    if (r == null || r.getLevel() < 0 || r.getLevel() >= t.levels) {
      return p;
    }
    int routed = t.mode == Mode.PREDICTIVE ? r.getLevel() : t.defaultLevel;
    return new Prediction(routed, r.getLevel(), Outcome.BORROWED, r.getEstimateNanos(), t.mode);
  }

  @Override
  public int levels() {
    Table t = table;
    return t == null ? expectedLevels : t.levels;
  }

  @Override
  public int defaultLevel() {
    Table t = table;
    return t == null ? expectedLevels / 2 : t.defaultLevel;
  }

  /**
   * Returns whether a route table has arrived and the stream is up.
   *
   * @return true while connected with a table
   */
  public boolean isConnected() {
    return table != null && connectedSinceNanos >= 0 && !stale();
  }

  /** Returns the ticker time of the last update or heartbeat received, for tests. */
  long lastMessageNanos() {
    return lastGoodNanos;
  }

  /**
   * Returns how many open streams were cancelled because nothing arrived within the staleness
   * limit.
   *
   * @return cancellations of silent streams
   */
  public long staleCancels() {
    return staleCancels.get();
  }

  /**
   * Returns the version of the last update applied.
   *
   * @return the version, or 0 before the first table
   */
  public long version() {
    Table t = table;
    return t == null ? 0 : t.version.get();
  }

  /**
   * Returns how many times the stream was re-established.
   *
   * @return reconnections
   */
  public long reconnects() {
    return reconnects.get();
  }

  /**
   * Returns how many routes were answered with {@link Outcome#UNAVAILABLE}.
   *
   * @return fallbacks for lack of a current table
   */
  public long unavailableFallbacks() {
    return fallbacks.get();
  }

  @Override
  public void close() {
    closed = true;
    scheduler.shutdownNow();
  }

  private void connect() {
    if (closed) {
      return;
    }
    stub.watchRoutes(WatchRoutesRequest.newBuilder().setClientId(clientId).build(), new Observer());
  }

  private void scheduleReconnect() {
    connectedSinceNanos = -1;
    if (closed) {
      return;
    }
    long delay = backoffMillis;
    backoffMillis = Math.min(MAX_BACKOFF_MILLIS, backoffMillis * 2);
    reconnects.incrementAndGet();
    try {
      scheduler.schedule(this::connect, delay, TimeUnit.MILLISECONDS);
    } catch (java.util.concurrent.RejectedExecutionException e) {
      // Closed meanwhile.
    }
  }

  private static Outcome outcomeOf(Verdict v) {
    return switch (v) {
      case VERDICT_PREDICTED -> Outcome.PREDICTED;
      case VERDICT_OFF -> Outcome.OFF;
      case VERDICT_INVALID_KEY -> Outcome.INVALID_KEY;
      case VERDICT_UNREADY -> Outcome.UNREADY;
      case VERDICT_STALE -> Outcome.STALE;
      case VERDICT_CENSORED -> Outcome.CENSORED;
      case VERDICT_SPREAD -> Outcome.SPREAD;
      case VERDICT_MISPREDICTED -> Outcome.MISPREDICTED;
      case VERDICT_BORROWED -> Outcome.BORROWED;
      case VERDICT_COLD, VERDICT_UNSPECIFIED, UNRECOGNIZED -> Outcome.COLD;
    };
  }

  private final class Observer implements ClientResponseObserver<WatchRoutesRequest, RouteUpdate> {
    @Override
    public void beforeStart(ClientCallStreamObserver<WatchRoutesRequest> requestStream) {
      call = requestStream;
    }

    @Override
    public void onNext(RouteUpdate u) {
      if (u.getHeartbeat()) {
        if (table != null) {
          noteAlive();
        }
        return;
      }
      if (u.getLevels() < 2
          || u.getLevels() > 10
          || u.getDefaultLevel() < 0
          || u.getDefaultLevel() >= u.getLevels()) {
        LOG.warn(
            "ignoring a route update with levels {} and default {}",
            u.getLevels(),
            u.getDefaultLevel());
        return;
      }
      Mode mode =
          switch (u.getMode()) {
            case ROUTING_MODE_OFF -> Mode.OFF;
            case ROUTING_MODE_SHADOW -> Mode.SHADOW;
            case ROUTING_MODE_PREDICTIVE -> Mode.PREDICTIVE;
            default -> Mode.OFF;
          };
      Table current = table;
      if (u.getLevels() != expectedLevels && (current == null || current.levels != u.getLevels())) {
        LOG.warn(
            "the sidecar routes to {} levels but this producer expects {}: check x-max-priority",
            u.getLevels(),
            expectedLevels);
      }
      if (u.getFull() || current == null) {
        Map<String, RouteEntry> entries = new ConcurrentHashMap<>(u.getEntriesCount() * 2);
        for (RouteEntry e : u.getEntriesList()) {
          entries.put(e.getKey(), e);
        }
        table = new Table(entries, u, mode);
      } else {
        for (RouteEntry e : u.getEntriesList()) {
          current.entries.put(e.getKey(), e);
        }
        for (String k : u.getRemovedKeysList()) {
          current.entries.remove(k);
        }
        // Every update carries the complete size routes: a new table takes them.
        table = new Table(current.entries, u, mode);
      }
      noteAlive();
    }

    private void noteAlive() {
      long now = ticker.nanos();
      lastGoodNanos = now;
      if (connectedSinceNanos < 0) {
        connectedSinceNanos = now;
        backoffMillis = MIN_BACKOFF_MILLIS;
      }
    }

    @Override
    public void onError(Throwable t) {
      call = null;
      if (!closed) {
        LOG.debug("route stream lost: {}", Status.fromThrowable(t));
      }
      scheduleReconnect();
    }

    @Override
    public void onCompleted() {
      call = null;
      scheduleReconnect();
    }
  }

  private static final class Table {
    final Map<String, RouteEntry> entries;
    final int levels;
    final int defaultLevel;
    final boolean untrustedLast;
    final int unknownLevel;
    final Mode mode;
    final AtomicLong version;

    /**
     * The verdict of each key routed since this table arrived, made from its entry once: routing a
     * known key is then a map read that allocates nothing. A new table (every update) starts empty.
     */
    final Map<String, Prediction> verdicts = new ConcurrentHashMap<>();

    /** The size routes by bin; null where a bin lends nothing. */
    final SizeRoute[] sizes = new SizeRoute[64];

    /** A table of the given entries under the header of an update already checked. */
    Table(Map<String, RouteEntry> entries, RouteUpdate u, Mode mode) {
      this.entries = entries;
      this.levels = u.getLevels();
      this.defaultLevel = u.getDefaultLevel();
      this.untrustedLast = u.getUntrustedLast();
      this.unknownLevel = untrustedLast ? levels - 1 : defaultLevel;
      this.mode = mode;
      this.version = new AtomicLong(u.getVersion());
      for (SizeRoute r : u.getSizeRoutesList()) {
        if (r.getBin() >= 0 && r.getBin() < sizes.length) {
          sizes[r.getBin()] = r;
        }
      }
    }
  }

  private static final class BearerToken extends CallCredentials {
    private static final Metadata.Key<String> AUTHORIZATION =
        Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);
    private final String token;

    BearerToken(String token) {
      this.token = token;
    }

    @Override
    public void applyRequestMetadata(RequestInfo info, Executor executor, MetadataApplier applier) {
      Metadata headers = new Metadata();
      headers.put(AUTHORIZATION, "Bearer " + token);
      applier.apply(headers);
    }
  }
}
