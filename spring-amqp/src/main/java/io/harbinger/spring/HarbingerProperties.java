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
 * harbinger.key-decay=0.995
 * harbinger.stale-after=0s
 * harbinger.min-observations=20
 * harbinger.max-spread-ratio=16
 * harbinger.max-keys=16384
 * harbinger.size-bins=false
 * harbinger.safeguard=true
 * harbinger.tail-budget=1.5
 * harbinger.untrusted-last=true
 * harbinger.router.kind=sidecar
 * harbinger.router.sidecar.address=harbinger-sidecar:50051
 * harbinger.router.sidecar.tls=true
 * </pre>
 *
 * <p>The predictor settings are {@link PredictorConfig}'s ten, under the same names as in the
 * sidecar's YAML and with the predictor's defaults; {@link PredictorConfig} documents each once
 * (what it does, its default, when to change it and why). They configure the embedded router's
 * predictor; a sidecar router takes the sidecar's own, but for {@code levels}, which the
 * application's queues and stamps must share.
 *
 * <p>Invalid values fail the application's start with Spring Boot's binding report, which names the
 * property, its value, where it came from and the rule it breaks.
 *
 * @param mode {@code predictive} (the default) stamps learned priorities; {@code shadow} stamps the
 *     predicted level in {@code x-harbinger-level} but leaves priorities alone, so delivery order
 *     stays as without Harbinger while it learns; {@code off} installs nothing
 * @param jobTypeHeader the header carrying a message's job type, {@code x-job-type} by default
 * @param reportsExchange the fanout exchange duration reports go to, {@code harbinger.reports} by
 *     default
 * @param router where publish levels come from
 * @param levels the number of levels, in [2, 10], 3 by default; a classic queue for them has {@code
 *     x-max-priority = levels - 1}; with a sidecar router, the levels it must publish
 * @param keyDecay the embedded router's {@link PredictorConfig#keyDecay()}
 * @param staleAfter the embedded router's {@link PredictorConfig#staleAfter()}, 0 (off) by default
 * @param minObservations the embedded router's {@link PredictorConfig#minObservations()}; with
 *     {@code max-spread-ratio=1000} and {@code tail-budget=1.1} it forms the few-observation
 *     settings ({@link PredictorConfig.Builder#fewObservations()})
 * @param maxSpreadRatio the embedded router's {@link PredictorConfig#maxSpreadRatio()}
 * @param maxKeys the embedded router's {@link PredictorConfig#maxKeys()}, at least {@value
 *     PredictorConfig#MIN_MAX_KEYS}
 * @param sizeBins the embedded router's {@link PredictorConfig#sizeBins()}
 * @param safeguard the embedded router's {@link PredictorConfig#safeguard()}
 * @param tailBudget the embedded router's {@link PredictorConfig#tailBudget()}
 * @param untrustedLast the embedded router's {@link PredictorConfig#untrustedLast()}
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
