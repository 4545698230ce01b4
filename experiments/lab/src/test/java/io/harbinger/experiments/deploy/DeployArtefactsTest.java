package io.harbinger.experiments.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.harbinger.broker.BrokerMain;
import io.harbinger.experiments.Lab;
import io.harbinger.launcher.Harbinger;
import io.harbinger.launcher.Verb;
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
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;
import picocli.CommandLine;

/**
 * Keeps the deployment artefacts honest: the image modules of {@code images/}, {@code compose.yaml}
 * and {@code deploy/compose.loopback.yaml}, {@code deploy/k8s/*.yaml} and the Prometheus scrape
 * configs are checked against the code they deploy (main classes, the sidecar's real config loader
 * and its default ports, the bench's variables). That the images build and the stack runs is
 * checked by {@code scripts/compose-smoke.sh}. The Grafana dashboard is checked against a running
 * sidecar by {@code DeployDashboardIT} in the experiments.
 */
class DeployArtefactsTest {

  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Pattern COMPOSE_VARIABLE = Pattern.compile("\\$\\{(\\w+)(?::?-([^${}]*))?}");

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
  void images_eachImage_runsTheLaunchersMainClassFromTheModuleItHolds() throws Exception {
    Map<String, Image> images = images();
    Map<String, String[]> launcher = launcherCommands();
    assertThat(images).containsOnlyKeys("sidecar", "broker", "bench");
    for (Image image : images.values()) {
      assertThat(launcher)
          .as("./harbinger has a command named like image " + image.name)
          .containsKey(image.name);
      String[] command = launcher.get(image.name);
      assertThat(image.mainClass).as("main class of image " + image.name).isEqualTo(command[1]);
      assertThat(image.modules)
          .as("the Harbinger modules image " + image.name + " holds")
          .containsExactly(command[2]);
      Method main = Class.forName(image.mainClass).getMethod("main", String[].class);
      assertThat(Modifier.isStatic(main.getModifiers()) && Modifier.isPublic(main.getModifiers()))
          .as(image.mainClass + ".main is public static")
          .isTrue();
      Path source =
          root.resolve(command[0])
              .resolve("src/main/java")
              .resolve(image.mainClass.replace('.', '/') + ".java");
      assertThat(source).as("the source of " + image.mainClass + " in " + command[0]).exists();
    }
    Image common = images.get("sidecar");
    assertThat(common.user).as("every image runs as uid 10001, group 0").isEqualTo("10001:0");
    String commonPom = Files.readString(root.resolve("images/pom.xml"));
    assertThat(commonPom)
        .as("no directory of an image is writable by everyone")
        .doesNotContain("<mode>777</mode>")
        .contains("<mode>770</mode>");
    assertThat(commonPom).as("only the bench image carries /results").doesNotContain("/results");
    assertThat(root.resolve("images/layout/results")).doesNotExist();
    assertThat(Files.readString(root.resolve("images/bench-image/pom.xml"))).contains("/results");
    assertThat(common.jvmFlags).contains("-XX:MaxRAMPercentage=${image.heap-percent}");
    assertThat(images.get("sidecar").ports)
        .containsExactlyInAnyOrder(defaults.grpcPort(), defaults.metricsPort());
    assertThat(images.get("broker").modules)
        .as("the broker image carries the broker module, not the experiments")
        .containsExactly("broker");
    assertThat(images.get("broker").ports).containsExactly(brokerDefaultPort());
    assertThat(images.get("broker").args)
        .containsSequence("--port", Integer.toString(brokerDefaultPort()))
        .containsSequence("--bind", "0.0.0.0");
    assertThat(images.get("bench").args).containsSequence("--out", "/results/quick");
    assertThat(imagesProperty("image.base"))
        .as("the published base is an official Temurin JRE of the release the code targets")
        .matches("eclipse-temurin:21\\.\\d+\\.\\d+_\\d+-jre-\\w+");
    assertThat(Files.readString(root.resolve("pom.xml")))
        .as("the images are built in the images profile")
        .contains("<id>images</id>")
        .contains("<module>images</module>");
  }

