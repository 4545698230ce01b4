package io.harbinger.spring;

import io.harbinger.predictor.Keys;
import io.harbinger.predictor.PredictorConfig;
import io.harbinger.rabbit.HarbingerHeaders;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
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
 * harbinger.tail-budget=1.5
 * harbinger.untrusted-last=true
 * harbinger.min-observations=20
 * harbinger.max-spread-ratio=16
 * harbinger.router.kind=sidecar
 * harbinger.router.sidecar.address=harbinger-sidecar:50051
 * harbinger.router.sidecar.tls=true
 * </pre>
 *
 * <p>Invalid values fail the application's start with Spring Boot's binding report, which names the
 * property, its value, where it came from and the rule it breaks.
 *
 * @param mode {@code predictive} (the default) stamps learned priorities; {@code shadow} stamps the
 *     predicted level in {@code x-harbinger-level} but leaves priorities alone, so delivery order
 *     stays as without Harbinger while it learns; {@code off} installs nothing
 * @param levels the number of levels, in [2, 10], 3 by default; a classic queue for them has {@code
 *     x-max-priority = levels - 1}
 * @param jobTypeHeader the header carrying a message's job type, {@code x-job-type} by default
 * @param reportsExchange the fanout exchange duration reports go to, {@code harbinger.reports} by
 *     default
 * @param router where publish levels come from
 * @param tailBudget the embedded router's tail budget ({@link PredictorConfig#tailBudget()}): a
 *     value in (1, 100] raises the boundary above the last level while that level's estimated mean
 *     wait stays within this many times FIFO's, by default the predictor's {@value
 *     PredictorConfig#DEFAULT_TAIL_BUDGET}; 0 keeps the seed paper's equal boundaries. A sidecar
 *     router takes its own {@code predictor.tail-budget}
 * @param untrustedLast whether the embedded router places a key without a cost of its own (cold,
 *     stale or censored) at the last level rather than the default level ({@link
 *     PredictorConfig#untrustedLast()}), by default the predictor's {@value
 *     PredictorConfig#DEFAULT_UNTRUSTED_LAST}. A sidecar router takes its own {@code
 *     predictor.untrusted-last}
 * @param minObservations successful observations before the embedded router predicts a key ({@link
 *     PredictorConfig#minObservations()}), at least 1, by default the predictor's {@value
 *     PredictorConfig#DEFAULT_MIN_OBSERVATIONS}. With {@code max-spread-ratio=1000} and {@code
 *     tail-budget=1.1} it forms the few-observation settings ({@link
 *     PredictorConfig.Builder#fewObservations()}), for job kinds that recur a few times each. A
 *     sidecar router takes its own {@code predictor.min-observations}
 * @param maxSpreadRatio the largest ratio of a predicted key's 99th percentile to its median
 *     ({@link PredictorConfig#maxSpreadRatio()}), finite and at least 1, by default the predictor's
 *     {@value PredictorConfig#DEFAULT_MAX_SPREAD_RATIO}. A sidecar router takes its own {@code
 *     predictor.max-spread-ratio}
 */
@ConfigurationProperties("harbinger")
public record HarbingerProperties(
    @DefaultValue("predictive") Mode mode,
    @DefaultValue("3") int levels,
    @DefaultValue(HarbingerHeaders.DEFAULT_JOB_TYPE) String jobTypeHeader,
    @DefaultValue(HarbingerHeaders.REPORTS_EXCHANGE) String reportsExchange,
    @DefaultValue Router router,
    @DefaultValue("" + PredictorConfig.DEFAULT_TAIL_BUDGET) double tailBudget,
    @DefaultValue("" + PredictorConfig.DEFAULT_UNTRUSTED_LAST) boolean untrustedLast,
    @DefaultValue("" + PredictorConfig.DEFAULT_MIN_OBSERVATIONS) int minObservations,
    @DefaultValue("" + PredictorConfig.DEFAULT_MAX_SPREAD_RATIO) double maxSpreadRatio)
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
   * @param kind {@code embedded} (the default), {@code sidecar} or {@code none}
   * @param sidecar the sidecar to watch when {@code kind} is {@code sidecar}
   */
  public record Router(@DefaultValue("embedded") RouterKind kind, @DefaultValue Sidecar sidecar) {}

  /**
   * The sidecar whose route table is watched.
   *
   * @param address its gRPC address, {@code host:port} (port 50051 by default on the sidecar)
   * @param tls whether to connect with TLS
   * @param trustCertificates a PEM file of the certificates to trust with TLS, or null for the
   *     JVM's trust store
   * @param token the bearer token the sidecar requires, or null
   * @param staleAfter how long the last route table is served after the stream is lost, 60 s by
   *     default; after that every message gets the default level
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
    if (p.levels < PredictorConfig.MIN_LEVELS || p.levels > PredictorConfig.MAX_LEVELS) {
      errors.rejectValue(
          "levels",
          "range",
          "must be in [" + PredictorConfig.MIN_LEVELS + ", " + PredictorConfig.MAX_LEVELS + "]");
    }
    try {
      PredictorConfig.defaults().toBuilder().tailBudget(p.tailBudget).build();
    } catch (IllegalArgumentException e) {
      errors.rejectValue("tail-budget", "range", "must be 0 or in (1, 100]");
    }
    if (p.minObservations < 1) {
      errors.rejectValue("min-observations", "range", "must be at least 1");
    }
    if (!(p.maxSpreadRatio >= 1) || Double.isInfinite(p.maxSpreadRatio)) {
      errors.rejectValue("max-spread-ratio", "range", "must be finite and at least 1");
    }
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
