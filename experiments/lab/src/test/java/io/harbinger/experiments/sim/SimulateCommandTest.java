package io.harbinger.experiments.sim;

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

class SimulateCommandTest {

  private static final String TRACE = "synthetic:seed=6,jobs=6000,keys=12,workers=4";

  @TempDir Path dir;

  private record Run(int exitCode, String out, String err) {}

  private static Run run(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine cl = new CommandLine(new SimulateCommand());
    cl.setOut(new PrintWriter(out));
    cl.setErr(new PrintWriter(err));
    int code = cl.execute(args);
    return new Run(code, out.toString(), err.toString());
  }

  @Test
  void simulate_twoLoads_writesTablesAndSummariesWithTheCommand() throws Exception {
    Run r =
        run(
            TRACE,
            "--load",
            "0.5,0.95",
            "--workers",
            "4",
            "--arms",
            "predictive_warm,predictive_warm+weights+pausing",
            "--out",
            dir.toString());

    assertThat(r.exitCode()).as(r.err()).isZero();
    assertThat(r.out()).contains("| fifo |").contains("Gate A (predictive_warm)");
    Path table = dir.resolve("load-0.95/table.md");
    assertThat(Files.readString(table))
        .startsWith("# " + TRACE + " at load 0.95")
        .contains("Command: `harbinger simulate " + TRACE + " --load 0.5,0.95");
    JsonNode json = new ObjectMapper().readTree(dir.resolve("load-0.50/summary.json").toFile());
    assertThat(json.get("load").asDouble()).isEqualTo(0.5);
    assertThat(json.get("arms")).hasSize(3);
    assertThat(json.get("arms").get(0).get("arm").asText()).isEqualTo("fifo");
    assertThat(json.get("arms").get(1).get("windows_7")).hasSize(7);
    assertThat(json.get("gates")).hasSize(4);
  }

  @Test
  void simulate_jsonWithTwoLoads_printsOneArrayOfReports() throws Exception {
    Run r = run(TRACE, "--load", "0.5,0.8", "--workers", "4", "--arms", "oracle", "--json");

    JsonNode json = new ObjectMapper().readTree(r.out());
    assertThat(json.isArray()).isTrue();
    assertThat(json).hasSize(2);
    assertThat(json.get(1).get("load").asDouble()).isEqualTo(0.8);
    assertThat(json.get(1).get("arms").get(1).get("arm").asText()).isEqualTo("oracle");
  }

  @Test
  void simulate_sameArguments_giveByteIdenticalOutput() {
    String[] args = {TRACE, "--load", "0.9", "--workers", "4", "--json"};

    assertThat(run(args).out()).isEqualTo(run(args).out());
  }

  @Test
  void simulate_badFlags_exitWith2AndSayWhy() {
    assertThat(run(TRACE, "--load", "1.7").err())
        .contains("--load values must each be in (0, 1.5]: 1.7");
    assertThat(run(TRACE, "--load", "1.7").exitCode()).isEqualTo(2);
    assertThat(run(TRACE, "--workers", "0").err()).contains("--workers must be in [1, 100000]: 0");
    Run arms = run(TRACE, "--arms", "fifo,lifo");
    assertThat(arms.exitCode()).isEqualTo(2);
    assertThat(arms.err()).contains("--arms: arm must be one of");
    assertThat(run(TRACE, "--history-fraction", "1").exitCode()).isEqualTo(2);
    assertThat(run(TRACE, "--load", "abc").exitCode()).isEqualTo(2);
    assertThat(run().exitCode()).isEqualTo(2);
  }

  @Test
  void simulate_profileWithOverrides_namesItsArmsByTheWholeChoice() throws Exception {
    Run r =
        run(
            TRACE,
            "--load",
            "0.8",
            "--workers",
            "4",
            "--arms",
            "predictive_warm",
            "--predictors",
            "without_size_borrowing,without_size_borrowing:minObservations=1",
            "--out",
            dir.toString());

    assertThat(r.exitCode()).as(r.err()).isZero();
    assertThat(Files.readString(dir.resolve("load-0.80/table.md")))
        .contains("| predictive_warm |")
        .contains("| predictive_warm@without_size_borrowing:minObservations=1 |");

    Run twice =
        run(
            TRACE,
            "--predictors",
            "without_shift_run:minObservations=1,without_shift_run:minObservations=1");
    assertThat(twice.exitCode()).isEqualTo(2);
    assertThat(twice.err())
        .contains("--predictors: without_shift_run:minObservations=1 given twice");
    Run bad = run(TRACE, "--predictors", "without_shift_run:minObservations=0");
    assertThat(bad.exitCode()).isEqualTo(2);
    assertThat(bad.err()).contains("--predictors: ").contains("minObservations");
  }

  @Test
  void help_listsEveryPredictorProfile() {
    Run help = run("--help");

    String text = help.out().replaceAll("\\s+", " ");
    for (PredictorProfile profile : PredictorProfile.values()) {
      assertThat(text).as(profile.label()).containsPattern("[ (]" + profile.label() + "[,)]");
    }
  }

  @Test
  void simulate_unreadableTrace_exitsWith1AndNamesTheProblem() throws Exception {
    Run missing = run("swf:" + dir.resolve("nope.swf"));
    assertThat(missing.exitCode()).isEqualTo(1);
    assertThat(missing.err()).startsWith("harbinger simulate: ").contains("nope.swf");

    Path garbage = dir.resolve("garbage.csv");
    Files.writeString(garbage, "this,is\nnot a trace\n");
    Run bad = run("csv:" + garbage);
    assertThat(bad.exitCode()).isEqualTo(1);
    assertThat(bad.err()).startsWith("harbinger simulate: ");

    Run format = run("nosuchformat:" + garbage);
    assertThat(format.exitCode()).isEqualTo(1);
    assertThat(format.err()).contains("unknown trace format");

    Run tiny = run("synthetic:jobs=10");
    assertThat(tiny.exitCode()).isEqualTo(1);
    assertThat(tiny.err()).contains("holds 10 jobs; need at least 16");
  }
}
