package io.harbinger.sidecar;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.StreamObserver;
import io.harbinger.predictor.HistogramPredictor;
import io.harbinger.predictor.KeyStats;
import io.harbinger.predictor.Keys;
import io.harbinger.predictor.Mode;
import io.harbinger.predictor.Prediction;
import io.harbinger.proto.v1.GetKeyRequest;
import io.harbinger.proto.v1.GetSafeguardRequest;
import io.harbinger.proto.v1.KeyInfo;
import io.harbinger.proto.v1.ListKeysRequest;
import io.harbinger.proto.v1.ListKeysResponse;
import io.harbinger.proto.v1.RouteEntry;
import io.harbinger.proto.v1.RouteRequest;
import io.harbinger.proto.v1.RouteResponse;
import io.harbinger.proto.v1.RouteUpdate;
import io.harbinger.proto.v1.SafeguardInfo;
import io.harbinger.proto.v1.SetModeRequest;
import io.harbinger.proto.v1.SetModeResponse;
import io.harbinger.proto.v1.SidecarGrpc;
import io.harbinger.proto.v1.SnapshotRequest;
import io.harbinger.proto.v1.SnapshotResponse;
import io.harbinger.proto.v1.WatchRoutesRequest;
import java.io.IOException;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.concurrent.Executor;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code harbinger.v1.Sidecar} gRPC service.
 *
 * <p>Every unary call goes through {@link #respond}, the one place where exceptions become
 * statuses: {@link IllegalArgumentException} is INVALID_ARGUMENT, {@link NoSuchElementException}
 * NOT_FOUND, {@link IllegalStateException} FAILED_PRECONDITION, {@link IOException} UNAVAILABLE,
 * anything else INTERNAL (logged). A bad request never affects other calls.
 */
final class SidecarService extends SidecarGrpc.SidecarImplBase {

  private static final Logger LOG = LoggerFactory.getLogger(SidecarService.class);

  static final int MAX_ROUTE_KEYS = 1_000;
  static final int MAX_LIST_KEYS = 10_000;

  private final HistogramPredictor predictor;
  private final RouteTable routes;
  private final Executor routeThread;
  private final SnapshotKeeper snapshots;

  SidecarService(
      HistogramPredictor predictor,
      RouteTable routes,
      Executor routeThread,
      SnapshotKeeper snapshots) {
    this.predictor = predictor;
    this.routes = routes;
    this.routeThread = routeThread;
    this.snapshots = snapshots;
  }

  @Override
  public void getSafeguard(GetSafeguardRequest request, StreamObserver<SafeguardInfo> observer) {
    respond(observer, () -> Protos.safeguard(predictor.stats()));
  }

  @Override
  public void watchRoutes(WatchRoutesRequest request, StreamObserver<RouteUpdate> observer) {
    RouteTable.Watcher watcher = routes.newWatcher(observer, routeThread::execute);
    routeThread.execute(() -> routes.register(watcher));
  }

  @Override
  public void route(RouteRequest request, StreamObserver<RouteResponse> observer) {
    respond(
        observer,
        () -> {
          if (request.getKeysCount() > MAX_ROUTE_KEYS) {
            throw new IllegalArgumentException(
                "keys must hold at most " + MAX_ROUTE_KEYS + " keys: " + request.getKeysCount());
          }
          RouteResponse.Builder b =
              RouteResponse.newBuilder().setMode(Protos.mode(predictor.mode()));
          for (int i = 0; i < request.getKeysCount(); i++) {
            String key = request.getKeys(i);
            if (!Keys.isValid(key)) {
              throw new IllegalArgumentException(
                  "keys[" + i + "] must be 1 to " + Keys.MAX_KEY_BYTES + " UTF-8 bytes");
            }
          }
          for (String key : request.getKeysList()) {
            Prediction p = predictor.predict(key);
            RouteEntry e = Protos.entry(key, p);
            b.addEntries(e.toBuilder().setLevel(p.level()));
          }
          return b.build();
        });
  }

  @Override
  public void listKeys(ListKeysRequest request, StreamObserver<ListKeysResponse> observer) {
    respond(
        observer,
        () -> {
          int limit = request.getLimit() == 0 ? 100 : request.getLimit();
          if (limit < 0 || limit > MAX_LIST_KEYS) {
            throw new IllegalArgumentException(
                "limit must be in [0, " + MAX_LIST_KEYS + "]: " + request.getLimit());
          }
          List<KeyStats> all = predictor.keyStats();
          ListKeysResponse.Builder b = ListKeysResponse.newBuilder().setTotal(all.size());
          for (KeyStats s : all) {
            if (b.getKeysCount() >= limit) {
              break;
            }
            if (s.key().startsWith(request.getPrefix())) {
              b.addKeys(Protos.keyInfo(s));
            }
          }
          return b.build();
        });
  }

  @Override
  public void getKey(GetKeyRequest request, StreamObserver<KeyInfo> observer) {
    respond(
        observer,
        () -> {
          if (!Keys.isValid(request.getKey())) {
            throw new IllegalArgumentException(
                "key must be 1 to " + Keys.MAX_KEY_BYTES + " UTF-8 bytes");
          }
          return predictor
              .keyStats(request.getKey())
              .map(Protos::keyInfo)
              .orElseThrow(() -> new NoSuchElementException("key is not tracked"));
        });
  }

  @Override
  public void setMode(SetModeRequest request, StreamObserver<SetModeResponse> observer) {
    respond(
        observer,
        () -> {
          Mode next = Protos.mode(request.getMode());
          Mode previous = predictor.mode();
          predictor.setMode(next);
          LOG.info("routing mode {} -> {}", previous, next);
          routeThread.execute(routes::publishChanges);
          return SetModeResponse.newBuilder()
              .setPrevious(Protos.mode(previous))
              .setCurrent(Protos.mode(next))
              .build();
        });
  }

  @Override
  public void snapshot(SnapshotRequest request, StreamObserver<SnapshotResponse> observer) {
    respond(
        observer,
        () -> {
          long bytes;
          try {
            bytes = snapshots.save(predictor);
          } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
          }
          return SnapshotResponse.newBuilder()
              .setPath(snapshots.path().orElseThrow().toString())
              .setBytes(bytes)
              .setKeys(predictor.stats().keys())
              .build();
        });
  }

  private static <T> void respond(StreamObserver<T> observer, Supplier<T> call) {
    T response;
    try {
      response = call.get();
    } catch (RuntimeException e) {
      observer.onError(toStatus(e));
      return;
    }
    observer.onNext(response);
    observer.onCompleted();
  }

  static StatusRuntimeException toStatus(RuntimeException e) {
    Status status;
    if (e instanceof StatusRuntimeException s) {
      return s;
    } else if (e instanceof IllegalArgumentException) {
      status = Status.INVALID_ARGUMENT;
    } else if (e instanceof NoSuchElementException) {
      status = Status.NOT_FOUND;
    } else if (e instanceof IllegalStateException) {
      status = Status.FAILED_PRECONDITION;
    } else if (e instanceof java.io.UncheckedIOException) {
      status = Status.UNAVAILABLE;
    } else {
      LOG.error("internal error in a sidecar call", e);
      return Status.INTERNAL.withDescription("internal error").asRuntimeException();
    }
    return status.withDescription(e.getMessage()).asRuntimeException();
  }
}
