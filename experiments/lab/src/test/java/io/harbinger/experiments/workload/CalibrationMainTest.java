package io.harbinger.experiments.workload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class CalibrationMainTest {

  @TempDir Path dir;
  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();
  private final Clock clock = Clock.fixed(Instant.parse("2026-11-29T20:00:00Z"), ZoneOffset.UTC);

  private int run(String... args) {
    CommandLine cmd = CalibrationMain.command(new PrintWriter(out, true), clock, args);
    cmd.setErr(new PrintWriter(err, true));
    return cmd.execute(args);
  }

  @Test
  void main_referenceKernels_printsAndRecordsCalibration() throws Exception {
    int code = run("--reference-kernels", "--cores", "2", "--write", "--out", dir.toString());

    assertThat(code).isZero();
    assertThat(out.toString()).contains("rate scale 1.73").contains("flash sale at 129%");
    List<Path> files;
    try (var s = Files.list(dir)) {
      files = s.toList();
    }
    assertThat(files).hasSize(1);
    assertThat(files.get(0).getFileName().toString())
        .isEqualTo("calibration-2026-11-29T20-00-00Z.json");
    JsonNode json = new ObjectMapper().readTree(files.get(0).toFile());
    assertThat(json.get("rate_scale").asDouble()).isCloseTo(1.733, within(0.01));
    assertThat(json.get("command").asText())
        .endsWith("--reference-kernels --cores 2 --write --out " + dir);
    assertThat(json.get("machine").get("available_processors").asInt()).isPositive();
    assertThat(json.get("phases").get("steady").get("utilisation").asDouble())
        .isCloseTo(0.6, within(1e-9));
  }

  @Test
  void main_badOptions_failWithMessage() {
    assertThat(run("--repeats", "0", "--reference-kernels")).isNotZero();
    assertThat(err.toString()).contains("--repeats must be in [1, 21]: 0");
    assertThat(run("--workers", "many")).isNotZero();
    assertThat(err.toString()).contains("--workers");
    assertThat(run("--reference-kernels", "--workers", "0")).isEqualTo(2);
    assertThat(err.toString()).contains("workers and cores must be at least 1: 0");
  }
}
