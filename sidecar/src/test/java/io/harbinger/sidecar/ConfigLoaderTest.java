package io.harbinger.sidecar;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.harbinger.predictor.Mode;
import io.harbinger.predictor.PredictorConfig;
import io.harbinger.predictor.PredictorTuning;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
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

  /** A file setting one setting, nested as written: {@code a.b-c} is {@code a:\n b-c: VALUE}. */
  private static String nested(String path, String value) {
    int dot = path.indexOf('.');
    return path.substring(0, dot) + ":\n  " + path.substring(dot + 1) + ": " + value + "\n";
  }

  @Test
  void load_everyRemovedSetting_failsNamingItAndWhatReplacedIt() throws IOException {
    assertThat(ConfigLoader.REMOVED).hasSize(24);
    for (Map.Entry<String, String> removed : ConfigLoader.REMOVED.entrySet()) {
      String key = removed.getKey();
      assertThat(removed.getValue())
          .as(key)
          .satisfiesAnyOf(
              m -> assertThat(m).startsWith(key + " was removed: "),
              m -> assertThat(m).startsWith(key + " moved to "));
      // Whatever the value, even the one the predictor now uses.
      for (String value : new String[] {"0", "true", "garbage"}) {
        assertThat(problemsOf(plain, nested(key, value)).problems())
            .as(key + ": " + value)
            .containsExactly(removed.getValue());
      }
    }
  }

  @Test
  void load_removedSettings_nameWhatReplacedThem() throws IOException {
    assertThat(problemsOf(plain, "predictor:\n  shift-run: 0\n").problems())
        .containsExactly(
            "predictor.shift-run was removed: the shift run is fixed at 8 observations");
    assertThat(problemsOf(plain, "keys:\n  size-bins: true\n").problems())
        .containsExactly("keys.size-bins moved to predictor.size-bins");
    assertThat(problemsOf(plain, "predictor:\n  promote-cold-after: 3\n").problems())
        .singleElement()
        .asString()
        .startsWith("predictor.promote-cold-after was removed: ")
        .contains("predictor.min-observations: 1");
  }

  @Test
  void load_removedSettings_quoteTheValuesThePredictorNowUses() {
    PredictorTuning fixed = PredictorTuning.defaults();
    Map<String, String> removed = ConfigLoader.REMOVED;
    assertThat(removed.get("predictor.shift-run")).contains(" " + fixed.shiftRun() + " ");
    assertThat(removed.get("predictor.pooled-decay")).contains(" " + fixed.pooledDecay() + " ");
    assertThat(removed.get("predictor.boundary-min-observations"))
        .contains(" " + fixed.boundaryMinObservations() + " ");
    assertThat(removed.get("predictor.boundary-refresh-every"))
        .contains(" " + fixed.boundaryRefreshEvery() + " ");
    assertThat(removed.get("predictor.boundary-hysteresis"))
        .contains(" " + Math.round(100 * fixed.boundaryHysteresis()) + "%");
    assertThat(removed.get("predictor.tier-hysteresis"))
        .contains(" " + Math.round(100 * fixed.tierHysteresis()) + "%");
    assertThat(removed.get("predictor.max-censored-share"))
        .contains(" " + Math.round(100 * fixed.maxCensoredShare()) + "%");
    assertThat(removed.get("predictor.misprediction-enter"))
        .contains(" " + fixed.mispredictionEnter() + " ");
    assertThat(removed.get("predictor.misprediction-exit"))
        .contains(" " + fixed.mispredictionExit() + " ");
    assertThat(removed.get("predictor.misprediction-memory"))
        .contains(" " + fixed.mispredictionMemory() + " ");
    assertThat(removed.get("predictor.safeguard-margin"))
        .contains(" " + Math.round(100 * fixed.safeguardMargin()) + "%");
    assertThat(removed.get("predictor.safeguard-hysteresis"))
        .contains(
            " " + Math.round(100 * (fixed.safeguardMargin() + fixed.safeguardHysteresis())) + "%");
    assertThat(removed.get("predictor.safeguard-load")).endsWith(" " + fixed.safeguardLoad());
    assertThat(removed.get("predictor.safeguard-min-reports"))
        .contains(" " + fixed.safeguardMinReports() + " ");
    assertThat(removed.get("predictor.safeguard-decay"))
        .contains(" " + fixed.safeguardDecay() + " ");
    assertThat(fixed.keyGuard()).isTrue();
    assertThat(fixed.demoteUntrusted()).isTrue();
    assertThat(fixed.borrowFromProducer()).isTrue();
    assertThat(fixed.borrowFromSize()).isTrue();
    assertThat(fixed.idleHalfLife()).isZero();
    assertThat(fixed.relativeIdle()).isZero();
    assertThat(fixed.promoteColdAfter()).isZero();
    assertThat(fixed.tailLimit()).isZero();
  }

  @Test
  void load_removedSettings_areListedWithEveryOtherProblem() throws IOException {
    ConfigException e =
        problemsOf(
            plain,
            """
            keys:
              size-bins: true
            predictor:
              levels: 12
              demote-untrusted: false
              colour: blue
            """);
    assertThat(e.problems())
        .contains(
            "keys.size-bins moved to predictor.size-bins",
            "predictor.demote-untrusted was removed: an untrusted key whose evidence shows it"
                + " costlier than the middle level always goes below it",
            "predictor.levels must be in [2, 10]: 12")
        .anyMatch(p -> p.startsWith("unknown key predictor.colour"));
  }

  @Test
  void load_removedSettingFromTheEnvironmentOrAProperty_failsNamingItsSpelling() {
    Properties props = new Properties();
    props.setProperty("harbinger.predictor.safeguard-margin", "0.05");
    ConfigLoader loader =
        new ConfigLoader(
            Map.of("HARBINGER_PREDICTOR_SHIFT_RUN", "0", "HARBINGER_KEYS_SIZE_BINS", "true"),
            props);
    assertThatThrownBy(() -> loader.load(Optional.empty()))
        .isInstanceOfSatisfying(
            ConfigException.class,
            e ->
                assertThat(e.problems())
                    .containsExactlyInAnyOrder(
                        "environment variable HARBINGER_PREDICTOR_SHIFT_RUN: predictor.shift-run"
                            + " was removed: the shift run is fixed at 8 observations",
                        "environment variable HARBINGER_KEYS_SIZE_BINS: keys.size-bins moved to"
                            + " predictor.size-bins",
                        "system property harbinger.predictor.safeguard-margin: "
                            + ConfigLoader.REMOVED.get("predictor.safeguard-margin")));
  }

  @Test
  void load_sizeBins_isAPredictorSettingOffByDefault() throws Exception {
    assertThat(plain.load(Optional.empty()).predictor().sizeBins()).isFalse();
    Path file = yaml("predictor:\n  size-bins: true\n");
    assertThat(plain.load(Optional.of(file)).predictor().sizeBins()).isTrue();
    ConfigLoader fromEnvironment =
        new ConfigLoader(Map.of("HARBINGER_PREDICTOR_SIZE_BINS", "true"), new Properties());
    assertThat(fromEnvironment.load(Optional.empty()).predictor().sizeBins()).isTrue();
  }

  @Test
  void load_theTenSettings_reachThePredictor() throws Exception {
    Path file =
        yaml(
            """
            predictor:
              levels: 5
              key-decay: 0.99
              stale-after: 30m
              min-observations: 10
              max-spread-ratio: 32
              max-keys: 4096
              size-bins: true
              safeguard: false
              tail-budget: 1.5
              untrusted-last: false
            """);
    assertThat(plain.load(Optional.of(file)).predictor())
        .isEqualTo(
            new PredictorConfig(
                5, 0.99, Duration.ofMinutes(30), 10, 32, 4096, true, false, 1.5, false));
  }

  @Test
  void load_referencePredictorSection_holdsExactlyTheTenSettings() throws Exception {
    JsonNode reference =
        new ObjectMapper(new YAMLFactory())
            .readTree(ConfigLoader.class.getResourceAsStream("/reference.yaml"));
    List<String> names = new ArrayList<>();
    reference.get("predictor").fieldNames().forEachRemaining(names::add);
    assertThat(names)
        .containsExactly(
            "levels",
            "key-decay",
            "stale-after",
            "min-observations",
            "max-spread-ratio",
            "max-keys",
            "size-bins",
            "safeguard",
            "tail-budget",
            "untrusted-last");
    List<String> keys = new ArrayList<>();
    reference.get("keys").fieldNames().forEachRemaining(keys::add);
    assertThat(keys).containsExactly("job-type-header");
  }

  @Test
  void load_garbageInAnyOfTheTen_isNamedWithItsValue() throws IOException {
    Map<String, String> garbage = new LinkedHashMap<>();
    garbage.put("levels", "many");
    garbage.put("key-decay", "slow");
    garbage.put("stale-after", "soon");
    garbage.put("min-observations", "few");
    garbage.put("max-spread-ratio", "wide");
    garbage.put("max-keys", "lots");
    garbage.put("size-bins", "maybe");
    garbage.put("safeguard", "perhaps");
    garbage.put("tail-budget", "loose");
    garbage.put("untrusted-last", "sometimes");
    for (Map.Entry<String, String> g : garbage.entrySet()) {
      assertThat(problemsOf(plain, nested("predictor." + g.getKey(), g.getValue())).problems())
          .as(g.getKey())
          .singleElement()
          .asString()
          .startsWith("predictor." + g.getKey() + " must be")
          .endsWith(": " + g.getValue());
    }
    assertThat(problemsOf(plain, "predictor:\n  max-keys: 8\n").problems())
        .containsExactly("predictor.max-keys must be at least 16: 8");
    assertThat(problemsOf(plain, "predictor:\n  min-observations: 0\n").problems())
        .containsExactly("predictor.min-observations must be at least 1: 0");
    assertThat(problemsOf(plain, "predictor:\n  max-spread-ratio: 0.5\n").problems())
        .containsExactly("predictor: maxSpreadRatio must be finite and at least 1: 0.5");
    assertThat(problemsOf(plain, "predictor:\n  stale-after: -5m\n").problems())
        .singleElement()
        .asString()
        .startsWith("predictor.stale-after must be a duration");
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
        .singleElement()
        .asString()
        .startsWith("predictor.promote-cold-after was removed");
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
