package io.harbinger.check.trace;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.groups.Tuple.tuple;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AlibabaRequestReaderTest {

  @TempDir Path dir;

  @Test
  void read_valid_arrivalIsGmtCreateAsUtcAndKeyIsModelVersion() throws IOException {
    Trace t = Fixtures.read("alibaba2026", Fixtures.resource("alibaba-small.csv"));

    long expected = Instant.parse("2024-11-15T16:57:50Z").getEpochSecond() * 1_000_000_000L;
    assertThat(t.arrivalNanos(0)).isEqualTo(expected);
    assertThat(t.durationNanos(0)).isEqualTo(32_000_000_000L);
    assertThat(t.key(0)).isEqualTo("M0000");
    assertThat(t.resolutionNanos()).isEqualTo(1_000_000_000L);
  }

  @Test
  void read_rowsOutOfOrder_areSortedByArrival() throws IOException {
    Trace t = Fixtures.read("alibaba2026", Fixtures.resource("alibaba-small.csv"));

    for (int i = 1; i < t.size(); i++) {
      assertThat(t.arrivalNanos(i)).isGreaterThanOrEqualTo(t.arrivalNanos(i - 1));
    }
    assertThat(t.durationNanos(2)).isEqualTo(53_000_000_000L);
    assertThat(t.durationNanos(3)).isEqualTo(3_000_000_000L);
  }

  @Test
  void read_statuses_keepFailedSkipPendingAndReportBadRowsWithLines() throws IOException {
    Trace t = Fixtures.read("alibaba2026", Fixtures.resource("alibaba-small.csv"));

    assertThat(t.size()).isEqualTo(4);
    ReadReport r = t.report();
    assertThat(r.rowsRead()).isEqualTo(9);
    assertThat(r.kept())
        .extracting(ReadReport.RowTally::reason, ReadReport.RowTally::firstLines)
        .containsExactly(tuple("predict_status FAILED (ran for its recorded time)", List.of(4L)));
    assertThat(r.skipped())
        .extracting(ReadReport.RowTally::reason, ReadReport.RowTally::firstLines)
        .containsExactly(
            tuple("predict_status PENDING", List.of(5L)),
            tuple("gmt_create is not a timestamp (yyyy-MM-dd HH:mm:ss or epoch s)", List.of(7L)),
            tuple("exec_time_seconds is not a non-negative number", List.of(8L)),
            tuple("expected 11 fields as in the header", List.of(9L)),
            tuple("empty checkpoint_model_version_id", List.of(10L)));
  }

  @Test
  void read_statusSucceeded_dropsFailedRequests() throws IOException {
    Trace t =
        Fixtures.read("alibaba2026", Fixtures.resource("alibaba-small.csv"), "status=succeeded");

    assertThat(t.size()).isEqualTo(3);
  }

  @Test
  void read_keyAndSizeOptions_useTheNamedColumns() throws IOException {
    Trace t =
        Fixtures.read(
            "alibaba",
            Fixtures.resource("alibaba-small.csv"),
            "key=predict_type,size=num_inference_steps");

    assertThat(t.keyCount()).isEqualTo(2);
    assertThat(t.key(0)).isEqualTo("TXT_2_IMG");
    assertThat(t.sizeHint(0)).isEqualTo(30);
    assertThat(t.size()).isEqualTo(5);
  }

  @Test
  void read_missingColumn_failsNamingColumnAndFile() {
    Path f = Fixtures.resource("alibaba-small.csv");

    assertThatThrownBy(() -> Fixtures.read("alibaba2026", f, "key=tenant"))
        .isInstanceOf(TraceException.class)
        .hasMessageStartingWith(f + " line 1: the header has no column 'tenant'");
  }

  @Test
  void read_headerOnly_failsNamingTheFile() throws IOException {
    Path f = dir.resolve("h.csv");
    Files.writeString(f, Files.readAllLines(Fixtures.resource("alibaba-small.csv")).get(0) + "\n");

    assertThatThrownBy(() -> Fixtures.read("alibaba2026", f))
        .isInstanceOf(TraceException.class)
        .hasMessage("no usable row in " + f + ": the file holds no data row");
  }

  @Test
  void read_headerWithByteOrderMark_findsTheFirstColumn() throws IOException {
    Path f = dir.resolve("bom.csv");
    Files.writeString(f, "\uFEFF" + Files.readString(Fixtures.resource("alibaba-small.csv")));

    assertThat(Fixtures.read("alibaba2026", f).size()).isEqualTo(4);
  }

  @Test
  void read_emptyFile_failsNamingTheFile() throws IOException {
    Path f = Files.writeString(dir.resolve("e.csv"), "\n");

    assertThatThrownBy(() -> Fixtures.read("alibaba2026", f))
        .isInstanceOf(TraceException.class)
        .hasMessage(f + ": empty file, expected a header with gmt_create");
  }

  @Test
  void read_missingFile_failsNamingTheFile() {
    Path f = dir.resolve("absent.csv");

    assertThatThrownBy(() -> Fixtures.read("alibaba2026", f))
        .isInstanceOf(TraceException.class)
        .hasMessage("cannot read trace file " + f + ": no such file");
  }

  @Test
  void read_gzip_isReadTransparently() throws IOException {
    Path gz = Fixtures.gzip(Fixtures.resource("alibaba-small.csv"), dir.resolve("r"));

    assertThat(Fixtures.read("alibaba2026", gz).size()).isEqualTo(4);
  }

  @Test
  void parseTimestampNanos_acceptsIsoFractionsAndEpochSeconds_rejectsNonsense() {
    long base = Instant.parse("2024-11-15T16:57:50Z").getEpochSecond() * 1_000_000_000L;

    assertThat(AlibabaRequestReader.parseTimestampNanos("2024-11-15T16:57:50.25"))
        .isEqualTo(base + 250_000_000L);
    assertThat(AlibabaRequestReader.parseTimestampNanos("1731689870")).isEqualTo(base);
    assertThat(AlibabaRequestReader.parseTimestampNanos("2024-02-30 10:00:00"))
        .isEqualTo(LineFields.NOT_A_NUMBER);
    assertThat(AlibabaRequestReader.parseTimestampNanos("yesterday"))
        .isEqualTo(LineFields.NOT_A_NUMBER);
    assertThat(AlibabaRequestReader.parseTimestampNanos("2024-11-15 16:57:5x"))
        .isEqualTo(LineFields.NOT_A_NUMBER);
  }
}
