package io.harbinger.sidecar.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The README's main job, shortened: both runs complete, nothing is lost, the table and the page are
 * written.
 */
class DemoIT {

  @TempDir Path dir;

  @Test
  void demo_quickRun_printsTheTableAndWritesThePage() throws Exception {
    if (!"true".equalsIgnoreCase(System.getenv("CI"))) {
      io.harbinger.sidecar.demo.DemoRabbit.requireBroker();
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    Path page = dir.resolve("demo.html");
    int code =
        new CommandLine(new DemoCommand(new PrintStream(out, true, StandardCharsets.UTF_8)))
            .execute("--time-scale", "0.15", "--output", page.toString());
    String text = out.toString(StandardCharsets.UTF_8);
    assertThat(code).as(text).isZero();
    assertThat(text)
        .contains("RabbitMQ FIFO")
        .contains("RabbitMQ + Harbinger")
        .contains("short-job P50")
        .contains("What Harbinger learned")
        .doesNotContain("LOST");
    assertThat(Files.readString(page)).contains("<svg").contains("RabbitMQ + Harbinger");
  }
}
