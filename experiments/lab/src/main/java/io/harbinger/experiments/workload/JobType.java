package io.harbinger.experiments.workload;

import java.util.Locale;
import java.util.SplittableRandom;

/**
 * The nine job types of the production flow, with their service, base rate, phase multipliers and
 * cost model.
 *
 * <p>Example: {@code SEND_ORDER_EMAIL} arrives at 6.0/s before the rate scale, three times as often
 * in the flash sale, and costs a 24 KiB render plus an SMTP wait of lognormal(35 ms, 0.5), that is
 * a median of 35 ms times {@code exp(0.5 * N(0, 1))}.
 *
 * <p>Implementation notes: the job-type table of the original implementation's production-flow
 * benchmark, value for value. Every random quantity of a job (units, sleeps, the failing webhook's
 * fate) is drawn when the workload is generated, from the job type's own seeded stream, so every
 * arm of a seed sees the same jobs.
 */
public enum JobType {
  /** Order confirmation email: render and hash a 24 KiB body, then SMTP. */
  SEND_ORDER_EMAIL(Service.CHECKOUT, 6.0, Multipliers.CHECKOUT, Kernel.RENDER),
  /** Invoice PDF: deflate 12 lines per line item, then upload. */
  GENERATE_INVOICE(Service.CHECKOUT, 6.0, Multipliers.CHECKOUT, Kernel.INVOICE),
  /** Stock reservation: a database round trip only. */
  RESERVE_INVENTORY(Service.CHECKOUT, 8.0, Multipliers.CHECKOUT, Kernel.NONE),
  /** Image resize: box filter with gamma over the uploaded pixels, then storage I/O. */
  RESIZE_IMAGE(Service.CATALOG, 4.0, Multipliers.CATALOG_RESIZE, Kernel.RESIZE),
  /** Search reindex: build an inverted index of the product text, then I/O. */
  REINDEX_PRODUCT(Service.CATALOG, 6.0, Multipliers.FLAT, Kernel.REINDEX),
  /** Push notification: a provider call only. */
  PUSH_NOTIFICATION(Service.NOTIFICATIONS, 10.0, Multipliers.NOTIFICATIONS, Kernel.NONE),
  /** Text message: a slower provider call only. */
  SEND_SMS(Service.NOTIFICATIONS, 2.0, Multipliers.NOTIFICATIONS, Kernel.NONE),
  /**
   * Partner webhook: an HTTP call; 2% take 1500 ms, and either fail and succeed on the retry (the
   * reference) or succeed at once ({@link Webhooks}).
   */
  DELIVER_WEBHOOK(Service.PARTNERS, 5.0, Multipliers.PARTNERS, Kernel.NONE),
  /** Report export: generate, sort and group 40 to 119 chunks of 250,000 rows. */
  EXPORT_REPORT(Service.ANALYTICS, 0.1, Multipliers.FLAT, Kernel.EXPORT);

  /** The slow webhook attempt takes this long (and, under {@link Webhooks#FAILING}, fails). */
  public static final double WEBHOOK_TIMEOUT_MILLIS = 1500;

  private static final class Multipliers {
    static final double[] CHECKOUT = {1, 1.8, 3.0, 1.4, 1.0};
    static final double[] CATALOG_RESIZE = {1, 1, 1.2, 1, 1};
    static final double[] FLAT = {1, 1, 1, 1, 1};
    static final double[] NOTIFICATIONS = {1, 1.5, 2.5, 1.3, 1.0};
    static final double[] PARTNERS = {1, 1.5, 2.0, 1.2, 1.0};
  }

  private final Service service;
  private final double baseRatePerSecond;
  private final double[] multipliers;
  private final Kernel kernel;

  JobType(Service service, double baseRatePerSecond, double[] multipliers, Kernel kernel) {
    this.service = service;
    this.baseRatePerSecond = baseRatePerSecond;
    this.multipliers = multipliers;
    this.kernel = kernel;
  }

  /**
   * Returns the service that publishes this type.
   *
   * @return the service
   */
  public Service service() {
    return service;
  }

  /**
   * Returns the arrival rate before phase multiplier and rate scale.
   *
   * @return jobs per second
   */
  public double baseRatePerSecond() {
    return baseRatePerSecond;
  }

  /**
   * Returns the phase's rate multiplier.
   *
   * @param phase the phase
   * @return the multiplier, at least 1
   */
  public double multiplier(Phase phase) {
    return multipliers[phase.ordinal()];
  }

  /**
   * Returns the arrival rate in a phase.
   *
   * @param phase the phase
   * @param rateScale the workload's rate scale, positive
   * @return jobs per second
   */
  public double ratePerSecond(Phase phase, double rateScale) {
    return baseRatePerSecond * multiplier(phase) * rateScale;
  }

  /**
   * Returns the highest phase rate, at which arrivals are drawn before thinning.
   *
   * @param rateScale the rate scale
   * @return jobs per second
   */
  public double maxRatePerSecond(double rateScale) {
    double max = 0;
    for (double m : multipliers) {
      max = Math.max(max, m);
    }
    return baseRatePerSecond * max * rateScale;
  }

