package io.harbinger.sidecar;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.harbinger.predictor.Mode;
import io.harbinger.predictor.PredictorConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConfigLoaderTest {

  @TempDir Path dir;

  private final ConfigLoader plain = new ConfigLoader(Map.of(), new Properties());

  private Path yaml(String text) throws IOException {
    Path file = dir.resolve("harbinger.yaml");
    Files.writeString(file, text);
    return file;
  }

  private ConfigException problemsOf(ConfigLoader loader, String text) throws IOException {
    Path file = yaml(text);
    try {
      loader.load(Optional.of(file));
    } catch (ConfigException e) {
      return e;
    }
    throw new AssertionError("accepted: " + text);
  }

  @Test
  void load_noFile_givesTheDocumentedDefaults() throws Exception {
    SidecarConfig c = plain.load(Optional.empty());
    assertThat(c.grpcPort()).isEqualTo(50051);
    assertThat(c.metricsPort()).isEqualTo(9464);
    assertThat(c.mode()).isEqualTo(Mode.PREDICTIVE);
    assertThat(c.predictor().levels()).isEqualTo(3);
    assertThat(c.predictor()).isEqualTo(PredictorConfig.defaults());
    assertThat(c.predictor().staleAfter()).isZero();
    assertThat(c.reportQueue()).isEqualTo("harbinger.reports.sidecar-1");
    assertThat(c.rabbit().password()).isEqualTo("guest");
    assertThat(c.snapshotInterval()).isEqualTo(Duration.ofSeconds(60));
    assertThat(c.publishInterval()).isEqualTo(Duration.ofMillis(25));
    assertThat(c.grpcBindAddress()).isEqualTo("127.0.0.1");
    assertThat(c.metricsBindAddress()).isEqualTo("127.0.0.1");
    assertThat(c.rabbit().startupRetry()).isEqualTo(Duration.ofSeconds(60));
  }

  @Test
  void load_bindAddressesAndStartupRetry_fromTheEnvironment() throws Exception {
    ConfigLoader loader =
        new ConfigLoader(
            Map.of(
                "HARBINGER_GRPC_BIND_ADDRESS", "127.0.0.1",
                "HARBINGER_METRICS_BIND_ADDRESS", "::1",
                "HARBINGER_RABBITMQ_STARTUP_RETRY", "0s"),
            new Properties());
    SidecarConfig c = loader.load(Optional.empty());
    assertThat(c.grpcBindAddress()).contains("127.0.0.1");
    assertThat(c.metricsBindAddress()).contains("::1");
    assertThat(c.rabbit().startupRetry()).isZero();
  }

  @Test
  void load_badBindAddressOrRetry_namesTheSetting() throws IOException {
    ConfigException e =
        problemsOf(
            plain,
            """
            grpc:
              bind-address: no-such-host.invalid
            rabbitmq:
              startup-retry: forever
            """);
    assertThat(e.problems())
        .anySatisfy(p -> assertThat(p).startsWith("grpc.bind-address must be an IP address"))
        .anySatisfy(p -> assertThat(p).startsWith("rabbitmq.startup-retry must be a duration"));
  }

  @Test
  void load_overrides_fileThenEnvironmentThenSystemProperties() throws Exception {
    Path file = yaml("grpc:\n  port: 6000\npredictor:\n  levels: 5\nmode: shadow\n");
    Properties props = new Properties();
    props.setProperty("harbinger.predictor.levels", "4");
    ConfigLoader loader =
        new ConfigLoader(
            Map.of("HARBINGER_GRPC_PORT", "6001", "HARBINGER_PREDICTOR_LEVELS", "7"), props);
    SidecarConfig c = loader.load(Optional.of(file));
    assertThat(c.grpcPort()).isEqualTo(6001);
    assertThat(c.predictor().levels()).isEqualTo(4);
    assertThat(c.mode()).isEqualTo(Mode.SHADOW);
  }

  @Test
  void load_demoteUntrusted_isOnByDefaultAndCanBeSwitchedOff() throws Exception {
    ConfigLoader defaults = new ConfigLoader(Map.of(), new Properties());
    assertThat(defaults.load(Optional.empty()).predictor().demoteUntrusted()).isTrue();
    Path file = yaml("predictor:\n  demote-untrusted: false\n");
    assertThat(defaults.load(Optional.of(file)).predictor().demoteUntrusted()).isFalse();
  }

  @Test
  void load_shiftRun_isReadAndGarbageIsNamed() throws Exception {
    ConfigLoader defaults = new ConfigLoader(Map.of(), new Properties());
    assertThat(defaults.load(Optional.empty()).predictor().shiftRun()).isEqualTo(8);
    Path file = yaml("predictor:\n  shift-run: 0\n");
    assertThat(defaults.load(Optional.of(file)).predictor().shiftRun()).isZero();
    assertThat(problemsOf(plain, "predictor:\n  shift-run: 1001\n").problems())
        .containsExactly("predictor.shift-run must be in [0, 1000]: 1001");
    assertThat(problemsOf(plain, "predictor:\n  shift-run: often\n").problems())
        .anyMatch(p -> p.startsWith("predictor.shift-run") && p.contains("often"));
  }

  @Test
  void load_tailBudget_isThePredictorsByDefaultReadAndOutOfRangeIsNamed() throws Exception {
    ConfigLoader defaults = new ConfigLoader(Map.of(), new Properties());
    assertThat(defaults.load(Optional.empty()).predictor().tailBudget())
        .isEqualTo(PredictorConfig.DEFAULT_TAIL_BUDGET);
    Path file = yaml("predictor:\n  tail-budget: 0\n");
    assertThat(defaults.load(Optional.of(file)).predictor().tailBudget()).isZero();
    file = yaml("predictor:\n  tail-budget: 2\n");
    assertThat(defaults.load(Optional.of(file)).predictor().tailBudget()).isEqualTo(2);
    assertThat(problemsOf(plain, "predictor:\n  tail-budget: 1\n").problems())
        .contains("predictor: tailBudget must be 0 or in (1, 100]: 1.0");
    assertThat(problemsOf(plain, "predictor:\n  tail-budget: loose\n").problems())
        .anyMatch(p -> p.startsWith("predictor.tail-budget") && p.contains("loose"));
  }

  @Test
  void load_fewObservationSettings_giveThePredictorsFewObservationsPreset() throws Exception {
    ConfigLoader defaults = new ConfigLoader(Map.of(), new Properties());
    Path file =
        yaml(
            "predictor:\n  min-observations: 1\n  max-spread-ratio: 1000\n"
                + "  tail-budget: 1.1\n");

    assertThat(defaults.load(Optional.of(file)).predictor())
        .isEqualTo(PredictorConfig.defaults().toBuilder().fewObservations().build());
    assertThat(
            problemsOf(plain, "predictor:\n  min-observations: 1\n  promote-cold-after: 1\n")
                .problems())
        .anyMatch(p -> p.contains("promoteColdAfter") && p.contains("minObservations"));
  }

  @Test
  void load_untrustedLast_isThePredictorsByDefaultReadAndGarbageIsNamed() throws Exception {
    ConfigLoader defaults = new ConfigLoader(Map.of(), new Properties());
    assertThat(defaults.load(Optional.empty()).predictor().untrustedLast())
        .isEqualTo(PredictorConfig.DEFAULT_UNTRUSTED_LAST)
        .isTrue();
    Path file = yaml("predictor:\n  untrusted-last: false\n");
    assertThat(defaults.load(Optional.of(file)).predictor().untrustedLast()).isFalse();
    assertThat(problemsOf(plain, "predictor:\n  untrusted-last: sometimes\n").problems())
        .anyMatch(p -> p.startsWith("predictor.untrusted-last") && p.contains("sometimes"));
    assertThat(problemsOf(plain, "predictor:\n  untrusted-last: 1\n").problems())
        .anyMatch(p -> p.startsWith("predictor.untrusted-last"));
  }

  @Test
  void load_borrowFromSize_isOnByDefaultReadAndGarbageIsNamed() throws Exception {
    ConfigLoader defaults = new ConfigLoader(Map.of(), new Properties());
    assertThat(defaults.load(Optional.empty()).predictor().borrowFromSize()).isTrue();
    Path file = yaml("predictor:\n  borrow-from-size: false\n");
    assertThat(defaults.load(Optional.of(file)).predictor().borrowFromSize()).isFalse();
    assertThat(problemsOf(plain, "predictor:\n  borrow-from-size: by-weight\n").problems())
        .anyMatch(p -> p.startsWith("predictor.borrow-from-size") && p.contains("by-weight"));
  }

  @Test
  void load_promoteColdAfter_isReadAndOutOfRangeIsNamed() throws Exception {
    ConfigLoader defaults = new ConfigLoader(Map.of(), new Properties());
    Path file = yaml("predictor:\n  promote-cold-after: 3\n");
    assertThat(defaults.load(Optional.of(file)).predictor().promoteColdAfter()).isEqualTo(3);
    assertThat(problemsOf(plain, "predictor:\n  promote-cold-after: 20\n").problems())
        .containsExactly(
            "predictor: promoteColdAfter must be 0 or in [1, minObservations = 20): 20");
    assertThat(problemsOf(plain, "predictor:\n  promote-cold-after: -1\n").problems())
        .containsExactly("predictor.promote-cold-after must be in [0, 1000]: -1");
    assertThat(problemsOf(plain, "predictor:\n  promote-cold-after: soon\n").problems())
        .anyMatch(p -> p.startsWith("predictor.promote-cold-after") && p.contains("soon"));
  }

  @Test
  void load_everyProblem_isListedAtOnce() throws IOException {
    ConfigException e =
        problemsOf(
            plain,
            """
            grpc:
              prot: 5
              port: 70000
            predictor:
              levels: 12
              key-decay: 1.5
              stale-after: soon
            mode: fast
            colour: blue
            """);
    assertThat(e.problems())
        .anyMatch(p -> p.startsWith("unknown key grpc.prot"))
        .anyMatch(p -> p.startsWith("unknown key colour"))
        .anyMatch(p -> p.equals("grpc.port must be in [0, 65535]: 70000"))
        .anyMatch(p -> p.equals("predictor.levels must be in [2, 10]: 12"))
        .anyMatch(p -> p.contains("stale-after must be a duration"))
        .anyMatch(p -> p.contains("mode must be off, shadow or predictive: fast"));
    assertThat(e.getMessage()).contains("harbinger.yaml").contains("problems");
  }

  @Test
  void load_valueOutOfThePredictorsRange_namesTheRule() throws IOException {
    ConfigException e = problemsOf(plain, "predictor:\n  key-decay: 1.5\n");
    assertThat(e.problems()).containsExactly("predictor: keyDecay must be in (0, 1]: 1.5");
  }

  @Test
  void load_malformedYaml_givesTheLine() throws IOException {
    ConfigException e = problemsOf(plain, "grpc:\n  port: [1, 2\nmode: off\n");
    assertThat(e.problems()).singleElement().asString().startsWith("not valid YAML at line");
  }

  @Test
  void load_wrongShapes_areReported() throws IOException {
    assertThat(problemsOf(plain, "- a\n- b\n").problems())
        .singleElement()
        .asString()
        .contains("must be a YAML mapping");
    assertThat(problemsOf(plain, "grpc: 5\n").problems())
        .containsExactly("grpc must be a mapping of settings");
    assertThat(problemsOf(plain, "mode: [a]\n").problems())
        .singleElement()
        .asString()
        .startsWith("mode must be a single value");
  }

  @Test
  void load_missingFile_isAProblem() {
    assertThatThrownBy(() -> plain.load(Optional.of(dir.resolve("nope.yaml"))))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("config file not found");
  }

  @Test
  void load_passwordFromAFile_isNeverPrinted() throws Exception {
    Path secret = dir.resolve("password");
    Files.writeString(secret, "s3cret\n");
    SidecarConfig c = plain.load(Optional.of(yaml("rabbitmq:\n  password-file: " + secret + "\n")));
    assertThat(c.rabbit().password()).isEqualTo("s3cret");
    assertThat(c.toString()).doesNotContain("s3cret");
    assertThat(problemsOf(plain, "rabbitmq:\n  password-file: /no/such/file\n").problems())
        .singleElement()
        .asString()
        .contains("rabbitmq.password-file");
  }

  @Test
  void load_passwordFromTheEnvironment() throws Exception {
    ConfigLoader loader =
        new ConfigLoader(Map.of("HARBINGER_RABBITMQ_PASSWORD", "envpw"), new Properties());
    assertThat(loader.load(Optional.empty()).rabbit().password()).isEqualTo("envpw");
  }

  @Test
  void load_credentialsInTheUri_areRefused() throws IOException {
    assertThat(problemsOf(plain, "rabbitmq:\n  uri: amqp://bob:pw@host:5672/%2F\n").problems())
        .singleElement()
        .asString()
        .contains("without credentials");
  }

  @Test
  void load_halfTls_isRefused() throws IOException {
    Path cert = dir.resolve("cert.pem");
    Files.writeString(cert, "x");
    assertThat(problemsOf(plain, "grpc:\n  tls-cert-chain: " + cert + "\n").problems())
        .containsExactly("grpc.tls-cert-chain and grpc.tls-private-key must be set together");
  }

  @Test
  void load_emptyFile_givesDefaults() throws Exception {
    assertThat(plain.load(Optional.of(yaml(""))).grpcPort()).isEqualTo(50051);
  }

  @Test
  void load_defaults_bindLoopbackAndTrustTheSidecarsOwnUser() throws Exception {
    SidecarConfig c = plain.load(Optional.empty());
    assertThat(c.grpcBindAddress()).isEqualTo("127.0.0.1");
    assertThat(c.metricsBindAddress()).isEqualTo("127.0.0.1");
    assertThat(c.allowUnauthenticatedRemote()).isFalse();
    assertThat(c.trustedReporters().reporters()).containsExactly("guest");
    assertThat(c.maxKeysPerReporter()).isEqualTo(4096);
    assertThat(c.reportQueueMaxLength()).isEqualTo(10_000);
    assertThat(c.reportQueueExpiry()).isEqualTo(Duration.ofHours(24));
    assertThat(c.rabbit().maxInboundMessageBytes()).isEqualTo(128 << 20);
    assertThat(c.heartbeatInterval()).isEqualTo(Duration.ofSeconds(5));
  }

  @Test
  void load_remoteBind_needsATokenOrTheOptIn() throws Exception {
    ConfigException e = problemsOf(plain, "grpc:\n  bind-address: 0.0.0.0\n");
    assertThat(e.problems())
        .singleElement()
        .asString()
        .contains("grpc.bind-address 0.0.0.0 is not a loopback address");

    SidecarConfig optedIn =
        plain.load(
            Optional.of(
                yaml("grpc:\n  bind-address: 0.0.0.0\n  allow-unauthenticated-remote: true\n")));
    assertThat(optedIn.grpcBindAddress()).isEqualTo("0.0.0.0");

    Path token = dir.resolve("token");
    Files.writeString(token, "s3cret\n");
    SidecarConfig withToken =
        plain.load(
            Optional.of(yaml("grpc:\n  bind-address: 0.0.0.0\n  token-file: " + token + "\n")));
    assertThat(withToken.tokenFile()).contains(token);
  }

  @Test
  void load_badReportSettings_areListed() throws IOException {
    ConfigException e =
        problemsOf(
            plain,
            """
            grpc:
              bind-address: "not an address!"
            reports:
              trusted-reporters: "worker=billing|"
              max-keys-per-reporter: 0
              queue-expiry: 30s
            rabbitmq:
              max-inbound-message-bytes: 1000
            """);
    assertThat(e.problems())
        .anySatisfy(p -> assertThat(p).startsWith("grpc.bind-address must be an IP address"))
        .anySatisfy(p -> assertThat(p).contains("reports.trusted-reporters: producer in"))
        .anySatisfy(p -> assertThat(p).contains("reports.max-keys-per-reporter must be at least 1"))
        .anySatisfy(p -> assertThat(p).contains("reports.queue-expiry must be at least 60000ms"))
        .anySatisfy(
            p -> assertThat(p).contains("rabbitmq.max-inbound-message-bytes must be in [1048576"));
  }

  @Test
  void load_durationTooLong_isAProblemNotACrash() throws IOException {
    ConfigException e = problemsOf(plain, "predictor:\n  stale-after: 99999999999999999999999m\n");
    assertThat(e.problems())
        .singleElement()
        .asString()
        .startsWith("predictor.stale-after is too long");
  }
}
