package io.harbinger.experiments.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Holds a Grafana dashboard to the metrics a live process exports in Prometheus text: every metric
 * and legend label a panel or variable uses is exported, and every exported metric of the given
 * prefix is on the dashboard.
 */
final class DashboardCheck {

  private static final ObjectMapper JSON = new ObjectMapper();

  /** Harbinger's own metrics, and the JVM, process and gRPC server metrics beside them. */
  private static final Pattern METRIC =
      Pattern.compile("\\b(?:harbinger|jvm|process|grpc_server)_[a-z0-9_]+\\b");

  private DashboardCheck() {}

  static void queriesExactlyTheExportedMetrics(
      Path dashboardFile, Map<String, Set<String>> exported, String prefix) throws IOException {
    assertThat(exported).isNotEmpty();
    JsonNode dashboard = JSON.readTree(dashboardFile.toFile());
    Set<String> queried = new TreeSet<>();
    List<JsonNode> targets = new ArrayList<>();
    dashboard.findValues("targets").forEach(t -> t.forEach(targets::add));
    assertThat(targets).isNotEmpty();
    for (JsonNode target : targets) {
      String expr = target.path("expr").asText();
      Set<String> names = metricNames(expr);
      assertThat(names).as("metrics in " + expr).isNotEmpty();
      assertThat(exported.keySet()).as("metrics exported, for " + expr).containsAll(names);
      queried.addAll(names);
      Set<String> labels = new HashSet<>(Set.of("instance", "job", "pod", "namespace"));
      names.forEach(n -> labels.addAll(exported.get(n)));
      Matcher legend =
          Pattern.compile("\\{\\{(\\w+)}}").matcher(target.path("legendFormat").asText());
      while (legend.find()) {
        assertThat(labels).as("legend label of " + expr).contains(legend.group(1));
      }
    }
    for (JsonNode variable : dashboard.path("templating").path("list")) {
      assertThat(exported.keySet())
          .as("metrics of dashboard variable " + variable.path("name").asText())
          .containsAll(metricNames(variable.path("definition").asText()))
          .containsAll(metricNames(variable.path("query").path("query").asText()));
    }
    assertThat(queried)
        .as("every exported " + prefix + "* metric is on the dashboard")
        .containsAll(exported.keySet().stream().filter(n -> n.startsWith(prefix)).toList());
  }

  /** Sample names of the exported metrics, each with its label names. */
  static Map<String, Set<String>> samples(String scrape) {
    Map<String, Set<String>> samples = new TreeMap<>();
    for (String line : scrape.split("\n")) {
      if (line.isBlank() || line.startsWith("#") || !METRIC.matcher(line).lookingAt()) {
        continue;
      }
      int brace = line.indexOf('{');
      int space = line.indexOf(' ');
      int end = brace >= 0 && brace < space ? brace : space;
      Set<String> labels = samples.computeIfAbsent(line.substring(0, end), k -> new TreeSet<>());
      if (end == brace) {
        Matcher m = Pattern.compile("(\\w+)=\"").matcher(line.substring(brace, line.indexOf('}')));
        while (m.find()) {
          labels.add(m.group(1));
        }
      }
    }
    return samples;
  }

  static Set<String> metricNames(String expr) {
    Set<String> names = new TreeSet<>();
    Matcher m = METRIC.matcher(expr);
    while (m.find()) {
      names.add(m.group());
    }
    return names;
  }

  static Path repositoryRoot() {
    Path p = Path.of("").toAbsolutePath();
    while (p != null
        && !(Files.exists(p.resolve("mvnw")) && Files.isDirectory(p.resolve("deploy")))) {
      p = p.getParent();
    }
    assertThat(p).as("the repository root above " + Path.of("").toAbsolutePath()).isNotNull();
    return p;
  }
}
