package io.harbinger.spring;

import io.harbinger.predictor.Keys;
import io.harbinger.predictor.PredictorConfig;
import io.harbinger.rabbit.HarbingerHeaders;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.function.UnaryOperator;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.Errors;
import org.springframework.validation.Validator;

/**
 * Harbinger's settings in a Spring Boot application, under {@code harbinger.*}.
 *
 * <p>Example ({@code application.properties}):
 *
 * <pre>
 * harbinger.mode=predictive
 * harbinger.levels=3
 * harbinger.router.kind=sidecar
 * harbinger.router.sidecar.address=harbinger-sidecar:50051
 * harbinger.router.sidecar.tls=true
 * </pre>
 *
 * <p>The predictor settings are {@link PredictorConfig}'s ten, under the same names as in the
 * sidecar's YAML and with the predictor's defaults; docs/settings.md explains each (when to change
 * it, and the measurement behind its default). They configure the embedded router's predictor; a
 * sidecar router takes the sidecar's own, but for {@code levels}, which the application's queues
 * and stamps must share.
 *
 * <p>Invalid values fail the application's start with Spring Boot's binding report, which names the
 * property, its value, where it came from and the rule it breaks (for the enums, the allowed
 * values). The descriptions below are written as plain text because Spring Boot's configuration
 * processor copies them into the metadata an IDE shows.
 *
 * @param mode What Harbinger does: predictive stamps learned priorities and reports durations;
 *     shadow stamps the predicted level in the x-harbinger-level header but leaves priorities
 *     alone, so delivery order stays as without Harbinger while it learns; off installs nothing.
 * @param jobTypeHeader The message header that carries a message's job type, the key durations are
 *     learned by.
 * @param reportsExchange The fanout exchange duration reports are published to and learners
 *     consume.
 * @param router Where publish levels come from.
 * @param levels The number of priority levels, 2 to 10; level 0 is served first. A classic queue
 *     for them has x-max-priority = levels - 1, so change it only together with the queues, the
 *     consumers and the sidecar.
 * @param keyDecay How much of a key's history each new observation keeps, in (0, 1]; 0.995 is a
 *     half-life of about 138 observations. Embedded router only.
 * @param staleAfter A key idle longer than this is not predicted and its history is discarded at
 *     its next report; 0s (the default) turns it off. Embedded router only.
 * @param minObservations Successful observations a key needs before it is predicted. With
 *     max-spread-ratio=1000 and tail-budget=1.1 it forms the few-observation settings, for job
 *     kinds that recur only a few times each. Embedded router only.
 * @param maxSpreadRatio A key is predicted only while its 99th percentile is at most this many
 *     times its median, at least 1. Embedded router only.
 * @param maxKeys The most keys tracked at once, at least 16; each takes about 610 bytes of heap.
 *     Embedded router only.
 * @param sizeBins Whether a message's size hint (x-size-hint) extends its key with a log2 size bin,
 *     so that a job type whose cost follows its input is learned per bin. Embedded router only.
 * @param safeguard Whether the global safeguard may hold routing in FIFO order when it estimates
 *     that the levels save under 2% of FIFO's mean wait; the estimate is exported either way.
 *     Embedded router only.
 * @param tailBudget How far the boundary above the last level may rise: while the estimated mean
 *     wait of the last level stays within this many times FIFO's. 0 gives the seed paper's equal
 *     quantiles; otherwise above 1, up to 100. Embedded router only.
 * @param untrustedLast Whether a key with no cost of its own (cold, stale or censored) is routed at
 *     the last level once the global safeguard has its first estimate, rather than at the middle
 *     level. Embedded router only.
 */
