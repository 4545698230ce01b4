package io.harbinger.experiments.bench;

import io.harbinger.experiments.workload.HandlerMode;
import java.util.List;
import java.util.Locale;

/**
 * The benchmark's preset sizes: which arms and seeds, which handlers, how long and how compressed.
 *
 * <p>Implementation notes: the original implementation's timeline and run matrix. {@code full} is
 * that matrix (every arm, seeds 11 to 55, CPU handlers, 300 s in real time, 180 s drain): many
 * hours. {@code quick} keeps its 300 s timeline and utilisation but compresses it ten times and
 * uses sleeping handlers, so that CPU contention from the other work on a shared 2-core machine
 * does not decide the result; it runs the six arms that answer the project's targets (RabbitMQ
 * FIFO, hand-tuned static and predictive, Redis FIFO, the broker's FIFO and predictive) over three
 * seeds; each run is 30 s of arrivals plus its drain, after a short unrecorded warm-up of every
 * arm. {@code smoke} is the few-second run of the CI test: three arms, one seed, 20 s of arrivals
 * at a low rate, compressed ten times.
 */
enum Profile {
  /** A few seconds: what {@code BenchSmokeIT} runs. */
  SMOKE(
      List.of("rabbitmq-fifo", "redis-fifo", "broker-predictive"),
      List.of(11L),
      HandlerMode.SLEEP,
      20,
      0.5,
      10,
      20),
  /** Under 20 minutes on a 2-core machine: six arms, three seeds, sleeping handlers. */
  QUICK(
      List.of(
          "rabbitmq-fifo",
          "rabbitmq-static-tuned",
          "rabbitmq-predictive",
          "redis-fifo",
          "broker-fifo",
          "broker-predictive"),
      List.of(11L, 22L, 33L),
      HandlerMode.SLEEP,
      300,
      Double.NaN,
      10,
      60),
  /** The reference matrix: every arm, five seeds, CPU handlers, real time. */
  FULL(
      BenchArms.names(),
      List.of(11L, 22L, 33L, 44L, 55L),
      HandlerMode.CPU,
      300,
      Double.NaN,
      1,
      180);

  private final List<String> arms;
  private final List<Long> seeds;
  private final HandlerMode handlers;
  private final double arrivalSeconds;
  private final double rateScale;
  private final double timeScale;
  private final double drainSeconds;

  Profile(
      List<String> arms,
      List<Long> seeds,
      HandlerMode handlers,
      double arrivalSeconds,
      double rateScale,
      double timeScale,
      double drainSeconds) {
    this.arms = arms;
    this.seeds = seeds;
    this.handlers = handlers;
    this.arrivalSeconds = arrivalSeconds;
    this.rateScale = rateScale;
    this.timeScale = timeScale;
    this.drainSeconds = drainSeconds;
  }

  /** Returns the default arms. */
  List<String> arms() {
    return arms;
  }

  /** Returns the default seeds. */
  List<Long> seeds() {
    return seeds;
  }

  /** Returns the default handler mode. */
  HandlerMode handlers() {
    return handlers;
  }

  /** Returns the arrival window before time scaling, in seconds. */
  double arrivalSeconds() {
    return arrivalSeconds;
  }

  /** Returns the rate scale, or NaN to calibrate it for a 60% steady phase. */
  double rateScale() {
    return rateScale;
  }

  /** Returns the default time scale. */
  double timeScale() {
    return timeScale;
  }

  /** Returns the drain bound after the arrival window, in seconds as run. */
  double drainSeconds() {
    return drainSeconds;
  }

  /** Returns the command-line name. */
  String wireName() {
    return name().toLowerCase(Locale.ROOT);
  }

  /**
   * Parses a command-line name.
   *
   * @param name smoke, quick or full
   * @return the profile
   */
  static Profile fromWireName(String name) {
    for (Profile p : values()) {
      if (p.wireName().equals(name)) {
        return p;
      }
    }
    throw new IllegalArgumentException("--profile must be smoke, quick or full: " + name);
  }
}
