package io.harbinger.experiments.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TailDiagnosisTest {

  private static final String TRACE = "synthetic:seed=9,jobs=20000,keys=20,workers=16,load=0.9";

  @TempDir Path dir;

  private record Run(int code, String out, String err) {}

  private static Run run(String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code =
        TailDiagnosis.run(
            args,
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
    return new Run(
        code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  @Test
  void run_twoArms_tableEachLevelAndCountEveryVictimOnce() {
    Run r = run(TRACE, "0.95", "defaults", "oracle+no_aging", "predictive_warm+no_aging");

    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.out()).contains("FIFO P99 latency");
    List<String[]> oracle = rows(r.out(), "oracle+no_aging");
    List<String[]> warm = rows(r.out(), "predictive_warm+no_aging");
    // The oracle routes by each job's own duration and never has an estimate; the warm predictor
    // routes most jobs of a synthetic trace with one.
    assertThat(oracle).isNotEmpty().allSatisfy(row -> assertThat(row[4]).isEqualTo("0.0%"));
    assertThat(warm).anySatisfy(row -> assertThat(row[4]).isNotEqualTo("0.0%"));
    for (String arm : List.of("oracle+no_aging", "predictive_warm+no_aging")) {
      String section = section(r.out(), arm);
      Matcher m = Pattern.compile("(\\d+) victims").matcher(section);
      assertThat(m.find()).isTrue();
      long victims = rows(r.out(), arm).stream().mapToLong(row -> Long.parseLong(row[7])).sum();
      assertThat(victims).isEqualTo(Long.parseLong(m.group(1)));
      double jobs =
          rows(r.out(), arm).stream()
              .mapToDouble(row -> Double.parseDouble(row[2].replace("%", "")))
              .sum();
      assertThat(jobs).isCloseTo(100, within(0.2));
    }
  }

  private static String section(String out, String arm) {
    String s = out.substring(out.indexOf("## " + arm + "\n"));
    int next = s.indexOf("\n## ", 3);
    return next < 0 ? s : s.substring(0, next);
  }

  /** The table rows of one arm's section, split on "|" (index 1 is the level). */
  private static List<String[]> rows(String out, String arm) {
    return section(out, arm)
        .lines()
        .filter(line -> line.matches("\\| \\d \\|.*"))
        .map(line -> Arrays.stream(line.split("\\|")).map(String::trim).toArray(String[]::new))
        .toList();
  }

  @Test
  void run_badArguments_exitWith2AndNameWhatIsWrong() {
    assertThat(run(TRACE, "0.8", "defaults").code()).isEqualTo(2);
    assertThat(run(TRACE, "0.8", "defaults").err()).contains("usage: TailDiagnosis");
    Run load = run(TRACE, "heavy", "defaults", "fifo");
    assertThat(load.code()).isEqualTo(2);
    assertThat(load.err()).contains("load must be a number in (0, 1.5]: heavy");
    assertThat(run(TRACE, "2", "defaults", "fifo").err()).contains("load must be in (0, 1.5]: 2");
    Run profile = run(TRACE, "0.8", "fastest", "fifo");
    assertThat(profile.code()).isEqualTo(2);
    assertThat(profile.err()).contains("predictor must be one of").contains("fastest");
    Run arm = run(TRACE, "0.8", "defaults", "lifo");
    assertThat(arm.code()).isEqualTo(2);
    assertThat(arm.err()).contains("arm must be one of");
  }

  @Test
  void run_unreadableTrace_exitsWith1AndNamesIt() throws Exception {
    Run missing = run("swf:" + dir.resolve("nope.swf"), "0.8", "defaults", "fifo");
    assertThat(missing.code()).isEqualTo(1);
    assertThat(missing.err()).startsWith("TailDiagnosis: ").contains("nope.swf");

    Path garbage = dir.resolve("garbage.csv");
    Files.writeString(garbage, "this,is\nnot a trace\n");
    Run bad = run("csv:" + garbage, "0.8", "defaults", "fifo");
    assertThat(bad.code()).isEqualTo(1);
    assertThat(bad.err()).startsWith("TailDiagnosis: ");
  }
}