@ConfigurationProperties("harbinger")
public record HarbingerProperties(
    @DefaultValue("predictive") Mode mode,
    @DefaultValue(HarbingerHeaders.DEFAULT_JOB_TYPE) String jobTypeHeader,
    @DefaultValue(HarbingerHeaders.REPORTS_EXCHANGE) String reportsExchange,
    @DefaultValue Router router,
    @DefaultValue("" + PredictorConfig.DEFAULT_LEVELS) int levels,
    @DefaultValue("" + PredictorConfig.DEFAULT_KEY_DECAY) double keyDecay,
    @DefaultValue("0s") Duration staleAfter,
    @DefaultValue("" + PredictorConfig.DEFAULT_MIN_OBSERVATIONS) int minObservations,
    @DefaultValue("" + PredictorConfig.DEFAULT_MAX_SPREAD_RATIO) double maxSpreadRatio,
    @DefaultValue("" + PredictorConfig.DEFAULT_MAX_KEYS) int maxKeys,
    @DefaultValue("" + PredictorConfig.DEFAULT_SIZE_BINS) boolean sizeBins,
    @DefaultValue("" + PredictorConfig.DEFAULT_SAFEGUARD) boolean safeguard,
    @DefaultValue("" + PredictorConfig.DEFAULT_TAIL_BUDGET) double tailBudget,
    @DefaultValue("" + PredictorConfig.DEFAULT_UNTRUSTED_LAST) boolean untrustedLast)
    implements Validator {

  /** What Harbinger does in the application. */
  public enum Mode {
    /** Nothing: no stamping, no timing, no router. */
    OFF,
    /** Stamps and reports, but leaves every priority as the application set it. */
    SHADOW,
    /** Stamps learned priorities and reports durations. */
    PREDICTIVE
  }

  /** Where levels come from. */
  public enum RouterKind {
    /** An in-process predictor, learning from the reports exchange: no sidecar. */
    EMBEDDED,
    /** The sidecar's route table, streamed over gRPC. */
    SIDECAR,
    /** None: every message goes out at the default level (reports are still sent). */
    NONE
  }

  /**
   * Where publish levels come from.
   *
   * @param kind Where levels come from: embedded (an in-process predictor learning from the reports
   *     exchange, no sidecar), sidecar (the sidecar's route table over gRPC) or none (every message
   *     at the default level; reports are still sent).
   * @param sidecar The sidecar whose route table is watched when router.kind is sidecar.
   */
  public record Router(@DefaultValue("embedded") RouterKind kind, @DefaultValue Sidecar sidecar) {}

  /**
   * The sidecar whose route table is watched.
   *
   * @param address The sidecar's gRPC address as host:port (the sidecar listens on 50051 by
   *     default). Required when router.kind is sidecar.
   * @param tls Whether to connect to the sidecar with TLS.
   * @param trustCertificates A PEM file of the certificates to trust with TLS; unset, the JVM's
   *     trust store.
   * @param token The bearer token the sidecar requires, if it requires one.
   * @param staleAfter How long the last route table is served after the stream to the sidecar is
   *     lost; after that every message gets the default level.
   */
  public record Sidecar(
      String address,
      @DefaultValue("false") boolean tls,
      Path trustCertificates,
      String token,
      @DefaultValue("60s") Duration staleAfter) {}

  @Override
  public boolean supports(Class<?> type) {
    return HarbingerProperties.class.isAssignableFrom(type);
  }

  @Override
  public void validate(Object target, Errors errors) {
    HarbingerProperties p = (HarbingerProperties) target;
    checkSetting(errors, "levels", b -> b.levels(p.levels));
    checkSetting(errors, "key-decay", b -> b.keyDecay(p.keyDecay));
    checkSetting(errors, "stale-after", b -> b.staleAfter(p.staleAfter));
    checkSetting(errors, "min-observations", b -> b.minObservations(p.minObservations));
    checkSetting(errors, "max-spread-ratio", b -> b.maxSpreadRatio(p.maxSpreadRatio));
    if (p.maxKeys < PredictorConfig.MIN_MAX_KEYS) {
      errors.rejectValue("max-keys", "range", "must be at least " + PredictorConfig.MIN_MAX_KEYS);
    }
    checkSetting(errors, "tail-budget", b -> b.tailBudget(p.tailBudget));
    if (p.jobTypeHeader == null || p.jobTypeHeader.isBlank()) {
      errors.rejectValue("job-type-header", "empty", "must be a non-empty header name");
    } else if (Keys.of("p", p.jobTypeHeader).isEmpty()) {
      errors.rejectValue("job-type-header", "control", "must not contain control characters");
    }
    if (p.reportsExchange == null || p.reportsExchange.isBlank()) {
      errors.rejectValue("reports-exchange", "empty", "must be a non-empty exchange name");
    }
    Sidecar s = p.router.sidecar;
    if (p.router.kind == RouterKind.SIDECAR) {
      if (s.address == null || s.address.isBlank()) {
        errors.rejectValue(
            "router.sidecar.address",
            "missing",
            "must be set (host:port) when router.kind=sidecar");
      } else if (!isHostAndPort(s.address)) {
        errors.rejectValue(
            "router.sidecar.address", "format", "must be host:port with a port in [1, 65535]");
      }
    }
    if (s.staleAfter == null || s.staleAfter.isNegative() || s.staleAfter.isZero()) {
      errors.rejectValue("router.sidecar.stale-after", "range", "must be a positive duration");
    }
    if (s.trustCertificates != null) {
      if (!s.tls) {
        errors.rejectValue(
            "router.sidecar.trust-certificates",
            "tls",
            "is only used with router.sidecar.tls=true");
      } else if (!Files.isReadable(s.trustCertificates)) {
        errors.rejectValue(
            "router.sidecar.trust-certificates", "missing", "must be a readable PEM file");
      }
    }
  }

  /**
   * Returns the embedded router's predictor settings.
   *
   * @return the ten settings as bound
   * @throws IllegalArgumentException when one breaks its rule (the validator reports that first)
   */
  public PredictorConfig predictorConfig() {
    return PredictorConfig.builder()
        .levels(levels)
        .keyDecay(keyDecay)
        .staleAfter(staleAfter)
        .minObservations(minObservations)
        .maxSpreadRatio(maxSpreadRatio)
        .maxKeys(maxKeys)
        .sizeBins(sizeBins)
        .safeguard(safeguard)
        .tailBudget(tailBudget)
        .untrustedLast(untrustedLast)
        .build();
  }

  /**
   * Rejects a property whose value breaks {@link PredictorConfig}'s rule, with the rule as the
   * predictor states it: {@code "tailBudget must be 0 or in (1, 100]: 1.0"} gives the reason {@code
   * "must be 0 or in (1, 100]"}.
   */
  private static void checkSetting(
      Errors errors, String property, UnaryOperator<PredictorConfig.Builder> setting) {
    try {
      setting.apply(PredictorConfig.builder()).build();
    } catch (IllegalArgumentException | NullPointerException e) {
      String message = String.valueOf(e.getMessage());
      int from = message.indexOf(" must ");
      int to = message.lastIndexOf(": ");
      String rule =
          from < 0 ? "must be set" : message.substring(from + 1, to > from ? to : message.length());
      errors.rejectValue(property, "range", rule);
    }
  }

  static boolean isHostAndPort(String address) {
    int colon = address.lastIndexOf(':');
    if (colon <= 0 || colon == address.length() - 1) {
      return false;
    }
    try {
      int port = Integer.parseInt(address.substring(colon + 1));
      return port >= 1 && port <= 65_535;
    } catch (NumberFormatException e) {
      return false;
    }
  }
}
