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

class PlainCsvReaderTest {

  @TempDir Path dir;

  @Test
  void read_withHeaderAndComments_givesSortedJobsWithSizes() throws IOException {
    Trace t = Fixtures.read("csv", Fixtures.resource("jobs.csv"));

    assertThat(t.size()).isEqualTo(3);
    assertThat(t.key(1)).isEqualTo("shop/reserve");
    assertThat(t.arrivalNanos(1)).isEqualTo(100_000_000L);
    assertThat(t.durationNanos(1)).isEqualTo(4_000_000L);
    assertThat(t.sizeHint(0)).isEqualTo(-1);
    assertThat(t.sizeHint(1)).isEqualTo(12);
    assertThat(t.sizeHint(2)).isEqualTo(40_000);
    assertThat(t.report().rowsRead()).isEqualTo(3);
  }

  @Test
  void read_withoutHeader_firstLineIsAJob() throws IOException {
    Trace t = Fixtures.read("csv", Fixtures.resource("jobs-malformed.csv"));

    assertThat(t.size()).isEqualTo(2);
    assertThat(t.hasSizes()).isTrue();
    assertThat(t.report().skipped())
        .extracting(ReadReport.RowTally::reason, ReadReport.RowTally::firstLines)
        .containsExactly(
            tuple("expected 3 or 4 fields (arrival_s,duration_s,key[,size])", List.of(2L)),
            tuple("duration_s is not a non-negative number of seconds", List.of(3L)),
            tuple("arrival_s is not a number of seconds", List.of(4L)),
            tuple("empty key", List.of(5L)),
            tuple("size is not a non-negative integer", List.of(6L)));
  }

  @Test
  void read_resolutionOption_setsTheTraceResolution() throws IOException {
    Trace t = Fixtures.read("csv", Fixtures.resource("jobs.csv"), "resolution=1");

    assertThat(t.resolutionNanos()).isEqualTo(1_000_000_000L);
  }

  @Test
  void read_headerOnly_failsNamingTheFile() throws IOException {
    Path f = Files.writeString(dir.resolve("h.csv"), "arrival_s,duration_s,key\n");

    assertThatThrownBy(() -> Fixtures.read("csv", f))
        .isInstanceOf(TraceException.class)
        .hasMessage("no usable row in " + f + ": the file holds no data row");
  }

  @Test
  void read_allRowsBad_failsListingReasonsWithLines() throws IOException {
    Path f = Files.writeString(dir.resolve("bad.csv"), "1,-2,a\n2,x,a\n");

    assertThatThrownBy(() -> Fixtures.read("csv", f))
        .isInstanceOf(TraceException.class)
        .hasMessage(
            "no usable row in "
                + f
                + ": 2 rows read, all skipped; 2: duration_s is not a non-negative number of"
                + " seconds (lines 1, 2)");
  }

  @Test
  void read_emptyFile_failsNamingTheFile() throws IOException {
    Path f = Files.writeString(dir.resolve("e.csv"), "");

    assertThatThrownBy(() -> Fixtures.read("csv", f))
        .isInstanceOf(TraceException.class)
        .hasMessage("no usable row in " + f + ": the file holds no data row");
  }

  @Test
  void read_gzip_isReadTransparently() throws IOException {
    Path gz = Fixtures.gzip(Fixtures.resource("jobs.csv"), dir.resolve("jobs.csv.gz"));

    assertThat(Fixtures.read("csv", gz).size()).isEqualTo(3);
  }

  @Test
  void read_missingFile_failsNamingTheFile() {
    Path f = dir.resolve("nope.csv");

    assertThatThrownBy(() -> Fixtures.read("csv", f))
        .isInstanceOf(TraceException.class)
        .hasMessage("cannot read trace file " + f + ": no such file");
  }
}
