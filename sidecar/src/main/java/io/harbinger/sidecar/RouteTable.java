package io.harbinger.sidecar;

import io.grpc.Status;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import io.harbinger.predictor.Boundaries;
import io.harbinger.predictor.KeyStats;
import io.harbinger.predictor.Mode;
import io.harbinger.predictor.Outcome;
import io.harbinger.predictor.Prediction;
import io.harbinger.predictor.Predictor;
import io.harbinger.proto.v1.RouteEntry;
import io.harbinger.proto.v1.RouteUpdate;
import io.harbinger.proto.v1.SizeRoute;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * The route table the sidecar serves: every tracked key's level and verdict, kept up to date from
 * the predictor and pushed to {@code WatchRoutes} streams as full tables and changes.
 *
 * <p>Implementation notes: the report consumer calls {@link #touched} for every key it teaches;
 * {@link #publishChanges()} (every {@code routes.publish-interval}) recomputes those keys with
 * {@link Predictor#peek} and sends the ones whose level or verdict changed; {@link #sweep()} (every
 * {@code routes.sweep-interval}) recomputes every key, catching keys that go stale without reports,
 * and drops evicted ones. A change of mode, of the level boundaries or of the tail guard's lifting
 * recomputes every key; while the guard lifts, an entry below the default level carries it. Keys
 * are compared on level and verdict only, so a key whose estimate drifts inside its level costs no
 * traffic. The size routes (the level each size bin lends a cold key, {@link Predictor#peekSize})
 * are recomputed at every publication, placed as an entry would be, and sent whole with every
 * update; a change of a bin's level alone sends an update.
 *
 * <p>Assumptions and guarantees: {@link #touched} and {@link #entry} may be called from any thread;
 * {@link #publishChanges}, {@link #sweep}, {@link #addWatcher} and {@link #removeWatcher} must be
 * called from one thread (the sidecar's route thread), which is what orders the versions every
 * watcher sees.
 */
final class RouteTable {

  private final Predictor predictor;
  private final Clock clock;
  private final Set<String> touched = ConcurrentHashMap.newKeySet();
  private final Map<String, RouteEntry> entries = new ConcurrentHashMap<>();
  private final List<Watcher> watchers = new CopyOnWriteArrayList<>();
  private final AtomicLong version = new AtomicLong();
  private final AtomicLong changesPublished = new AtomicLong();
  private final AtomicLong heartbeats = new AtomicLong();
  private long lastSentMillis;
  private Mode publishedMode;
  private boolean publishedLifting;
  private boolean publishedSinking;
  private boolean publishedHolding;
  private long publishedBoundaries = -1;
  private List<SizeRoute> publishedSizes = List.of();

  RouteTable(Predictor predictor, Clock clock) {
    this.predictor = predictor;
    this.clock = clock;
    this.publishedMode = effectiveMode();
    this.publishedLifting = lifting();
    this.publishedSinking = sinking();
    this.publishedHolding = holding();
  }

  /**
   * Returns the mode producers must apply: shadow while the predictor's global safeguard holds FIFO
   * order in predictive mode (every message at the default level), the predictor's mode otherwise.
   */
  Mode effectiveMode() {
    return holding() && !sinking() ? Mode.SHADOW : predictor.mode();
  }

  /** Returns whether the predictor's global safeguard holds FIFO order in predictive mode. */
  private boolean holding() {
    return predictor.mode() == Mode.PREDICTIVE && predictor.holdsFifoOrder();
  }

  /**
   * Returns whether the predictor routes untrusted keys at the last level in predictive mode; the
   * entries of untrusted keys at the default level then carry the last level, keys not in the table
   * go there too, and while the safeguard holds, the table stays predictive with every other entry
   * at the default level (where shadow mode would move the untrusted keys ahead of the work queued
   * at the last level).
   */
  boolean sinking() {
    return predictor.mode() == Mode.PREDICTIVE && predictor.routesUntrustedLast();
  }

  /**
   * Returns whether the predictor's tail guard lifts keys placed below the default level to it in
   * predictive mode; the entries then carry the default level in place of such levels.
   */
  boolean lifting() {
    return predictor.mode() == Mode.PREDICTIVE && predictor.liftsBelowDefault();
  }

  /** Notes that a key learned something; its entry is recomputed at the next publication. */
  void touched(String key) {
    touched.add(key);
  }

  /** Returns the current entry of a key, if it is in the table. */
  Optional<RouteEntry> entry(String key) {
    return Optional.ofNullable(entries.get(key));
  }

  int size() {
    return entries.size();
  }

  int watchers() {
    return watchers.size();
  }

  long version() {
    return version.get();
  }

  long changesPublished() {
    return changesPublished.get();
  }

  long heartbeats() {
    return heartbeats.get();
  }

  /**
   * Sends every watcher a heartbeat when nothing was sent for an interval, so that producers can
   * tell a quiet sidecar from a hung one.
   *
   * @param intervalMillis the idle time after which a heartbeat goes out
   */
  void heartbeat(long intervalMillis) {
    long now = clock.millis();
    if (watchers.isEmpty() || now - lastSentMillis < intervalMillis) {
      return;
    }
    RouteUpdate beat =
        RouteUpdate.newBuilder()
            .setHeartbeat(true)
            .setVersion(version.get())
            .setLevels(predictor.levels())
            .setDefaultLevel(predictor.defaultLevel())
            .setMode(Protos.mode(publishedMode))
            .setPublishedAtMicros(now * 1000)
            .build();
    for (Watcher w : watchers) {
      w.send(beat);
    }
    heartbeats.incrementAndGet();
    lastSentMillis = now;
  }

  /**
   * Recomputes touched keys and sends what changed; on a new mode or new boundaries, recomputes
   * everything.
   */
  void publishChanges() {
    if (globalChange()) {
      sweep();
      return;
    }
    boolean sizesChanged = refreshSizes();
    if (touched.isEmpty()) {
      if (sizesChanged) {
        send(List.of(), List.of(), true);
      }
      return;
    }
    List<String> keys = new ArrayList<>(touched);
    touched.removeAll(keys);
    List<RouteEntry> changed = new ArrayList<>();
    for (String key : keys) {
      RouteEntry next = entryOf(key);
      RouteEntry previous = entries.put(key, next);
      if (differs(previous, next)) {
        changed.add(next);
      }
    }
    send(changed, List.of(), sizesChanged);
  }

  /** Recomputes every key, drops keys the predictor no longer tracks, and sends what changed. */
  void sweep() {
    boolean global = globalChange();
    publishedMode = effectiveMode();
    publishedLifting = lifting();
    publishedSinking = sinking();
    publishedHolding = holding();
    publishedBoundaries = predictor.boundaries().map(Boundaries::sequence).orElse(-1L);
    boolean sizesChanged = refreshSizes();
    touched.clear();
    Set<String> live = new HashSet<>();
    List<RouteEntry> changed = new ArrayList<>();
    for (KeyStats s : predictor.keyStats()) {
      live.add(s.key());
      RouteEntry next = entryOf(s.key());
      RouteEntry previous = entries.put(s.key(), next);
      if (global || differs(previous, next)) {
        changed.add(next);
      }
    }
    List<String> removed = new ArrayList<>();
    for (String key : entries.keySet()) {
      if (!live.contains(key)) {
        removed.add(key);
      }
    }
    removed.forEach(entries::remove);
    if (global) {
      // Mode or boundaries changed: every watcher gets the whole table again.
      RouteUpdate full = full();
      for (Watcher w : watchers) {
        w.send(full);
      }
      changesPublished.incrementAndGet();
      return;
    }
    send(changed, removed, sizesChanged);
  }

  /** Recomputes the size routes; returns whether any bin's level changed. */
  private boolean refreshSizes() {
    List<SizeRoute> sizes = new ArrayList<>();
    for (int bin = 0; bin < 64; bin++) {
      Prediction p = predictor.peekSize(bin == 63 ? Long.MAX_VALUE : 1L << bin);
      if (p.outcome() == Outcome.BORROWED) {
        int level = placed(p).predictedLevel();
        sizes.add(
            SizeRoute.newBuilder()
                .setBin(bin)
                .setLevel(level)
                .setEstimateNanos(p.estimateNanos())
                .build());
      }
    }
    boolean changed = sizes.size() != publishedSizes.size();
    for (int i = 0; !changed && i < sizes.size(); i++) {
      changed =
          sizes.get(i).getBin() != publishedSizes.get(i).getBin()
              || sizes.get(i).getLevel() != publishedSizes.get(i).getLevel();
    }
    publishedSizes = List.copyOf(sizes);
    return changed;
  }

  /**
   * Prepares a watcher for a stream; must be called from the gRPC handler itself, because gRPC
   * accepts cancel and ready handlers only there. {@link #register} then starts it on the route
   * thread.
   */
  Watcher newWatcher(StreamObserver<RouteUpdate> observer, Consumer<Runnable> onRouteThread) {
    Watcher w = new Watcher(observer);
    if (observer instanceof ServerCallStreamObserver<RouteUpdate> server) {
      server.setOnCancelHandler(() -> onRouteThread.accept(() -> watchers.remove(w)));
      server.setOnReadyHandler(() -> onRouteThread.accept(() -> w.resumeIfBehind(this)));
    }
    return w;
  }

  /** Registers a watcher and sends it the full table. */
  void register(Watcher w) {
    watchers.add(w);
    w.send(full());
  }

  /** Ends every watcher's stream, for shutdown. */
  void closeWatchers() {
    for (Watcher w : watchers) {
      w.close();
    }
    watchers.clear();
  }

  private boolean globalChange() {
    long sequence = predictor.boundaries().map(Boundaries::sequence).orElse(-1L);
    return effectiveMode() != publishedMode
        || lifting() != publishedLifting
        || sinking() != publishedSinking
        || holding() != publishedHolding
        || sequence != publishedBoundaries;
  }

  /**
   * A key's entry under the published state: an unmeasured key at the default level at the last
   * while the predictor routes it there; otherwise at the default level while the safeguard holds
   * (with untrusted keys last) or while the tail guard lifts a key placed below it.
   */
  private RouteEntry entryOf(String key) {
    return Protos.entry(key, placed(predictor.peek(key)));
  }

  /** A prediction's level under the published state, as {@link #entryOf} places a key. */
  private Prediction placed(Prediction p) {
    int defaultLevel = predictor.defaultLevel();
    // An entry carries the level to publish at in predictive mode.
    int level = p.predictedLevel();
    if (publishedSinking && level == defaultLevel && p.outcome().isUnmeasured()) {
      level = predictor.levels() - 1;
    } else if ((publishedSinking && publishedHolding)
        || (publishedLifting && level > defaultLevel)) {
      level = defaultLevel;
    }
    if (level != p.predictedLevel()) {
      p = new Prediction(level, level, p.outcome(), p.estimateNanos(), p.mode());
    }
    return p;
  }

  private static boolean differs(RouteEntry previous, RouteEntry next) {
    return previous == null
        || previous.getLevel() != next.getLevel()
        || previous.getVerdict() != next.getVerdict();
  }

  private void send(List<RouteEntry> changed, List<String> removed, boolean sizesChanged) {
    if (changed.isEmpty() && removed.isEmpty() && !sizesChanged) {
      return;
    }
    RouteUpdate update = header(false).addAllEntries(changed).addAllRemovedKeys(removed).build();
    for (Watcher w : watchers) {
      w.send(update);
    }
    changesPublished.incrementAndGet();
  }

  RouteUpdate full() {
    return header(true).addAllEntries(new HashMap<>(entries).values()).build();
  }

  private RouteUpdate.Builder header(boolean full) {
    lastSentMillis = clock.millis();
    RouteUpdate.Builder b =
        RouteUpdate.newBuilder()
            .setFull(full)
            .setVersion(version.incrementAndGet())
            .setLevels(predictor.levels())
            .setDefaultLevel(predictor.defaultLevel())
            .setMode(Protos.mode(effectiveMode()))
            .setSafeguardHolding(predictor.mode() == Mode.PREDICTIVE && predictor.holdsFifoOrder())
            .setTailLifting(publishedLifting)
            .setUntrustedLast(publishedSinking)
            .addAllSizeRoutes(publishedSizes)
            .setPublishedAtMicros(clock.millis() * 1000);
    predictor
        .boundaries()
        .ifPresent(
            bs -> {
              for (double v : bs.toArray()) {
                b.addBoundariesNanos(v);
              }
            });
    return b;
  }

  /**
   * One WatchRoutes stream; a stream that cannot keep up is sent the full table when it is ready
   * again.
   */
  static final class Watcher {
    private final StreamObserver<RouteUpdate> observer;
    private boolean behind;
    private boolean closed;

    Watcher(StreamObserver<RouteUpdate> observer) {
      this.observer = observer;
    }

    void send(RouteUpdate update) {
      if (closed) {
        return;
      }
      if (observer instanceof ServerCallStreamObserver<RouteUpdate> server) {
        if (server.isCancelled()) {
          closed = true;
          return;
        }
        if (!server.isReady() && !update.getFull()) {
          behind = true;
          return;
        }
      }
      try {
        observer.onNext(update);
      } catch (RuntimeException e) {
        closed = true;
      }
    }

    void resumeIfBehind(RouteTable table) {
      if (behind && !closed) {
        behind = false;
        send(table.full());
      }
    }

    void close() {
      if (!closed) {
        closed = true;
        try {
          observer.onError(
              Status.UNAVAILABLE.withDescription("sidecar shutting down").asException());
        } catch (RuntimeException ignored) {
          // The stream is already gone.
        }
      }
    }
  }
}
