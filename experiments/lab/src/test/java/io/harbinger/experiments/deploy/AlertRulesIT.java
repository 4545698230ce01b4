package io.harbinger.experiments.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import io.harbinger.testing.Prerequisite;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The Prometheus alerting rules in {@code deploy/prometheus}, checked by Prometheus's own {@code
 * promtool}: they parse, and each alert fires on the series that should fire it and stays quiet on
 * healthy ones ({@code harbinger-alerts.test.yaml}). {@code .ci/run} installs promtool (Debian's
 * {@code prometheus} package).
 */
class AlertRulesIT {

  private static final Prerequisite PROMTOOL =
      Prerequisite.of(
          "promtool",
          "Install it (Debian: apt-get install --no-install-recommends prometheus) or put it on PATH");

  private final Path rules = DeployDashboardIT.repositoryRoot().resolve("deploy/prometheus");

  private record Run(int exitCode, String output) {}

  private Run promtool(String... args) throws IOException, InterruptedException {
    Path binary = findPromtool();
    PROMTOOL.require(binary != null, "no promtool on PATH");
    List<String> command = new java.util.ArrayList<>(List.of(binary.toString()));
    command.addAll(List.of(args));
    Process p =
        new ProcessBuilder(command).directory(rules.toFile()).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(2, TimeUnit.MINUTES)).as("promtool ended").isTrue();
    return new Run(p.exitValue(), out);
  }

  private static Path findPromtool() {
    for (String dir : System.getenv().getOrDefault("PATH", "").split(java.io.File.pathSeparator)) {
      Path candidate = Path.of(dir, "promtool");
      if (Files.isExecutable(candidate)) {
        return candidate;
      }
    }
    return null;
  }

  @Test
  void alertRules_parse() throws Exception {
    Run r = promtool("check", "rules", "harbinger-alerts.yaml");

    assertThat(r.exitCode()).as(r.output()).isZero();
    assertThat(r.output()).contains("SUCCESS: 6 rules found");
  }

  @Test
  void alertRules_fireOnTheirCasesAndStayQuietOnHealthyOnes() throws Exception {
    Run r = promtool("test", "rules", "harbinger-alerts.test.yaml");

    assertThat(r.exitCode()).as(r.output()).isZero();
    assertThat(r.output()).contains("SUCCESS");
  }
}
