package io.harbinger.check.trace;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.groups.Tuple.tuple;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AzureFunctionsReaderTest {

  @TempDir Path dir;

  @Test
  void read_valid_arrivalIsEndMinusDurationAndKeyIsAppSlashFunc() throws IOException {
    Trace t = Fixtures.read("azure2021", Fixtures.resource("azure-small.csv"));

    assertThat(t.size()).isEqualTo(3);
    assertThat(t.arrivalNanos(0)).isEqualTo(3_000_000_000L);
    assertThat(t.key(0)).isEqualTo("a1/f2");
    assertThat(t.arrivalNanos(1)).isEqualTo(10_000_000_000L);
    assertThat(t.durationNanos(1)).isEqualTo(500_000_000L);
    assertThat(t.arrivalNanos(2)).isEqualTo(10_000_000_000L);
    assertThat(t.key(2)).isEqualTo("a2/f1");
    assertThat(t.resolutionNanos()).isEqualTo(1_000_000L);
  }

  @Test
  void read_aliasAzureAndKeyApp_keysByAppAlone() throws IOException {
    Trace t = TraceFormat.read("azure:" + Fixtures.resource("azure-small.csv") + "?key=app");

    assertThat(t.keyCount()).isEqualTo(2);
    assertThat(t.key(0)).isEqualTo("a1");
  }

  @Test
  void read_malformedRows_areSkippedWithLineNumbers() throws IOException {
    Trace t = Fixtures.read("azure2021", Fixtures.resource("azure-malformed.csv"));

    assertThat(t.size()).isEqualTo(2);
    assertThat(t.report().skipped())
        .extracting(ReadReport.RowTally::reason, ReadReport.RowTally::firstLines)
        .containsExactly(
            tuple("expected 4 fields", List.of(3L)),
            tuple("empty app or func", List.of(4L)),
            tuple("end_timestamp is not a number", List.of(5L)),
            tuple("negative duration", List.of(6L)),
            tuple("duration is not a number", List.of(7L)));
  }

  @Test
  void read_wrongHeader_failsAtLineOne() throws IOException {
    Path f = Files.writeString(dir.resolve("x.csv"), "app,func,duration\na,b,1\n");

    assertThatThrownBy(() -> Fixtures.read("azure2021", f))
        .isInstanceOf(TraceException.class)
        .hasMessage(
            f
                + " line 1: expected the header app,func,end_timestamp,duration, found: app,func,duration");
  }

  @Test
  void read_headerOnly_failsNamingTheFile() throws IOException {
    Path f = Files.writeString(dir.resolve("h.csv"), "app,func,end_timestamp,duration\n");

    assertThatThrownBy(() -> Fixtures.read("azure2021", f))
        .isInstanceOf(TraceException.class)
        .hasMessage("no usable row in " + f + ": the file holds no data row");
  }

  @Test
  void read_emptyFile_failsNamingTheFile() throws IOException {
    Path f = Files.writeString(dir.resolve("e.csv"), "");

    assertThatThrownBy(() -> Fixtures.read("azure2021", f))
        .isInstanceOf(TraceException.class)
        .hasMessageContaining(f + ": empty file");
  }

  @Test
  void read_gzip_isReadTransparently() throws IOException {
    Path gz = Fixtures.gzip(Fixtures.resource("azure-small.csv"), dir.resolve("a.csv.gz"));

    assertThat(Fixtures.read("azure2021", gz).size()).isEqualTo(3);
  }

  @Test
  void read_missingFile_failsNamingTheFile() {
    Path f = dir.resolve("absent.csv");

    assertThatThrownBy(() -> Fixtures.read("azure2021", f))
        .isInstanceOf(TraceException.class)
        .hasMessage("cannot read trace file " + f + ": no such file");
  }
}
