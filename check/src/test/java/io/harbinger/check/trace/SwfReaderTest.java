package io.harbinger.check.trace;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.harbinger.predictor.Keys;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SwfReaderTest {

  @TempDir Path dir;

  @Test
  void read_validLog_givesJobsInSecondsKeyedByExecutable() throws IOException {
    Trace t = Fixtures.read("swf", Fixtures.resource("small.swf"));

    assertThat(t.size()).isEqualTo(5);
    assertThat(t.arrivalNanos(1)).isEqualTo(10_000_000_000L);
    assertThat(t.durationNanos(1)).isEqualTo(20_000_000_000L);
    assertThat(t.key(0)).isEqualTo("exe=3");
    assertThat(t.key(2)).isEqualTo("exe=4");
    assertThat(t.keyCount()).isEqualTo(2);
    assertThat(t.sizeHint(4)).isEqualTo(4);
    assertThat(t.resolutionNanos()).isEqualTo(1_000_000_000L);
    assertThat(t.report().notes())
        .anyMatch(n -> n.contains("UnixStartTime 1000000000"))
        .anyMatch(n -> n.contains("executable"));
  }

  @Test
  void read_failedAndCancelledJobs_areKeptAndCounted() throws IOException {
    Trace t = Fixtures.read("swf", Fixtures.resource("small.swf"));

    assertThat(t.report().kept())
        .extracting(ReadReport.RowTally::reason, ReadReport.RowTally::count)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple("status 0 (failed)", 1L),
            org.assertj.core.groups.Tuple.tuple("status 5 (cancelled)", 1L));
    assertThat(t.report().kept().get(0).firstLines()).containsExactly(7L);
  }

  @Test
  void read_statusCompleted_skipsJobsThatDidNotComplete() throws IOException {
    Trace t = Fixtures.read("swf", Fixtures.resource("small.swf"), "status=completed");

    assertThat(t.size()).isEqualTo(3);
    assertThat(t.keyCount()).isEqualTo(1);
    assertThat(t.report().rowsSkipped()).isEqualTo(2);
    assertThat(t.report().kept()).isEmpty();
  }

  @Test
  void read_keyOptions_buildUserQueueAndUserKeys() throws IOException {
    Trace byUserQueue = Fixtures.read("swf", Fixtures.resource("small.swf"), "key=user-queue");
    Trace byUser = Fixtures.read("swf", Fixtures.resource("small.swf"), "key=user");

    assertThat(byUserQueue.key(0)).isEqualTo("user=7\u001Fqueue=1");
    assertThat(byUserQueue.key(4)).isEqualTo("user=7\u001Fqueue=2");
    assertThat(byUserQueue.keyCount()).isEqualTo(3);
    assertThat(byUser.keyCount()).isEqualTo(2);
    assertThat(byUserQueue.report().notes()).anyMatch(n -> n.contains("user and queue"));
  }

  @Test
  void read_userExecutableKey_hasTheUserAsItsProducer() throws IOException {
    Trace t = Fixtures.read("swf", Fixtures.resource("small.swf"), "key=user-executable");

    assertThat(t.key(0)).isEqualTo("user=7\u001Fexe=3");
    assertThat(t.key(2)).isEqualTo("user=8\u001Fexe=4");
    assertThat(t.keyCount()).isEqualTo(2);
    assertThat(t.key(0)).isEqualTo(Keys.of("user=7", "exe=3"));
    assertThat(t.report().notes()).anyMatch(n -> n.contains("user and executable"));
  }

  @Test
  void read_maxProcs_skipsParallelJobs() throws IOException {
    Trace t = Fixtures.read("swf", Fixtures.resource("small.swf"), "maxprocs=1");

    assertThat(t.size()).isEqualTo(3);
    assertThat(t.report().skipped().get(0).reason()).isEqualTo("more than 1 processors");
    assertThat(t.report().skipped().get(0).firstLines()).containsExactly(6L, 9L);
  }

  @Test
  void read_zeroSkip_dropsJobsWithZeroRunTime() throws IOException {
    Trace t = Fixtures.read("swf", Fixtures.resource("small.swf"), "zero=skip");

    assertThat(t.size()).isEqualTo(4);
    assertThat(t.report().skipped().get(0).firstLines()).containsExactly(8L);
  }

  @Test
  void read_malformedRows_areSkippedWithReasonsAndLineNumbers() throws IOException {
    Trace t = Fixtures.read("swf", Fixtures.resource("malformed.swf"));

    assertThat(t.size()).isEqualTo(1);
    ReadReport r = t.report();
    assertThat(r.rowsRead()).isEqualTo(7);
    assertThat(r.rowsUsed()).isEqualTo(1);
    assertThat(r.skipped())
        .extracting(ReadReport.RowTally::reason, x -> x.firstLines())
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple("expected 18 fields", List.of(3L)),
            org.assertj.core.groups.Tuple.tuple("run time unknown (negative)", List.of(4L, 9L)),
            org.assertj.core.groups.Tuple.tuple(
                "a field used (2, 4, 5, 11, 12, 14 or 15) is not an integer", List.of(5L)),
            org.assertj.core.groups.Tuple.tuple("submit time unknown (negative)", List.of(6L)),
            org.assertj.core.groups.Tuple.tuple("executable unknown (-1)", List.of(8L)));
    assertThat(String.join("\n", r.describe()))
        .contains("2: run time unknown (negative) (lines 4, 9)");
  }

  @Test
  void read_noExecutables_failsWithHintToKeyByUserAndQueue() throws IOException {
    Path f = dir.resolve("noexe.swf");
    Files.writeString(f, "1 0 0 10 1 -1 -1 1 60 -1 1 7 -1 -1 1 -1 -1 -1\n");

    assertThatThrownBy(() -> Fixtures.read("swf", f))
        .isInstanceOf(TraceException.class)
        .hasMessageContaining("no usable row in " + f)
        .hasMessageContaining("executable unknown (-1)")
        .hasMessageContaining("?key=user-queue");
  }

  @Test
  void read_gzipWithoutGzExtension_isDetectedByMagicBytes() throws IOException {
    Path gz = Fixtures.gzip(Fixtures.resource("small.swf"), dir.resolve("log.swf"));

    Trace t = Fixtures.read("swf", gz);

    assertThat(t.size()).isEqualTo(5);
    assertThat(t.durationNanos(2)).isEqualTo(300_000_000_000L);
  }

  @Test
  void read_plainFileNamedGz_isReadAsPlainText() throws IOException {
    Path plain = Files.copy(Fixtures.resource("small.swf"), dir.resolve("log.swf.gz"));

    assertThat(Fixtures.read("swf", plain).size()).isEqualTo(5);
  }

  @Test
  void read_outOfOrderSubmits_sortsStablyByArrival() throws IOException {
    Path f = dir.resolve("order.swf");
    Files.writeString(
        f,
        """
        1 50 0 1 1 -1 -1 1 60 -1 1 7 -1 1 1 -1 -1 -1
        2 10 0 2 1 -1 -1 1 60 -1 1 7 -1 2 1 -1 -1 -1
        3 50 0 3 1 -1 -1 1 60 -1 1 7 -1 3 1 -1 -1 -1
        4 10 0 4 1 -1 -1 1 60 -1 1 7 -1 4 1 -1 -1 -1
        """);

    Trace t = Fixtures.read("swf", f);

    assertThat(List.of(t.key(0), t.key(1), t.key(2), t.key(3)))
        .containsExactly("exe=2", "exe=4", "exe=1", "exe=3");
  }

  @Test
  void read_headerOnly_failsNamingTheFile() {
    Path f = Fixtures.resource("header-only.swf");

    assertThatThrownBy(() -> Fixtures.read("swf", f))
        .isInstanceOf(TraceException.class)
        .hasMessage("no usable row in " + f + ": the file holds no data row");
  }

  @Test
  void read_emptyFile_failsNamingTheFile() throws IOException {
    Path f = Files.writeString(dir.resolve("empty.swf"), "");

    assertThatThrownBy(() -> Fixtures.read("swf", f))
        .isInstanceOf(TraceException.class)
        .hasMessageContaining("no usable row in " + f);
  }

  @Test
  void read_missingFile_failsNamingTheFile() {
    Path f = dir.resolve("absent.swf");

    assertThatThrownBy(() -> Fixtures.read("swf", f))
        .isInstanceOf(TraceException.class)
        .hasMessage("cannot read trace file " + f + ": no such file");
  }

  @Test
  void read_directory_failsNamingIt() {
    assertThatThrownBy(() -> Fixtures.read("swf", dir))
        .isInstanceOf(TraceException.class)
        .hasMessage("cannot read trace file " + dir + ": it is a directory");
  }

  @Test
  void read_truncatedGzip_failsNamingTheFile() throws IOException {
    Path gz = Fixtures.gzip(Fixtures.resource("small.swf"), dir.resolve("whole.gz"));
    byte[] bytes = Files.readAllBytes(gz);
    Path cut = Files.write(dir.resolve("cut.gz"), java.util.Arrays.copyOf(bytes, bytes.length / 2));

    assertThatThrownBy(() -> Fixtures.read("swf", cut))
        .isInstanceOf(TraceException.class)
        .hasMessageStartingWith("cannot read trace file " + cut + " after line");
  }

  @Test
  void read_sizeRequested_givesTheRequestedRunTimeAsSizeHint() throws IOException {
    Path log =
        Files.writeString(
            dir.resolve("requested.swf"),
            Files.readString(Fixtures.resource("small.swf"))
                + "    6       40    0     12    4  -1 -1  4   -1 -1 1  7 -1  3  2 -1 -1 -1\n");

    Trace t = Fixtures.read("swf", log, "size=requested");

    assertThat(t.sizeHint(0)).isEqualTo(60);
    assertThat(t.sizeHint(2)).isEqualTo(600);
    assertThat(t.sizeHint(5)).isEqualTo(-1);
    assertThat(t.report().notes()).anyMatch(n -> n.contains("requested run time (field 9"));
    assertThat(Fixtures.read("swf", log).sizeHint(2)).isEqualTo(1);
  }

  @Test
  void read_sizeRequestedNotANumber_skipsTheRowNamingTheField() throws IOException {
    Path log =
        Files.writeString(
            dir.resolve("bad.swf"),
            Files.readString(Fixtures.resource("small.swf"))
                + "    6       40    0     12    4  -1 -1  4  abc -1 1  7 -1  3  2 -1 -1 -1\n");

    Trace t = Fixtures.read("swf", log, "size=requested");

    assertThat(t.size()).isEqualTo(5);
    assertThat(t.report().skipped().get(0).reason())
        .isEqualTo("requested time (field 9, size=requested) is not a number");
    assertThat(Fixtures.read("swf", log).size()).isEqualTo(6);
  }

  @Test
  void read_unknownSizeChoice_failsListingTheChoices() {
    assertThatThrownBy(() -> Fixtures.read("swf", Fixtures.resource("small.swf"), "size=nodes"))
        .isInstanceOf(TraceException.class)
        .hasMessageContaining("option size must be one of processors, requested: nodes");
  }

  @Test
  void read_unknownKeyChoice_failsListingTheChoices() {
    assertThatThrownBy(() -> Fixtures.read("swf", Fixtures.resource("small.swf"), "key=group"))
        .isInstanceOf(TraceException.class)
        .hasMessageContaining(
            "option key must be one of executable, user, user-executable, user-queue: group");
  }
}
