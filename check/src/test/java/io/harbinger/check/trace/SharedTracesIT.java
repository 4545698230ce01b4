package io.harbinger.check.trace;

import static org.assertj.core.api.Assertions.assertThat;

import io.harbinger.testing.Environment;
import io.harbinger.testing.Prerequisite;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * Replays the public traces of ../shared/traces (they are never copied into the repository),
 * checking the counts the reader must reproduce.
 *
 * <p>The traces live outside the repository ({@code HARBINGER_TRACES} overrides where). Where they
 * are missing, the tests are skipped with one line saying so, and fail under {@code CI=true}, so
 * that CI cannot pass without having read them.
 */
class SharedTracesIT {

  private static final Path DIR =
      Path.of(Environment.current().get("HARBINGER_TRACES").orElse("../../shared/traces"));

  private static final Prerequisite TRACES =
      Prerequisite.of(
          "the shared traces folder",
          "Set HARBINGER_TRACES to the folder holding the public traces (shared/traces beside the"
              + " repository on the project's machines)");

  private static Path present(String file) {
    Path p = DIR.resolve(file);
    TRACES.require(
        Files.isReadable(p),
        Files.isDirectory(DIR)
            ? "no readable " + p.toAbsolutePath().normalize()
            : "no folder " + DIR.toAbsolutePath().normalize());
    return p;
  }

  private static Trace read(String format, String file, String options) throws TraceException {
    Path p = present(file);
    return TraceFormat.read(format + ":" + p + (options.isEmpty() ? "" : "?" + options));
  }

  @Test
  void lpcEgee_keyedByUserAndQueue_readsEveryJobWithARunTime() throws TraceException {
    long start = System.nanoTime();
    Trace t = read("swf", "LPC-EGEE-2004-1.2-cln.swf.gz", "key=user-queue");
    long millis = (System.nanoTime() - start) / 1_000_000;

    assertThat(t.report().rowsRead()).isEqualTo(234_889);
    assertThat(t.report().rowsUsed()).isEqualTo(220_695);
    assertThat(t.report().skipped().get(0).count()).isEqualTo(14_194);
    assertThat(t.keyCount()).isEqualTo(221);
    System.out.printf("LPC-EGEE read in %d ms%n", millis);
  }

  @Test
  void lpcEgee_withoutZeroRunTimes_matchesTheSeedPapersConversion() throws TraceException {
    Trace t = read("swf", "LPC-EGEE-2004-1.2-cln.swf.gz", "key=user-queue,zero=skip");

    assertThat(t.size()).isEqualTo(214_322);
    assertThat(t.keyCount()).isEqualTo(219);
  }

  @Test
  void lpcEgee_byExecutable_failsBecauseTheLogHasNone() {
    Path p = present("LPC-EGEE-2004-1.2-cln.swf.gz");

    org.assertj.core.api.Assertions.assertThatThrownBy(() -> TraceFormat.read("swf:" + p))
        .hasMessageContaining("234,889 rows read, all skipped")
        .hasMessageContaining("?key=user-queue");
  }

  @Test
  void ctcSp2_byExecutable_hasTheArchivesExecutableCount() throws TraceException {
    Trace t = read("swf", "CTC-SP2-1996-3.1-cln.swf.gz", "");

    assertThat(t.size()).isEqualTo(77_222);
    assertThat(t.keyCount()).isEqualTo(12_303);
  }

  @Test
  void llnlThunder_byExecutable_skipsUnknownSubmitsAndExecutables() throws TraceException {
    Trace t = read("swf", "LLNL-Thunder-2007-1.1-cln.swf.gz", "");

    assertThat(t.report().rowsRead()).isEqualTo(121_039);
    assertThat(t.size()).isEqualTo(119_818);
  }

  @Test
  void alibaba_byModelVersion_keepsFinishedRequests() throws TraceException {
    Trace t = read("alibaba2026", "alibaba-2026-lora-requests.csv", "");

    assertThat(t.report().rowsRead()).isEqualTo(26_823);
    assertThat(t.size()).isEqualTo(26_790);
  }

  @Test
  void azureExcerpt_readsEveryInvocation() throws TraceException {
    Trace t = read("azure2021", "azure-functions-2021-excerpt.csv", "");

    assertThat(t.size()).isEqualTo(199);
    assertThat(t.report().rowsSkipped()).isZero();
  }
}
