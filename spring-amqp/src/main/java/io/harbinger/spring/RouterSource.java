package io.harbinger.spring;

import io.harbinger.predictor.Predictor;
import io.harbinger.predictor.Router;
import java.util.function.BooleanSupplier;

/**
 * The router of an application and what the runtime needs to know about it.
 *
 * @param router the router, or null when {@code harbinger.router.kind=none}
 * @param embedded the in-process predictor to teach from the reports exchange, or null when the
 *     levels come from elsewhere
 * @param connected whether the router currently has levels to give (a sidecar stream that is up)
 * @param description a short description for health details, such as {@code sidecar at host:port}
 * @param closer what closes the router's resources
 */
record RouterSource(
    Router router,
    Predictor embedded,
    BooleanSupplier connected,
    String description,
    AutoCloseable closer) {

  /** Returns the source of {@code harbinger.router.kind=none}. */
  static RouterSource none() {
    return new RouterSource(null, null, () -> false, "none", () -> {});
  }

  /** Returns the source of an in-process predictor. */
  static RouterSource embedded(Predictor predictor) {
    return new RouterSource(predictor, predictor, () -> true, "embedded", () -> {});
  }
}
