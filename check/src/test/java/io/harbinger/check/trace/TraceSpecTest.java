package io.harbinger.check.trace;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TraceSpecTest {

  @Test
  void parse_pathWithOptions_splitsAtTheLastQuestionMark() throws TraceException {
    TraceSpec s = TraceSpec.parse("swf:/data/a:b.swf.gz?key=user-queue,status=completed");

    assertThat(s.format()).isEqualTo(TraceFormat.SWF);
    assertThat(s.path()).isEqualTo(Path.of("/data/a:b.swf.gz"));
    assertThat(s.options())
        .containsExactly(Map.entry("key", "user-queue"), Map.entry("status", "completed"));
  }

  @Test
  void parse_synthetic_takesOptionsWithoutPath() throws TraceException {
    TraceSpec s = TraceSpec.parse("synthetic:seed=7,jobs=10");
    TraceSpec q = TraceSpec.parse("synthetic:?seed=7");

    assertThat(s.path()).isNull();
    assertThat(s.options()).containsEntry("seed", "7").containsEntry("jobs", "10");
    assertThat(q.options()).containsEntry("seed", "7");
  }

  @Test
  void parse_formatNames_ignoreCaseAndAcceptAliases() throws TraceException {
    assertThat(TraceSpec.parse("SWF:x").format()).isEqualTo(TraceFormat.SWF);
    assertThat(TraceSpec.parse("alibaba:x").format()).isEqualTo(TraceFormat.ALIBABA2026);
    assertThat(TraceSpec.parse("azure:x").format()).isEqualTo(TraceFormat.AZURE2021);
  }

  @Test
  void parse_noFormat_failsShowingTheText() {
    assertThatThrownBy(() -> TraceSpec.parse("/data/trace.log"))
        .isInstanceOf(TraceException.class)
        .hasMessage(
            "trace must be given as format:path, or as a path ending in .csv or .swf (optionally"
                + " .gz) (formats: swf, azure2021, alibaba2026, csv, synthetic): /data/trace.log");
  }

  @Test
  void parse_bareCsvOrSwfPath_takesTheFormatFromTheName() throws TraceException {
    TraceSpec csv = TraceSpec.parse("history.csv");
    assertThat(csv.format()).isEqualTo(TraceFormat.CSV);
    assertThat(csv.path()).isEqualTo(Path.of("history.csv"));
    assertThat(csv.text()).isEqualTo("history.csv");

    TraceSpec swf = TraceSpec.parse("/data/CTC-SP2.SWF.gz?key=user");
    assertThat(swf.format()).isEqualTo(TraceFormat.SWF);
    assertThat(swf.path()).isEqualTo(Path.of("/data/CTC-SP2.SWF.gz"));
    assertThat(swf.options()).containsEntry("key", "user");

    assertThat(TraceSpec.parse("C:\\logs\\jobs.csv.gz").format()).isEqualTo(TraceFormat.CSV);
    assertThat(TraceSpec.parse("logs/a:b.swf").path()).isEqualTo(Path.of("logs/a:b.swf"));
    assertThat(TraceSpec.parse("csv:/data/trace.swf").format()).isEqualTo(TraceFormat.CSV);
    assertThatThrownBy(() -> TraceSpec.parse("swff:jobs.csv"))
        .hasMessageStartingWith("unknown trace format 'swff'");
  }

  @Test
  void parse_unknownFormat_failsListingTheFormats() {
    assertThatThrownBy(() -> TraceSpec.parse("parquet:x"))
        .isInstanceOf(TraceException.class)
        .hasMessage(
            "unknown trace format 'parquet': use one of [swf, azure2021, alibaba2026, csv,"
                + " synthetic]");
  }

  @Test
  void parse_badOptions_fail() {
    assertThatThrownBy(() -> TraceSpec.parse("csv:")).hasMessage("trace path is empty: csv:");
    assertThatThrownBy(() -> TraceSpec.parse("csv:x?key"))
        .hasMessage("trace option must be name=value: 'key' in csv:x?key");
    assertThatThrownBy(() -> TraceSpec.parse("csv:x?a=1,a=2"))
        .hasMessage("trace option 'a' is given twice in csv:x?a=1,a=2");
    assertThatThrownBy(() -> TraceSpec.parse(" "))
        .hasMessageStartingWith("trace must be given as format:path");
  }

  @Test
  void read_unknownOption_failsListingTheKnownOnes() {
    assertThatThrownBy(() -> TraceFormat.read("csv:x.csv?colour=red"))
        .isInstanceOf(TraceException.class)
        .hasMessage(
            "unknown option 'colour' for format csv (known: resolution): csv:x.csv?colour=red");
  }
}