  /**
   * Returns the CPU kernel of this type.
   *
   * @return the kernel, {@link Kernel#NONE} for I/O-only types
   */
  public Kernel kernel() {
    return kernel;
  }

  /**
   * Returns the name used in message headers, records and reports.
   *
   * @return the lower-case name, such as {@code send_order_email}
   */
  public String wireName() {
    return name().toLowerCase(Locale.ROOT);
  }

  /**
   * Returns whether the type is one of the short classes whose P50 is criterion P2
   * (reserve_inventory, push_notification, reindex_product, generate_invoice).
   *
   * @return true for a short class
   */
  public boolean shortClass() {
    return this == RESERVE_INVENTORY
        || this == PUSH_NOTIFICATION
        || this == REINDEX_PRODUCT
        || this == GENERATE_INVOICE;
  }

  /**
   * Returns whether every arm sends this type's units as the {@code size_hint} header (resize,
   * invoice, export).
   *
   * @return true when the type carries a size hint
   */
  public boolean sizeHinted() {
    return this == RESIZE_IMAGE || this == GENERATE_INVOICE || this == EXPORT_REPORT;
  }

  /**
   * Parses a wire name.
   *
   * @param wireName a name such as {@code send_sms}
   * @return the job type
   */
  public static JobType fromWireName(String wireName) {
    for (JobType t : values()) {
      if (t.wireName().equals(wireName)) {
        return t;
      }
    }
    throw new IllegalArgumentException("unknown job type: " + wireName);
  }

  /**
   * The random part of one job, drawn at generation time.
   *
   * @param units the kernel's units (KiB, items, pixels, words, chunks), 0 without a kernel
   * @param sleepMillis the simulated I/O of the successful attempt
   * @param failedAttemptMillis the first attempt's timeout when it fails, else 0
   */
  record Draw(long units, double sleepMillis, double failedAttemptMillis) {}

  /**
   * Draws one job's cost, with the reference's failing slow webhooks.
   *
   * @param random the type's stream
   * @param phase the phase the job arrives in
   * @return the drawn units and sleeps
   */
  Draw draw(SplittableRandom random, Phase phase) {
    return draw(random, phase, Webhooks.FAILING);
  }

  /**
   * Draws one job's cost.
   *
   * @param random the type's stream
   * @param phase the phase the job arrives in
   * @param webhooks what slow webhook attempts do
   * @return the drawn units and sleeps
   */
  Draw draw(SplittableRandom random, Phase phase, Webhooks webhooks) {
    return draw(random, phase, webhooks, Regime.SHIFT);
  }

  /**
   * Draws one job's cost.
   *
   * @param random the type's stream
   * @param phase the phase the job arrives in
   * @param webhooks what slow webhook attempts do
   * @param regime what changes in the shifted phase
   * @return the drawn units and sleeps
   */
  Draw draw(SplittableRandom random, Phase phase, Webhooks webhooks, Regime regime) {
    boolean shifted = phase == Phase.SHIFTED;
    boolean inverted = shifted && regime == Regime.INVERSION;
    return switch (this) {
      case SEND_ORDER_EMAIL -> new Draw(24, lognormal(random, inverted ? 3.5 : 35, 0.5), 0);
      case GENERATE_INVOICE -> {
        long items = Math.clamp(Math.round(lognormal(random, 12, 0.9)), 1, 400);
        yield new Draw(items, lognormal(random, inverted ? 40 : 4, 0.3), 0);
      }
      case RESERVE_INVENTORY -> new Draw(0, lognormal(random, 6, 0.4), 0);
      case RESIZE_IMAGE -> {
        double hiResShare = shifted ? 0.55 : 0.08;
        boolean hiRes = random.nextDouble() < hiResShare;
        double pixels = hiRes ? lognormal(random, 9e6, 0.3) : lognormal(random, 0.8e6, 0.4);
        long bounded = Math.clamp(Math.round(pixels), 16, Kernel.RESIZE.maxUnits());
        yield new Draw(bounded, lognormal(random, 8, 0.4), 0);
      }
      case REINDEX_PRODUCT -> new Draw(3000 + random.nextInt(3000), lognormal(random, 2, 0.3), 0);
      case PUSH_NOTIFICATION -> new Draw(0, lognormal(random, 9, 0.35), 0);
      case SEND_SMS -> new Draw(0, lognormal(random, 80, 0.4), 0);
      case DELIVER_WEBHOOK -> {
        double slowShare = shifted ? 0.35 : 0.12;
        double r = random.nextDouble();
        if (r < 0.02) {
          double retry = lognormal(random, 40, 0.4);
          yield webhooks == Webhooks.FAILING
              ? new Draw(0, retry, WEBHOOK_TIMEOUT_MILLIS)
              : new Draw(0, WEBHOOK_TIMEOUT_MILLIS, 0);
        }
        yield new Draw(
            0, r < 0.02 + slowShare ? lognormal(random, 300, 0.3) : lognormal(random, 40, 0.4), 0);
      }
      case EXPORT_REPORT -> new Draw(40 + random.nextInt(80), 0, 0);
    };
  }

  private static double lognormal(SplittableRandom random, double median, double sigma) {
    return median * Math.exp(sigma * random.nextGaussian());
  }
}
