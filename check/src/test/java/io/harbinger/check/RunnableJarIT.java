package io.harbinger.check;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The runnable jar the module builds, run as a user runs it: {@code java -jar harbinger-check.jar
 * history.csv} in a fresh JVM with nothing else on its class path.
 */
class RunnableJarIT {

  private static final Path JAR = Path.of("target", "harbinger-check.jar");

  @TempDir Path dir;

  private record Result(int exitCode, String out) {}

  private static Result java(Path workDir, String... args) throws Exception {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-jar");
    command.add(JAR.toAbsolutePath().toString());
    command.addAll(List.of(args));
    Process p =
        new ProcessBuilder(command).directory(workDir.toFile()).redirectErrorStream(true).start();
    byte[] out = p.getInputStream().readAllBytes();
    assertThat(p.waitFor(2, TimeUnit.MINUTES)).as("the check ended").isTrue();
    return new Result(p.exitValue(), new String(out, StandardCharsets.UTF_8));
  }

  private Path history() throws IOException {
    StringBuilder csv = new StringBuilder("arrival_s,duration_s,key\n");
    for (int i = 0; i < 600; i++) {
      String key = i % 3 == 0 ? "send_email" : i % 3 == 1 ? "resize_image" : "export_report";
      double seconds = i % 3 == 0 ? 0.05 : i % 3 == 1 ? 0.4 : 6;
      csv.append(i).append(',').append(seconds).append(',').append(key).append('\n');
    }
    csv.append("yesterday,1,send_email\n");
    return Files.writeString(dir.resolve("history.csv"), csv);
  }

  @Test
  void jar_checksABareCsvPath_withOnlyAJdk() throws Exception {
    history();

    Result r = java(dir, "--no-what-if", "history.csv");

    assertThat(r.exitCode()).as(r.out()).isZero();
    assertThat(r.out())
        .startsWith("harbinger check history.csv")
        .contains("verdict: turn it on")
        .contains("judged on 600 of the 601 rows read (99.8%); left out: 1 arrival_s is not a");
  }

  @Test
  void jar_namesAMissingFile_andExitsOne() throws Exception {
    Result r = java(dir, "absent.csv");

    assertThat(r.exitCode()).isEqualTo(1);
    assertThat(r.out().strip())
        .isEqualTo("harbinger check: cannot read trace file absent.csv: no such file");
  }
}