  @Test
  void compose_sidecarEnvironment_isAcceptedByTheConfigLoaderAndMatchesItsPorts() throws Exception {
    JsonNode services = readYaml(root.resolve("compose.yaml")).get(0).path("services");
    assertThat(names(services)).contains("rabbitmq", "redis", "sidecar", "broker", "bench");
    assertThat(resolve(services.path("rabbitmq").path("image").asText()))
        .matches("rabbitmq:4\\.\\d+\\.\\d+-management");
    assertThat(resolve(services.path("redis").path("image").asText()))
        .matches("redis:([89]|7\\.[1-9])\\.\\d+(\\.\\d+)?");

    JsonNode sidecar = services.path("sidecar");
    Map<String, String> env = composeEnvironment(sidecar);
    assertEnvironmentNamesAreSettings(env.keySet());
    SidecarConfig config = new ConfigLoader(env, new Properties()).load(Optional.empty());
    assertThat(containerPorts(sidecar))
        .containsExactlyInAnyOrder(config.grpcPort(), config.metricsPort())
        .containsExactlyInAnyOrder(defaults.grpcPort(), defaults.metricsPort());
    assertThat(URI.create(config.rabbit().uri()).getHost()).isEqualTo("rabbitmq");
    assertThat(sidecar.path("healthcheck").path("test").toString())
        .as("the sidecar is healthy while /ready says SERVING, not merely while /metrics answers")
        .contains("/dev/tcp/127.0.0.1/" + config.metricsPort())
        .contains("GET /ready")
        .contains("'^SERVING'");

    JsonNode rabbit = services.path("rabbitmq");
    Map<String, String> rabbitEnv = composeEnvironment(rabbit);
    assertThat(config.rabbit().username()).isEqualTo(rabbitEnv.get("RABBITMQ_DEFAULT_USER"));
    assertThat(config.rabbit().password()).isEqualTo(rabbitEnv.get("RABBITMQ_DEFAULT_PASS"));

    Map<String, String> benchEnv = composeEnvironment(services.path("bench"));
    URI amqp = URI.create(benchEnv.get("RABBITMQ_URI"));
    assertThat(amqp.getHost()).isEqualTo("rabbitmq");
    assertThat(amqp.getPort()).isIn(containerPorts(rabbit));
    assertThat(amqp.getUserInfo()).as("credentials go apart from the URI").isNull();
    assertThat(benchEnv.get("RABBITMQ_USERNAME")).isEqualTo(rabbitEnv.get("RABBITMQ_DEFAULT_USER"));
    assertThat(benchEnv.get("RABBITMQ_PASSWORD")).isEqualTo(rabbitEnv.get("RABBITMQ_DEFAULT_PASS"));
    assertThat(benchEnv.get("HARBINGER_SIDECAR_ADDRESS"))
        .as("the bench's sidecar arm watches the sidecar service")
        .isEqualTo("sidecar:" + config.grpcPort());
    URI redis = URI.create(benchEnv.get("REDIS_URI"));
    assertThat(redis.getHost()).isEqualTo("redis");
    assertThat(redis.getPort()).isIn(containerPorts(services.path("redis")));

    JsonNode broker = services.path("broker");
    List<String> brokerCommand = texts(broker.path("command"));
    assertThat(brokerCommand).containsSequence("--port", Integer.toString(brokerDefaultPort()));
    assertThat(containerPorts(broker)).containsExactly(brokerDefaultPort());
    assertThat(broker.path("healthcheck").path("test").toString())
        .contains("/dev/tcp/127.0.0.1/" + brokerDefaultPort());
    assertThat(benchEnv.get("HARBINGER_BROKER_ADDRESS"))
        .as("the bench's broker arm runs on the broker service")
        .isEqualTo("broker:" + brokerDefaultPort());
    List<String> benchCommand = texts(services.path("bench").path("command"));
    String arms = benchCommand.get(benchCommand.indexOf("--arms") + 1);
    assertThat(arms.split(","))
        .contains("rabbitmq-fifo", "rabbitmq-sidecar")
        .filteredOn(a -> a.startsWith("broker-"))
        .as("one broker arm: the broker service runs one policy")
        .containsExactly("broker-" + brokerCommand.get(brokerCommand.indexOf("--policy") + 1));

    Map<String, Image> images = images();
    for (String name : names(services)) {
      JsonNode service = services.path(name);
      assertThat(service.has("build"))
          .as(name + " is built by the build, not by compose")
          .isFalse();
      String image = resolve(service.path("image").asText());
      if (!image.startsWith("harbinger/")) {
        assertThat(image).as("the image of " + name + " is pinned").matches(".+:[^:]*\\d[^:]*");
      } else {
        String imageName = image.substring("harbinger/".length(), image.indexOf(':'));
        assertThat(images).as("an image module builds " + image).containsKey(imageName);
        assertThat(image).endsWith(":" + imagesProperty("image.tag"));
      }
      if (name.equals("bench")) {
        assertThat(texts(service.path("profiles")))
            .as("the bench is a job of its own profile")
            .containsExactly("bench");
        assertThat(service.path("restart").asText()).isEqualTo("no");
      } else {
        assertThat(service.path("restart").asText())
            .as("restart policy of " + name)
            .isEqualTo("unless-stopped");
        assertThat(service.has("healthcheck")).as("healthcheck of " + name).isTrue();
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
  void composeLoopback_everyService_isOnTheHostNetworkOnLoopbackPortsOfItsOwn() throws Exception {
    JsonNode base = readYaml(root.resolve("compose.yaml")).get(0).path("services");
    JsonNode over = readYaml(root.resolve("deploy/compose.loopback.yaml")).get(0).path("services");
    Set<Integer> taken =
        Set.of(
            5672,
            5674,
            25672,
            25674,
            4369,
            6379,
            defaults.grpcPort(),
            defaults.metricsPort(),
            brokerDefaultPort());
    for (String name : names(base)) {
      if (texts(base.path(name).path("profiles")).contains("monitoring")) {
        continue;
      }
      JsonNode service = over.path(name);
      assertThat(service.path("network_mode").asText())
          .as(name + " on the host network")
          .isEqualTo("host");
      if (base.path(name).has("ports")) {
        assertThat(service.path("ports").isArray() && service.path("ports").isEmpty())
            .as(name + " publishes nothing (ports: !reset [])")
            .isTrue();
      }
    }
    for (String name : List.of("rabbitmq", "redis")) {
      assertThat(resolve(over.path(name).path("image").asText()))
          .as("the local stand-in image of " + name)
          .startsWith("harbinger-local/");
    }

    Map<String, String> rabbit = composeEnvironment(over.path("rabbitmq"));
    assertThat(rabbit)
        .containsEntry("RABBITMQ_NODE_IP_ADDRESS", "127.0.0.1")
        .containsEntry("ERL_EPMD_ADDRESS", "127.0.0.1");
    int amqp = Integer.parseInt(rabbit.get("RABBITMQ_NODE_PORT"));
    int dist = Integer.parseInt(rabbit.get("RABBITMQ_DIST_PORT"));
    int epmd = Integer.parseInt(rabbit.get("ERL_EPMD_PORT"));

    Map<String, String> sidecarEnv = composeEnvironment(base.path("sidecar"));
    sidecarEnv.putAll(composeEnvironment(over.path("sidecar")));
    assertEnvironmentNamesAreSettings(sidecarEnv.keySet());
    SidecarConfig sidecar = new ConfigLoader(sidecarEnv, new Properties()).load(Optional.empty());
    assertThat(sidecar.grpcBindAddress()).contains("127.0.0.1");
    assertThat(sidecar.metricsBindAddress()).contains("127.0.0.1");
    assertThat(URI.create(sidecar.rabbit().uri()).getPort()).isEqualTo(amqp);
    assertThat(resolve(over.path("sidecar").path("healthcheck").path("test").toString()))
        .contains("/dev/tcp/127.0.0.1/" + sidecar.metricsPort())
        .contains("GET /ready");

    List<String> redisCommand = texts(over.path("redis").path("command"));
    assertThat(redisCommand).containsSequence("--bind", "127.0.0.1");
    int redisPort = Integer.parseInt(redisCommand.get(redisCommand.indexOf("--port") + 1));
    assertThat(texts(over.path("redis").path("healthcheck").path("test")))
        .containsSequence("-p", Integer.toString(redisPort));

    List<String> brokerCommand = texts(over.path("broker").path("command"));
    assertThat(brokerCommand).containsSequence("--bind", "127.0.0.1");
    int brokerPort = Integer.parseInt(brokerCommand.get(brokerCommand.indexOf("--port") + 1));
    assertThat(resolve(over.path("broker").path("healthcheck").path("test").toString()))
        .contains("/dev/tcp/127.0.0.1/" + brokerPort);

    Map<String, String> bench = composeEnvironment(over.path("bench"));
    assertThat(URI.create(bench.get("RABBITMQ_URI")).getPort()).isEqualTo(amqp);
    assertThat(URI.create(bench.get("REDIS_URI")).getPort()).isEqualTo(redisPort);
    assertThat(bench.get("HARBINGER_SIDECAR_ADDRESS")).isEqualTo("127.0.0.1:" + sidecar.grpcPort());
    assertThat(bench.get("HARBINGER_BROKER_ADDRESS")).isEqualTo("127.0.0.1:" + brokerPort);

    List<Integer> ports =
        List.of(amqp, dist, epmd, redisPort, sidecar.grpcPort(), sidecar.metricsPort(), brokerPort);
    assertThat(ports)
        .as("ports of their own")
        .doesNotHaveDuplicates()
        .doesNotContainAnyElementsOf(taken);
  }

  @Test
  void k8s_memoryLimit_leavesRoomBesideTheHeapAndTheDirectBuffers() throws Exception {
    JsonNode container = k8s().sidecarContainer();
    int limitMi = mebibytes(container.path("resources").path("limits").path("memory").asText());
    int heapPercent = Integer.parseInt(imagesProperty("image.heap-percent"));
    String toolOptions = "";
    for (JsonNode e : container.path("env")) {
      if (e.path("name").asText().equals("JAVA_TOOL_OPTIONS")) {
        toolOptions = e.path("value").asText();
      }
    }
    Matcher direct = Pattern.compile("-XX:MaxDirectMemorySize=(\\d+)m").matcher(toolOptions);
    assertThat(direct.find()).as("the direct buffers are bounded: " + toolOptions).isTrue();
    int heapMi = limitMi * heapPercent / 100;
    int directMi = Integer.parseInt(direct.group(1));
    assertThat(limitMi - heapMi - directMi)
        .as(
            "MiB of a %d Mi limit left to metaspace, code cache, threads and GC beside a %d Mi heap"
                + " and %d Mi of direct buffers",
            limitMi, heapMi, directMi)
        .isGreaterThanOrEqualTo(128);
  }

  private static int mebibytes(String quantity) {
    Matcher m = Pattern.compile("(\\d+)(Mi|Gi)").matcher(quantity);
    assertThat(m.matches()).as("a memory quantity in Mi or Gi: " + quantity).isTrue();
    return Integer.parseInt(m.group(1)) * (m.group(2).equals("Gi") ? 1024 : 1);
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
        .isEqualTo(images().get("sidecar").user.split(":")[0]);

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

  /**
   * Resolves compose's ${NAME:-default} to its default, as compose does when NAME is unset, the
   * innermost first: ${A:-${B:-b}} is b.
   */
  private static String resolve(String value) {
    String current = value;
    while (true) {
      Matcher m = COMPOSE_VARIABLE.matcher(current);
      StringBuilder out = new StringBuilder();
      boolean found = false;
      while (m.find()) {
        found = true;
        assertThat(m.group(2)).as("compose variable " + m.group(1) + " has a default").isNotNull();
        m.appendReplacement(out, Matcher.quoteReplacement(m.group(2)));
      }
      m.appendTail(out);
      if (!found) {
        return current;
      }
      current = out.toString();
    }
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

  /** One image module of images/: what Jib puts in the image and how it starts it. */
  private static final class Image {
    String name;
    String mainClass;
    String user;
    final List<String> modules = new ArrayList<>();
    final List<String> jvmFlags = new ArrayList<>();
    final List<String> args = new ArrayList<>();
    final List<Integer> ports = new ArrayList<>();
  }

  /** The image modules listed in images/pom.xml, by image name. */
  private static Map<String, Image> images() throws Exception {
    Document parent = xml(root.resolve("images/pom.xml"));
    Element common = jib(parent);
    Map<String, Image> images = new LinkedHashMap<>();
    for (String module : textsOf(parent.getDocumentElement(), "modules", "module")) {
      Document pom = xml(root.resolve("images").resolve(module).resolve("pom.xml"));
      Image image = new Image();
      image.name = property(pom, "image.name");
      image.mainClass = property(pom, "image.main-class");
      image.user = textOf(child(common, "container"), "user");
      image.jvmFlags.addAll(textsOf(child(common, "container"), "jvmFlags", "jvmFlag"));
      Element own = child(jib(pom), "container");
      for (String port : textsOf(own, "ports", "port")) {
        image.ports.add(Integer.parseInt(port));
      }
      image.args.addAll(textsOf(own, "args", "arg"));
      for (Element dependency :
          elements(child(pom.getDocumentElement(), "dependencies"), "dependency")) {
        if (textOf(dependency, "groupId").startsWith("io.harbinger")) {
          image.modules.add(textOf(dependency, "artifactId"));
        }
      }
      images.put(image.name, image);
    }
    return images;
  }

  /** A property of images/pom.xml, such as image.base. */
  private static String imagesProperty(String name) throws Exception {
    return property(xml(root.resolve("images/pom.xml")), name);
  }

  private static Document xml(Path file) throws Exception {
    DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
    factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
    return factory.newDocumentBuilder().parse(file.toFile());
  }

  private static String property(Document pom, String name) {
    return textOf(child(pom.getDocumentElement(), "properties"), name);
  }

  /** The configuration of the Jib plugin in a pom's build (plugins or pluginManagement). */
  private static Element jib(Document pom) {
    NodeList plugins = pom.getElementsByTagName("plugin");
    for (int i = 0; i < plugins.getLength(); i++) {
      Element plugin = (Element) plugins.item(i);
      if (textOf(plugin, "artifactId").equals("jib-maven-plugin")) {
        return child(plugin, "configuration");
      }
    }
    throw new AssertionError("no jib-maven-plugin in " + pom.getDocumentURI());
  }

  private static Element child(Element parent, String name) {
    List<Element> found = elements(parent, name);
    assertThat(found).as("<" + name + "> in <" + parent.getTagName() + ">").hasSize(1);
    return found.get(0);
  }

  private static List<Element> elements(Element parent, String name) {
    List<Element> out = new ArrayList<>();
    for (Node n = parent.getFirstChild(); n != null; n = n.getNextSibling()) {
      if (n instanceof Element e && e.getTagName().equals(name)) {
        out.add(e);
      }
    }
    return out;
  }

  private static String textOf(Element parent, String name) {
    return child(parent, name).getTextContent().strip();
  }

  private static List<String> textsOf(Element parent, String list, String item) {
    List<String> out = new ArrayList<>();
    for (Element l : elements(parent, list)) {
      elements(l, item).forEach(e -> out.add(e.getTextContent().strip()));
    }
    return out;
  }

  /**
   * The commands of ./harbinger, the product's and the lab's: verb to {module folder, main class,
   * module artifactId}, the module being the one whose sources hold the class the root command runs
   * for the verb.
   */
  private static Map<String, String[]> launcherCommands() throws IOException {
    Map<String, String[]> commands = new HashMap<>();
    Map<String, Verb> verbs = new LinkedHashMap<>(Harbinger.ROOT.verbs());
    verbs.putAll(Lab.ROOT.verbs());
    List<Path> modules = new ArrayList<>();
    for (Path dir : List.of(root, root.resolve("experiments"))) {
      try (var list = Files.list(dir)) {
        list.filter(m -> Files.exists(m.resolve("pom.xml"))).forEach(modules::add);
      }
    }
    for (Verb verb : verbs.values()) {
      String source = "src/main/java/" + verb.type().getName().replace('.', '/') + ".java";
      Path module =
          modules.stream()
              .filter(m -> Files.exists(m.resolve(source)))
              .findFirst()
              .orElseThrow(() -> new AssertionError("no module holds " + source));
      String artifactId;
      try {
        artifactId = textOf(xml(module.resolve("pom.xml")).getDocumentElement(), "artifactId");
      } catch (Exception e) {
        throw new IOException(module + "/pom.xml: " + e.getMessage(), e);
      }
      commands.put(
          verb.name(),
          new String[] {root.relativize(module).toString(), verb.type().getName(), artifactId});
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
