package io.harbinger.check;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class CheckCommandTest {

  private static final String PREDICTABLE = "synthetic:seed=11,jobs=5000,keys=10,sigma=0.2";

  @TempDir Path dir;

  private record Run(int exitCode, String out, String err) {}

  private static Run run(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine cl = new CommandLine(new CheckCommand());
    cl.setOut(new PrintWriter(out));
    cl.setErr(new PrintWriter(err));
    int code = cl.execute(args);
    return new Run(code, out.toString(), err.toString());
  }

  @Test
  void check_predictableHistory_printsMetricsAndVerdict() {
    Run r = run(PREDICTABLE);

    assertThat(r.exitCode()).isZero();
    assertThat(r.out())
        .startsWith("harbinger check " + PREDICTABLE)
        .contains("held-out jobs on routable keys (>= 20 history jobs): 100.0%")
        .contains("tier accuracy")
        .contains("held-out jobs predicted:")
        .contains("what-if simulation: simulated 2,500 held-out jobs on 64 workers")
        .contains("predictive_warm at load 0.80: mean latency")
        .contains("predictive_warm+weights+pausing at load 0.80: mean latency")
        .contains("verdict: turn it on");
    assertThat(r.err()).isEmpty();
  }

  @Test
  void check_noWhatIf_saysTheSimulationWasSkipped() {
    Run r = run("--no-what-if", PREDICTABLE);

    assertThat(r.exitCode()).isZero();
    assertThat(r.out()).contains("what-if simulation: not run: skipped (--no-what-if)");
  }

  @Test
  void check_json_printsTheResultAsJson() throws Exception {
    Run r = run("--json", PREDICTABLE);

    JsonNode json = new ObjectMapper().readTree(r.out());
    assertThat(json.get("verdict").asText()).isEqualTo("TURN_IT_ON");
    assertThat(json.get("perKey").get("within2x").asDouble()).isGreaterThan(0.9);
    assertThat(json.get("coverage").get("routableShare").asDouble()).isEqualTo(1.0);
    assertThat(json.get("input").get("rowsRead").asLong()).isEqualTo(5000);
  }

  @Test
  void check_jsonWithoutRoutableKeys_writesMissingMetricsAsNull() throws Exception {
    Run r = run("--json", "synthetic:seed=3,jobs=200,keys=200,zipf=0");

    JsonNode perKey = new ObjectMapper().readTree(r.out()).get("perKey");
    assertThat(perKey.get("rows").asLong()).isZero();
    assertThat(perKey.get("within2x").isNull()).isTrue();
  }

  @Test
  void check_sameInput_printsByteIdenticalOutput() {
    assertThat(run(PREDICTABLE).out()).isEqualTo(run(PREDICTABLE).out());
    assertThat(run("--json", PREDICTABLE).out()).isEqualTo(run("--json", PREDICTABLE).out());
  }

  @Test
  void check_fileWithBadRows_reportsThemWithLineNumbers() throws Exception {
    Path swf = Path.of(getClass().getResource("/traces/malformed.swf").toURI());
    Path copy = dir.resolve("log.swf");
    Files.writeString(
        copy, Files.readString(swf) + "8 60 0 7 1 -1 -1 1 60 -1 1 9 -1 5 2 -1 -1 -1\n");

    Run r = run("swf:" + copy);

    assertThat(r.exitCode()).isZero();
    assertThat(r.out())
        .contains("8 rows read, 2 used, 6 skipped")
        .contains("skipped 2: run time unknown (negative) (lines 4, 9)");
  }

  @Test
  void check_missingFile_failsWithExitOneNamingTheFile() {
    Path absent = dir.resolve("absent.swf");

    Run r = run("swf:" + absent);

    assertThat(r.exitCode()).isEqualTo(1);
    assertThat(r.out()).isEmpty();
    assertThat(r.err().strip())
        .isEqualTo("harbinger check: cannot read trace file " + absent + ": no such file");
  }

  @Test
  void check_fileWithoutUsableRows_failsWithExitOneNamingTheFile() throws Exception {
    Path f = Files.writeString(dir.resolve("garbage.csv"), "hello,world\n\u0000\u0001,,\n");

    Run r = run("csv:" + f);

    assertThat(r.exitCode()).isEqualTo(1);
    assertThat(r.err()).startsWith("harbinger check: no usable row in " + f);
  }

  @Test
  void check_specWithoutFormat_failsWithExitOne() {
    Run r = run("history.log");

    assertThat(r.exitCode()).isEqualTo(1);
    assertThat(r.err()).contains("trace must be given as format:path");
  }

  @Test
  void check_verdictSaysHowMuchOfTheInputItJudged() throws Exception {
    StringBuilder csv = new StringBuilder("arrival_s,duration_s,key\n");
    for (int i = 0; i < 5; i++) {
      csv.append(i).append(",100000,long\n");
    }
    for (int i = 0; i < 400; i++) {
      csv.append(200_000 + i).append(',').append(i % 2 == 0 ? "0.01" : "2").append(',');
      csv.append(i % 2 == 0 ? "short" : "long").append('\n');
    }
    for (int i = 0; i < 30; i++) {
      csv.append("not-a-time,1,short\n");
    }
    Path history = Files.writeString(dir.resolve("history.csv"), csv);

    Run text = run("--no-what-if", history.toString());
    Run json = run("--no-what-if", "--json", history.toString());

    assertThat(text.exitCode()).isZero();
    assertThat(text.out())
        .contains(
            "judged on 405 of the 435 rows read (93.1%); left out: 30 arrival_s is not a number")
        .contains(
            "the verdict rests on the 203 held-out jobs (the later half by arrival), 203 of them")
        .contains("the predictor refused 5 observations longer than one day");
    assertThat(new ObjectMapper().readTree(json.out()).get("basis").asText())
        .startsWith("405 of the 435 rows read (93.1%)");
  }

  @Test
  void check_badMinObservations_failsWithUsageError() {
    Run r = run("--min-observations", "0", PREDICTABLE);

    assertThat(r.exitCode()).isEqualTo(2);
    assertThat(r.err()).contains("--min-observations must be in [1, 1000000]: 0");
  }

  @Test
  void check_help_describesTheHistoryFormats() {
    Run r = run("--help");

    assertThat(r.exitCode()).isZero();
    assertThat(r.out()).contains("HISTORY is format:path").contains("--min-observations");
  }

  @Test
  void check_noHistory_failsWithUsageError() {
    Run r = run();

    assertThat(r.exitCode()).isEqualTo(2);
    assertThat(r.err()).contains("Missing required parameter: 'HISTORY'");
  }
}
