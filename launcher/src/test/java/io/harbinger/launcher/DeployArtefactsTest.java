package io.harbinger.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.harbinger.broker.BrokerMain;
import io.harbinger.sidecar.ConfigException;
import io.harbinger.sidecar.ConfigLoader;
import io.harbinger.sidecar.SidecarConfig;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * Keeps the deployment artefacts honest: {@code deploy/Dockerfile}, {@code compose.yaml}, {@code
 * deploy/k8s/*.yaml} and the Prometheus scrape configs are checked against the code they deploy
 * (main classes, the sidecar's real config loader and its default ports). The Grafana dashboard is
 * checked against a running sidecar by {@code DeployDashboardIT} in the experiments.
 */
class DeployArtefactsTest {

  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Pattern COMPOSE_VARIABLE = Pattern.compile("\\$\\{(\\w+)(?::?-([^}]*))?}");

  private static Path root;
  private static SidecarConfig defaults;

  @TempDir Path dir;

  @BeforeAll
  static void findRepository() throws ConfigException {
    Path p = Path.of("").toAbsolutePath();
    while (p != null
        && !(Files.exists(p.resolve("mvnw")) && Files.isDirectory(p.resolve("sidecar")))) {
      p = p.getParent();
    }
    assertThat(p).as("the repository root above " + Path.of("").toAbsolutePath()).isNotNull();
    root = p;
    defaults = new ConfigLoader(Map.of(), new Properties()).load(Optional.empty());
  }

  @Test
  void dockerfile_eachImage_runsTheLaunchersMainClassFromTheModuleItCopies() throws Exception {
    Map<String, Stage> stages = dockerStages();
    Map<String, String[]> launcher = launcherCommands();
    assertThat(stages).containsKeys("sidecar", "broker", "bench");
    for (Map.Entry<String, Stage> e : stages.entrySet()) {
      Stage stage = e.getValue();
      if (stage.mainClass == null) {
        continue;
      }
      assertThat(launcher)
          .as("./harbinger has a command named like stage " + e.getKey())
          .containsKey(e.getKey());
      String[] command = launcher.get(e.getKey());
      assertThat(stage.mainClass).as("main class of stage " + e.getKey()).isEqualTo(command[1]);
      assertThat(stage.module).as("module copied into stage " + e.getKey()).isEqualTo(command[0]);
      Method main = Class.forName(stage.mainClass).getMethod("main", String[].class);
      assertThat(Modifier.isStatic(main.getModifiers()) && Modifier.isPublic(main.getModifiers()))
          .as(stage.mainClass + ".main is public static")
          .isTrue();
      Path source =
          root.resolve(stage.module)
              .resolve("src/main/java")
              .resolve(stage.mainClass.replace('.', '/') + ".java");
      assertThat(source).as("the source of " + stage.mainClass + " in " + stage.module).exists();
      assertThat(stage.user).as("stage " + e.getKey() + " runs as uid 10001").startsWith("10001");
    }
    assertThat(stages.get("sidecar").exposed)
        .containsExactlyInAnyOrder(defaults.grpcPort(), defaults.metricsPort());
    assertThat(stages.get("broker").module)
        .as("the broker image carries the broker module, not the experiments")
        .isEqualTo("broker");
    assertThat(stages.get("broker").exposed).containsExactly(brokerDefaultPort());
    assertThat(stages.get("broker").cmd)
        .containsSequence("--port", Integer.toString(brokerDefaultPort()));
    assertThat(stages.get("broker").cmd).containsSequence("--bind", "0.0.0.0");
  }

  @Test
  void compose_sidecarEnvironment_isAcceptedByTheConfigLoaderAndMatchesItsPorts() throws Exception {
    JsonNode services = readYaml(root.resolve("compose.yaml")).get(0).path("services");
    assertThat(names(services)).contains("rabbitmq", "redis", "sidecar", "broker", "bench");
    assertThat(services.path("rabbitmq").path("image").asText()).startsWith("rabbitmq:3.10");
    assertThat(services.path("redis").path("image").asText()).startsWith("redis:7.0");

    JsonNode sidecar = services.path("sidecar");
    Map<String, String> env = composeEnvironment(sidecar);
    assertEnvironmentNamesAreSettings(env.keySet());
    SidecarConfig config = new ConfigLoader(env, new Properties()).load(Optional.empty());
    assertThat(containerPorts(sidecar))
        .containsExactlyInAnyOrder(config.grpcPort(), config.metricsPort())
        .containsExactlyInAnyOrder(defaults.grpcPort(), defaults.metricsPort());
    assertThat(URI.create(config.rabbit().uri()).getHost()).isEqualTo("rabbitmq");
    assertThat(sidecar.path("healthcheck").path("test").toString())
        .contains("/dev/tcp/127.0.0.1/" + config.metricsPort());

    JsonNode rabbit = services.path("rabbitmq");
    Map<String, String> rabbitEnv = composeEnvironment(rabbit);
    assertThat(config.rabbit().username()).isEqualTo(rabbitEnv.get("RABBITMQ_DEFAULT_USER"));
    assertThat(config.rabbit().password()).isEqualTo(rabbitEnv.get("RABBITMQ_DEFAULT_PASS"));

    Map<String, String> benchEnv = composeEnvironment(services.path("bench"));
    URI amqp = URI.create(benchEnv.get("RABBITMQ_URI"));
    assertThat(amqp.getHost()).isEqualTo("rabbitmq");
    assertThat(amqp.getPort()).isIn(containerPorts(rabbit));
    assertThat(amqp.getUserInfo())
        .isEqualTo(
            rabbitEnv.get("RABBITMQ_DEFAULT_USER") + ":" + rabbitEnv.get("RABBITMQ_DEFAULT_PASS"));
    URI redis = URI.create(benchEnv.get("REDIS_URI"));
    assertThat(redis.getHost()).isEqualTo("redis");
    assertThat(redis.getPort()).isIn(containerPorts(services.path("redis")));

    JsonNode broker = services.path("broker");
    List<String> brokerCommand = texts(broker.path("command"));
    assertThat(brokerCommand).containsSequence("--port", Integer.toString(brokerDefaultPort()));
    assertThat(containerPorts(broker)).containsExactly(brokerDefaultPort());
    assertThat(broker.path("healthcheck").path("test").toString())
        .contains("/dev/tcp/127.0.0.1/" + brokerDefaultPort());

    Set<String> stages = dockerStages().keySet();
    for (String name : names(services)) {
      JsonNode service = services.path(name);
      if (service.has("build")) {
        assertThat(stages)
            .as("Dockerfile target of " + name)
            .contains(service.path("build").path("target").asText());
      }
      for (String dependency : names(service.path("depends_on"))) {
        assertThat(services.has(dependency)).as(name + " depends on a service").isTrue();
        String condition = service.path("depends_on").path(dependency).path("condition").asText();
        if (condition.equals("service_healthy")) {
          assertThat(services.path(dependency).has("healthcheck"))
              .as(name + " waits for " + dependency + " to be healthy, which needs a healthcheck")
              .isTrue();
        }
      }
    }
    assertThat(names(services.path("bench").path("depends_on"))).contains("rabbitmq", "redis");

    JsonNode prometheus = readYaml(root.resolve("deploy/prometheus/prometheus.yml")).get(0);
    JsonNode job = prometheus.path("scrape_configs").get(0);
    assertThat(job.path("metrics_path").asText("/metrics")).isEqualTo("/metrics");
    assertThat(texts(job.path("static_configs").get(0).path("targets")))
        .containsExactly("sidecar:" + config.metricsPort());
  }

  @Test
  void k8s_configMapAndPodEnvironment_areAcceptedByTheConfigLoader() throws Exception {
    K8s k8s = k8s();
    JsonNode container = k8s.sidecarContainer();
    Path file = dir.resolve("harbinger.yaml");
    Files.writeString(file, k8s.configMap.path("data").path("harbinger.yaml").asText());

    Map<String, String> env = new HashMap<>();
    Path passwordFile = dir.resolve("password");
    Files.writeString(passwordFile, "from-the-secret\n");
    for (JsonNode e : container.path("env")) {
      String name = e.path("name").asText();
      if (e.path("valueFrom").path("fieldRef").path("fieldPath").asText().equals("metadata.name")) {
        env.put(name, k8s.statefulSet.path("metadata").path("name").asText() + "-0");
      } else if (name.equals("HARBINGER_RABBITMQ_PASSWORD_FILE")) {
        assertThat(k8s.secretMountedAt(e.path("value").asText()))
            .as("the password file is on a volume of Secret harbinger-rabbitmq")
            .isEqualTo("harbinger-rabbitmq");
        env.put(name, passwordFile.toString());
      } else {
        env.put(name, e.path("value").asText());
      }
    }
    assertEnvironmentNamesAreSettings(env.keySet());
    List<String> args = texts(container.path("args"));
    assertThat(args).containsSequence("--config", k8s.configMountPath());

    SidecarConfig config = new ConfigLoader(env, new Properties()).load(Optional.of(file));

    assertThat(config.replicaId()).isEqualTo("harbinger-sidecar-0");
    assertThat(config.reportQueue()).isEqualTo("harbinger.reports.harbinger-sidecar-0");
    assertThat(config.rabbit().password()).isEqualTo("from-the-secret");
    assertThat(config.snapshotPath()).isPresent();
    assertThat(k8s.writableMountPaths()).anyMatch(p -> config.snapshotPath().get().startsWith(p));
  }

  @Test
  void k8s_portsProbesAndServices_matchTheSidecarsPorts() throws Exception {
    K8s k8s = k8s();
    assertThat(k8s.statefulSet.path("spec").path("replicas").asInt()).isGreaterThanOrEqualTo(2);
    JsonNode container = k8s.sidecarContainer();
    Map<String, Integer> ports = new LinkedHashMap<>();
    for (JsonNode p : container.path("ports")) {
      ports.put(p.path("name").asText(), p.path("containerPort").asInt());
    }
    assertThat(ports)
        .containsEntry("grpc", defaults.grpcPort())
        .containsEntry("metrics", defaults.metricsPort());
    assertThat(container.path("readinessProbe").path("grpc").path("port").asInt())
        .isEqualTo(defaults.grpcPort());
    JsonNode liveness = container.path("livenessProbe").path("httpGet");
    assertThat(liveness.path("path").asText()).isEqualTo("/metrics");
    assertThat(ports.get(liveness.path("port").asText())).isEqualTo(defaults.metricsPort());
    assertThat(container.path("resources").path("requests").has("cpu")).isTrue();
    assertThat(container.path("resources").path("requests").has("memory")).isTrue();

    JsonNode pod = k8s.statefulSet.path("spec").path("template");
    assertThat(pod.path("metadata").path("annotations").path("prometheus.io/port").asText())
        .isEqualTo(Integer.toString(defaults.metricsPort()));
    JsonNode security = pod.path("spec").path("securityContext");
    assertThat(security.path("runAsNonRoot").asBoolean()).isTrue();
    assertThat(security.path("runAsUser").asText())
        .isEqualTo(dockerStages().get("sidecar").user.split(":")[0]);

    JsonNode labels = pod.path("metadata").path("labels");
    assertThat(k8s.services).hasSizeGreaterThanOrEqualTo(1);
    for (JsonNode service : k8s.services) {
      assertThat(matches(service.path("spec").path("selector"), labels)).isTrue();
      for (JsonNode p : service.path("spec").path("ports")) {
        assertThat(ports).as("Service port target").containsKey(p.path("targetPort").asText());
        assertThat(p.path("port").asInt()).isEqualTo(ports.get(p.path("targetPort").asText()));
      }
    }
    assertThat(k8s.pdb).isNotNull();
    assertThat(matches(k8s.pdb.path("spec").path("selector").path("matchLabels"), labels)).isTrue();
    assertThat(k8s.pdb.path("spec").path("minAvailable").asInt())
        .isBetween(1, k8s.statefulSet.path("spec").path("replicas").asInt() - 1);
  }

  /**
   * The environment variables the sidecar reads: HARBINGER_ + a reference.yaml path, or the
   * password.
   */
  private static void assertEnvironmentNamesAreSettings(Set<String> names) throws IOException {
    Set<String> known = new TreeSet<>(Set.of("HARBINGER_RABBITMQ_PASSWORD"));
    try (InputStream in = ConfigLoader.class.getResourceAsStream("/reference.yaml")) {
      collectSettings(YAML.readTree(in), "", known);
    }
    for (String name : names) {
      if (name.startsWith("HARBINGER_")) {
        assertThat(known)
            .as("environment variable " + name + " names a sidecar setting")
            .contains(name);
      }
    }
  }

  private static void collectSettings(JsonNode node, String path, Set<String> out) {
    Iterator<Map.Entry<String, JsonNode>> fields = node.fields();
    while (fields.hasNext()) {
      Map.Entry<String, JsonNode> f = fields.next();
      if (f.getValue().isObject()) {
        collectSettings(f.getValue(), path + f.getKey() + ".", out);
      } else {
        String name =
            (path + f.getKey()).toUpperCase(Locale.ROOT).replace('.', '_').replace('-', '_');
        out.add("HARBINGER_" + name);
      }
    }
  }

  private static int brokerDefaultPort() {
    return new CommandLine(new BrokerMain()).getCommandSpec().findOption("--port").getValue();
  }

  private static List<JsonNode> readYaml(Path file) throws IOException {
    return YAML.readerFor(JsonNode.class).<JsonNode>readValues(file.toFile()).readAll();
  }

  private static List<String> names(JsonNode node) {
    List<String> names = new ArrayList<>();
    if (node.isArray()) {
      node.forEach(n -> names.add(n.asText()));
    } else {
      node.fieldNames().forEachRemaining(names::add);
    }
    return names;
  }

  private static List<String> texts(JsonNode array) {
    List<String> out = new ArrayList<>();
    array.forEach(n -> out.add(resolve(n.asText())));
    return out;
  }

  /** Resolves compose's ${NAME:-default} to its default, as compose does when NAME is unset. */
  private static String resolve(String value) {
    Matcher m = COMPOSE_VARIABLE.matcher(value);
    StringBuilder out = new StringBuilder();
    while (m.find()) {
      assertThat(m.group(2)).as("compose variable " + m.group(1) + " has a default").isNotNull();
      m.appendReplacement(out, Matcher.quoteReplacement(m.group(2)));
    }
    m.appendTail(out);
    return out.toString();
  }

  private static Map<String, String> composeEnvironment(JsonNode service) {
    Map<String, String> env = new LinkedHashMap<>();
    service
        .path("environment")
        .fields()
        .forEachRemaining(e -> env.put(e.getKey(), resolve(e.getValue().asText())));
    return env;
  }

  private static List<Integer> containerPorts(JsonNode service) {
    List<Integer> ports = new ArrayList<>();
    for (String mapping : texts(service.path("ports"))) {
      String container = mapping.substring(mapping.lastIndexOf(':') + 1).replace("/tcp", "");
      ports.add(Integer.parseInt(container));
    }
    return ports;
  }

  private static boolean matches(JsonNode selector, JsonNode labels) {
    if (selector.isEmpty()) {
      return false;
    }
    Iterator<Map.Entry<String, JsonNode>> it = selector.fields();
    while (it.hasNext()) {
      Map.Entry<String, JsonNode> e = it.next();
      if (!labels.path(e.getKey()).asText().equals(e.getValue().asText())) {
        return false;
      }
    }
    return true;
  }

  /** One stage of deploy/Dockerfile: the module it copies, its main class, ports, user and CMD. */
  private static final class Stage {
    String module;
    String mainClass;
    String user;
    final List<Integer> exposed = new ArrayList<>();
    final List<String> cmd = new ArrayList<>();
  }

  private static Map<String, Stage> dockerStages() throws IOException {
    Map<String, Stage> stages = new LinkedHashMap<>();
    Stage current = null;
    Pattern from = Pattern.compile("(?i)^FROM\\s+\\S+\\s+AS\\s+(\\S+)");
    Pattern copy = Pattern.compile("^COPY --from=build /out/([\\w-]+)/ /app/lib/");
    for (String line : Files.readAllLines(root.resolve("deploy/Dockerfile"))) {
      Matcher m = from.matcher(line);
      if (m.find()) {
        current = new Stage();
        stages.put(m.group(1), current);
        continue;
      }
      if (current == null) {
        continue;
      }
      Matcher c = copy.matcher(line);
      if (c.find()) {
        current.module = c.group(1);
      } else if (line.startsWith("ENTRYPOINT ")) {
        List<String> entry = texts(JSON.readTree(line.substring("ENTRYPOINT ".length())));
        assertThat(entry).containsSequence("-cp", "/app/lib/*");
        current.mainClass = entry.get(entry.size() - 1);
      } else if (line.startsWith("CMD ")) {
        current.cmd.addAll(texts(JSON.readTree(line.substring("CMD ".length()))));
      } else if (line.startsWith("EXPOSE ")) {
        for (String port : line.substring("EXPOSE ".length()).trim().split("\\s+")) {
          current.exposed.add(Integer.parseInt(port));
        }
      } else if (line.startsWith("USER ")) {
        current.user = line.substring("USER ".length()).trim();
      }
    }
    return stages;
  }

  /**
   * The launcher's commands: verb to {module, main class}, the module being the one whose sources
   * hold the class the root command runs for the verb.
   */
  private static Map<String, String[]> launcherCommands() throws IOException {
    Map<String, String[]> commands = new HashMap<>();
    for (Map.Entry<String, Class<?>> verb : Harbinger.VERBS.entrySet()) {
      String source = "src/main/java/" + verb.getValue().getName().replace('.', '/') + ".java";
      try (var modules = Files.list(root)) {
        String module =
            modules
                .filter(m -> Files.exists(m.resolve(source)))
                .map(m -> m.getFileName().toString())
                .findFirst()
                .orElse("(no module holds " + source + ")");
        commands.put(verb.getKey(), new String[] {module, verb.getValue().getName()});
      }
    }
    return commands;
  }

  private static K8s k8s() throws IOException {
    K8s k8s = new K8s();
    try (var files = Files.list(root.resolve("deploy/k8s"))) {
      for (Path file : files.filter(f -> f.toString().endsWith(".yaml")).sorted().toList()) {
        for (JsonNode doc : readYaml(file)) {
          switch (doc.path("kind").asText()) {
            case "StatefulSet" -> k8s.statefulSet = doc;
            case "ConfigMap" -> k8s.configMap = doc;
            case "Service" -> k8s.services.add(doc);
            case "PodDisruptionBudget" -> k8s.pdb = doc;
            default -> throw new AssertionError(file + ": unexpected kind " + doc.path("kind"));
          }
        }
      }
    }
    assertThat(k8s.statefulSet).as("the sidecar StatefulSet").isNotNull();
    assertThat(k8s.configMap).as("the sidecar ConfigMap").isNotNull();
    return k8s;
  }

  /** The documents of deploy/k8s. */
  private static final class K8s {
    JsonNode statefulSet;
    JsonNode configMap;
    JsonNode pdb;
    final List<JsonNode> services = new ArrayList<>();

    JsonNode podSpec() {
      return statefulSet.path("spec").path("template").path("spec");
    }

    JsonNode sidecarContainer() {
      assertThat(podSpec().path("containers")).hasSize(1);
      return podSpec().path("containers").get(0);
    }

    JsonNode volume(String name) {
      for (JsonNode v : podSpec().path("volumes")) {
        if (v.path("name").asText().equals(name)) {
          return v;
        }
      }
      for (JsonNode claim : statefulSet.path("spec").path("volumeClaimTemplates")) {
        if (claim.path("metadata").path("name").asText().equals(name)) {
          return claim;
        }
      }
      throw new AssertionError("no volume named " + name);
    }

    /** The Secret whose volume is mounted where the file lives, or null. */
    String secretMountedAt(String file) {
      for (JsonNode mount : sidecarContainer().path("volumeMounts")) {
        if (file.startsWith(mount.path("mountPath").asText() + "/")) {
          return volume(mount.path("name").asText()).path("secret").path("secretName").asText(null);
        }
      }
      return null;
    }

    /** Where the ConfigMap's harbinger.yaml is mounted. */
    String configMountPath() {
      for (JsonNode mount : sidecarContainer().path("volumeMounts")) {
        JsonNode source = volume(mount.path("name").asText()).path("configMap");
        if (source.path("name").asText().equals(configMap.path("metadata").path("name").asText())) {
          String path = mount.path("mountPath").asText();
          return mount.has("subPath") ? path : path + "/harbinger.yaml";
        }
      }
      throw new AssertionError("the ConfigMap is not mounted");
    }

    List<Path> writableMountPaths() {
      List<Path> paths = new ArrayList<>();
      for (JsonNode mount : sidecarContainer().path("volumeMounts")) {
        if (!mount.path("readOnly").asBoolean(false)) {
          paths.add(Path.of(mount.path("mountPath").asText()));
        }
      }
      return paths;
    }
  }
}
