package io.harbinger.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.harbinger.predictor.Predictor;
import io.harbinger.predictor.PredictorConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Invalid {@code harbinger.*} properties fail the application's start with Spring Boot's own
 * binding report, naming the property and the rule; no broker is needed to get there.
 */
@ExtendWith(OutputCaptureExtension.class)
class HarbingerPropertiesTest {

  @SpringBootConfiguration
  @EnableAutoConfiguration
  static class EmptyApp {}

  private static ConfigurableApplicationContext start(String... properties) {
    List<String> all = new ArrayList<>(List.of(properties));
    all.add("spring.main.web-application-type=none");
    all.add("spring.main.banner-mode=off");
    all.add("spring.rabbitmq.port=1");
    return new SpringApplicationBuilder(EmptyApp.class)
        .properties(all.toArray(String[]::new))
        .run();
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "harbinger.levels=12 | harbinger.levels | must be in [2, 10]",
        "harbinger.levels=1 | harbinger.levels | must be in [2, 10]",
        "harbinger.tail-budget=1 | harbinger.tail-budget | must be 0 or in (1, 100]",
        "harbinger.tail-budget=101 | harbinger.tail-budget | must be 0 or in (1, 100]",
        "harbinger.min-observations=0 | harbinger.min-observations | must be at least 1",
        "harbinger.max-spread-ratio=0.5 | harbinger.max-spread-ratio | must be finite and at least 1",
        "harbinger.key-decay=0 | harbinger.key-decay | must be in (0, 1]",
        "harbinger.key-decay=1.5 | harbinger.key-decay | must be in (0, 1]",
        "harbinger.stale-after=-5m | harbinger.stale-after | must not be negative",
        "harbinger.max-keys=8 | harbinger.max-keys | must be at least 16",
        "harbinger.job-type-header= | harbinger.job-type-header | must be a non-empty header name",
        "harbinger.reports-exchange= | harbinger.reports-exchange | must be a non-empty exchange name",
        "harbinger.router.kind=sidecar | harbinger.router.sidecar.address | must be set (host:port)"
            + " when router.kind=sidecar",
        "harbinger.router.sidecar.stale-after=0s | harbinger.router.sidecar.stale-after | must be a"
            + " positive duration",
        "harbinger.router.sidecar.trust-certificates=/etc/hostname |"
            + " harbinger.router.sidecar.trust-certificates | is only used with"
            + " router.sidecar.tls=true",
      })
  void start_invalidProperty_failsNamingThePropertyAndTheRule(
      String property, String name, String rule, CapturedOutput output) {
    assertThatThrownBy(() -> start(property)).isNotNull();
    assertThat(output.getOut() + output.getErr())
        .contains("APPLICATION FAILED TO START")
        .contains("Property: " + name)
        .contains("Reason: " + rule);
  }

  @Test
  void start_badSidecarAddress_failsNamingTheFormat(CapturedOutput output) {
    assertThatThrownBy(
            () ->
                start(
                    "harbinger.router.kind=sidecar",
                    "harbinger.router.sidecar.address=sidecar-without-port"))
        .isNotNull();
    assertThat(output.getOut() + output.getErr())
        .contains("Property: harbinger.router.sidecar.address")
        .contains("Value: \"sidecar-without-port\"")
        .contains("Reason: must be host:port with a port in [1, 65535]");
  }

  @Test
  void start_unknownMode_failsListingTheAllowedValues(CapturedOutput output) {
    assertThatThrownBy(() -> start("harbinger.mode=fast")).isNotNull();
    assertThat(output.getOut() + output.getErr())
        .contains("Failed to bind properties under 'harbinger.mode'")
        .contains("Value: \"fast\"")
        .contains("must be one of off, shadow, predictive: fast");
  }

  @Test
  void start_unknownRouterKind_failsListingTheAllowedValues(CapturedOutput output) {
    assertThatThrownBy(() -> start("harbinger.router.kind=grpc")).isNotNull();
    assertThat(output.getOut() + output.getErr())
        .contains("Failed to bind properties under 'harbinger.router.kind'")
        .contains("must be one of embedded, sidecar, none: grpc");
  }

  @Test
  void start_enumValues_matchIgnoringCase() {
    try (ConfigurableApplicationContext context =
        start("harbinger.mode=Shadow", "harbinger.router.kind=NONE")) {
      HarbingerProperties p = context.getBean(HarbingerProperties.class);
      assertThat(p.mode()).isEqualTo(HarbingerProperties.Mode.SHADOW);
      assertThat(p.router().kind()).isEqualTo(HarbingerProperties.RouterKind.NONE);
    }
  }

  @Test
  void start_validProperties_bindsThemAndTheDefaults() {
    try (ConfigurableApplicationContext context =
        start("harbinger.levels=5", "harbinger.mode=shadow")) {
      HarbingerProperties p = context.getBean(HarbingerProperties.class);
      assertThat(p.levels()).isEqualTo(5);
      assertThat(p.mode()).isEqualTo(HarbingerProperties.Mode.SHADOW);
      assertThat(p.jobTypeHeader()).isEqualTo("x-job-type");
      assertThat(p.reportsExchange()).isEqualTo("harbinger.reports");
      assertThat(p.router().kind()).isEqualTo(HarbingerProperties.RouterKind.EMBEDDED);
      assertThat(p.router().sidecar().staleAfter()).hasSeconds(60);
      assertThat(context.getBean(HarbingerRuntime.class).options().shadow()).isTrue();
    }
  }

  @Test
  void start_tailBudget_reachesTheEmbeddedPredictorAndDefaultsToThePredictors() {
    try (ConfigurableApplicationContext context = start("harbinger.tail-budget=1.5")) {
      assertThat(context.getBean(HarbingerProperties.class).tailBudget()).isEqualTo(1.5);
      assertThat(context.getBean(Predictor.class).config().tailBudget()).isEqualTo(1.5);
    }
    try (ConfigurableApplicationContext context = start("harbinger.tail-budget=0")) {
      assertThat(context.getBean(Predictor.class).config().tailBudget()).isZero();
    }
    try (ConfigurableApplicationContext context = start()) {
      assertThat(context.getBean(Predictor.class).config().tailBudget())
          .isEqualTo(PredictorConfig.DEFAULT_TAIL_BUDGET)
          .isEqualTo(1.25);
    }
  }

  @Test
  void start_fewObservationSettings_reachTheEmbeddedPredictor() {
    try (ConfigurableApplicationContext context =
        start(
            "harbinger.min-observations=1",
            "harbinger.max-spread-ratio=1000",
            "harbinger.tail-budget=1.1")) {
      assertThat(context.getBean(Predictor.class).config())
          .isEqualTo(PredictorConfig.defaults().toBuilder().fewObservations().build());
    }
    try (ConfigurableApplicationContext context = start()) {
      assertThat(context.getBean(Predictor.class).config()).isEqualTo(PredictorConfig.defaults());
    }
  }

  @Test
  void start_untrustedLast_reachesTheEmbeddedPredictorAndDefaultsToThePredictors() {
    try (ConfigurableApplicationContext context = start()) {
      assertThat(context.getBean(HarbingerProperties.class).untrustedLast()).isTrue();
      assertThat(context.getBean(Predictor.class).config().untrustedLast())
          .isEqualTo(PredictorConfig.DEFAULT_UNTRUSTED_LAST);
    }
    try (ConfigurableApplicationContext context = start("harbinger.untrusted-last=false")) {
      assertThat(context.getBean(Predictor.class).config().untrustedLast()).isFalse();
    }
  }

  @Test
  void start_untrustedLastNotABoolean_failsNamingTheProperty(CapturedOutput output) {
    assertThatThrownBy(() -> start("harbinger.untrusted-last=sometimes")).isNotNull();
    assertThat(output.getOut() + output.getErr())
        .contains("APPLICATION FAILED TO START")
        .contains("harbinger.untrusted-last")
        .contains("sometimes");
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "harbinger.key-decay=slow | harbinger.key-decay",
        "harbinger.stale-after=soon | harbinger.stale-after",
        "harbinger.max-keys=lots | harbinger.max-keys",
        "harbinger.size-bins=maybe | harbinger.size-bins",
        "harbinger.safeguard=perhaps | harbinger.safeguard",
        "harbinger.levels=many | harbinger.levels",
        "harbinger.min-observations=few | harbinger.min-observations",
        "harbinger.max-spread-ratio=wide | harbinger.max-spread-ratio",
        "harbinger.tail-budget=loose | harbinger.tail-budget",
      })
  void start_predictorSettingOfTheWrongType_failsNamingTheProperty(
      String property, String name, CapturedOutput output) {
    assertThatThrownBy(() -> start(property)).isNotNull();
    assertThat(output.getOut() + output.getErr())
        .contains("APPLICATION FAILED TO START")
        .contains(name)
        .contains(property.substring(property.indexOf('=') + 1));
  }

  @Test
  void start_theTenPredictorSettings_reachTheEmbeddedPredictor() {
    try (ConfigurableApplicationContext context =
        start(
            "harbinger.levels=5",
            "harbinger.key-decay=0.99",
            "harbinger.stale-after=30m",
            "harbinger.min-observations=10",
            "harbinger.max-spread-ratio=32",
            "harbinger.max-keys=4096",
            "harbinger.size-bins=true",
            "harbinger.safeguard=false",
            "harbinger.tail-budget=1.5",
            "harbinger.untrusted-last=false")) {
      assertThat(context.getBean(Predictor.class).config())
          .isEqualTo(
              new PredictorConfig(
                  5, 0.99, Duration.ofMinutes(30), 10, 32, 4096, true, false, 1.5, false));
    }
  }

  @Test
  void start_noPredictorSettings_givesThePredictorsDefaults() {
    try (ConfigurableApplicationContext context = start()) {
      HarbingerProperties p = context.getBean(HarbingerProperties.class);
      assertThat(p.predictorConfig()).isEqualTo(PredictorConfig.defaults());
      assertThat(p.keyDecay()).isEqualTo(PredictorConfig.DEFAULT_KEY_DECAY);
      assertThat(p.staleAfter()).isZero();
      assertThat(p.maxKeys()).isEqualTo(PredictorConfig.DEFAULT_MAX_KEYS);
      assertThat(p.sizeBins()).isFalse();
      assertThat(p.safeguard()).isTrue();
    }
  }

  @Test
  void isHostAndPort_acceptsHostColonPortOnly() {
    assertThat(HarbingerProperties.isHostAndPort("sidecar:50051")).isTrue();
    assertThat(HarbingerProperties.isHostAndPort("[::1]:50051")).isTrue();
    assertThat(HarbingerProperties.isHostAndPort("sidecar")).isFalse();
    assertThat(HarbingerProperties.isHostAndPort("sidecar:0")).isFalse();
    assertThat(HarbingerProperties.isHostAndPort(":50051")).isFalse();
    assertThat(HarbingerProperties.isHostAndPort("sidecar:x")).isFalse();
  }
}
