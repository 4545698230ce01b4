package io.harbinger.experiments.analysis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.harbinger.experiments.stats.Criterion;
import io.harbinger.experiments.stats.GateResult;
import io.harbinger.experiments.stats.MetricDelta;
import io.harbinger.experiments.stats.PercentileBootstrap;
import io.harbinger.experiments.stats.Verdict;
import io.harbinger.experiments.stats.Verdict.Status;
import io.harbinger.experiments.workload.HandlerMode;
import io.harbinger.experiments.workload.JobType;
import io.harbinger.experiments.workload.MessageRecord;
import io.harbinger.experiments.workload.MessageRecord.Disposition;
import io.harbinger.experiments.workload.Phase;
import io.harbinger.experiments.workload.RunRecord;
import io.harbinger.experiments.workload.WorkloadConfig;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AnalysisTest {

  private static final long MS = 1_000_000;
  private static final List<Long> SEEDS = List.of(11L, 22L, 33L, 44L, 55L);

  @TempDir Path dir;

  /**
   * A run where every short-class message takes {@code shortMs}, every other one {@code otherMs},
   * exports 2000 ms after waiting {@code exportWaitMs}; {@code lost} messages never complete.
   */
  private static RunRecord run(
      String arm, long seed, double shortMs, double otherMs, double exportWaitMs, int lost) {
    List<MessageRecord> messages = new ArrayList<>();
    long seq = 0;
    Phase[] phases = Phase.values();
    for (JobType t : JobType.values()) {
      for (int i = 0; i < 20; i++) {
        Phase phase = phases[i % phases.length];
        long submit = seq * MS;
        double latency =
            t == JobType.EXPORT_REPORT ? exportWaitMs + 2000 : t.shortClass() ? shortMs : otherMs;
        double wait = t == JobType.EXPORT_REPORT ? exportWaitMs : latency / 2;
        long firstStart = submit + Math.round(wait * MS);
        long end = submit + Math.round(latency * MS);
        messages.add(
            new MessageRecord(
                seq++,
                t.service(),
                t,
                phase,
                5,
                submit,
                firstStart,
                firstStart,
                end,
                1,
                latency - wait,
                Disposition.COMPLETED));
      }
    }
    for (int i = 0; i < lost; i++) {
      messages.add(
          new MessageRecord(
              seq++,
              JobType.SEND_SMS.service(),
              JobType.SEND_SMS,
              Phase.SHIFTED,
              80,
              seq * MS,
              -1,
              -1,
              -1,
              0,
              0,
              Disposition.LOST));
    }
    return new RunRecord(
        arm, seed, HandlerMode.SLEEP, WorkloadConfig.reference(seed), 0, Map.of(), messages);
  }

  private static List<RunRecord> runs() {
    List<RunRecord> runs = new ArrayList<>();
    for (long seed : SEEDS) {
      double noise = seed / 1000.0;
      runs.add(run("fifo", seed, 1000, 1000, 1000, 0));
      runs.add(run("predictive", seed, 100 + 100 * noise, 1100, 1000, 0));
      runs.add(run("rabbitmq_fifo", seed, 1000, 1000, 1000, 0));
      runs.add(run("rabbitmq_predictive", seed, 900, 1000, 3000, seed == 22 ? 1 : 0));
    }
    return runs;
  }

  @Test
  void baselineFor_prefersLongestMatchingFifo() {
    List<String> arms = List.of("fifo", "rabbitmq_fifo", "predictive", "rabbitmq_static_tuned");

    assertThat(Analysis.baselineFor("predictive", arms)).isEqualTo("fifo");
    assertThat(Analysis.baselineFor("rabbitmq_static_tuned", arms)).isEqualTo("rabbitmq_fifo");
    assertThat(Analysis.baselineFor("rabbitmq_fifo", arms)).isNull();
    assertThat(Analysis.baselineFor("x", List.of("x", "redis_fifo"))).isNull();
  }

  @Test
  void analyse_pairsEachArmWithItsFifoAndJudgesTheGate() {
    Analysis report = Analysis.analyse(runs(), PercentileBootstrap.defaults());

    assertThat(report.baseline("predictive")).isEqualTo("fifo");
    assertThat(report.baseline("rabbitmq_predictive")).isEqualTo("rabbitmq_fifo");
    GateResult predictive = report.gate("predictive");
    assertThat(predictive.passed()).isTrue();
    assertThat(predictive.verdicts())
        .extracting(v -> v.criterion().id())
        .containsExactly("P1", "P2", "G1", "G2", "G3");
    // Short P50: 100 * (1 + seed / 1000) against 1000, so -0.9 + seed / 10,000 on average.
    MetricDelta shortP50 = report.deltas("predictive").get(3);
    assertThat(shortP50.metric()).isEqualTo(RunMetrics.SHORT_P50_MS);
    assertThat(shortP50.interval().point()).isCloseTo(-0.9 + 33 / 10_000.0, within(1e-9));
    assertThat(report.gate("fifo")).isNull();

    GateResult rabbit = report.gate("rabbitmq_predictive");
    assertThat(rabbit.passed()).isFalse();
    Map<String, Status> status = new java.util.HashMap<>();
    rabbit.verdicts().forEach(v -> status.put(v.criterion().id(), v.status()));
    assertThat(status)
        .containsEntry("P2", Status.FAIL) // -10% is not -30%
        .containsEntry("G2", Status.FAIL) // export wait 3x
        .containsEntry("G3", Status.FAIL); // one message lost in seed 22
  }

  @Test
  void analyse_tablesUseMedianOverSeeds() {
    Analysis report = Analysis.analyse(runs(), PercentileBootstrap.defaults());

    assertThat(report.median("predictive", RunMetrics.SHORT_P50_MS)).isCloseTo(103.3, within(1e-6));
    assertThat(report.median("fifo", RunMetrics.P50_MS)).isEqualTo(1000.0);
    assertThat(report.runs("fifo")).hasSize(5);
  }

  @Test
  void write_producesParsableSummaryMarkdownAndWellFormedSvg() throws Exception {
    Analysis report = Analysis.analyse(runs(), PercentileBootstrap.defaults());

    ReportFormat.writeAll(report, dir);

    JsonNode summary = new ObjectMapper().readTree(dir.resolve("summary.json").toFile());
    assertThat(summary.get("format").asText()).isEqualTo(Analysis.FORMAT);
    assertThat(summary.get("arms")).hasSize(4);
    JsonNode predictive = summary.get("arms").get(1);
    assertThat(predictive.get("arm").asText()).isEqualTo("predictive");
    assertThat(predictive.get("gate").get("passed").asBoolean()).isTrue();
    assertThat(predictive.get("gate").get("criteria").get(0).get("status").asText())
        .isEqualTo("PASS");
    assertThat(predictive.get("deltas").get(0).get("values")).hasSize(5);
    assertThat(summary.get("arms").get(0).get("gate")).isNull();

    String md = Files.readString(dir.resolve("report.md"));
    assertThat(md)
        .contains("**WORK LOST: arm rabbitmq_predictive seed 22: 1 of 181 messages not completed")
        .contains("## predictive against fifo: gate PASSED")
        .contains("## rabbitmq_predictive against rabbitmq_fifo: gate NOT PASSED")
        .contains("| flash |");

    for (String chart :
        List.of("deltas.svg", "per-class-predictive.svg", "per-class-rabbitmq_predictive.svg")) {
      byte[] svg = Files.readAllBytes(dir.resolve("charts").resolve(chart));
      var doc =
          DocumentBuilderFactory.newInstance()
              .newDocumentBuilder()
              .parse(new ByteArrayInputStream(svg));
      assertThat(doc.getDocumentElement().getTagName()).as(chart).isEqualTo("svg");
      assertThat(new String(svg, StandardCharsets.UTF_8)).contains("<rect").contains("<line");
      if (chart.equals("deltas.svg")) {
        assertThat(new String(svg, StandardCharsets.UTF_8))
            .contains("95% bootstrap interval")
            .doesNotContain("bootstrap()");
      }
    }
  }

  @Test
  void analyse_badInput_failsWithRule() {
    List<RunRecord> duplicate = List.of(run("fifo", 11, 1, 1, 1, 0), run("fifo", 11, 1, 1, 1, 0));

    assertThatThrownBy(() -> Analysis.analyse(duplicate, PercentileBootstrap.defaults()))
        .hasMessage("two runs of arm fifo with seed 11 given");
    assertThatThrownBy(() -> Analysis.analyse(List.of(), PercentileBootstrap.defaults()))
        .hasMessage("an analysis needs at least one run: 0 given");
  }

  @Test
  void analyse_singleSeed_everyCriterionUnevaluableAndGateFails() {
    List<RunRecord> one = List.of(run("fifo", 11, 1000, 1000, 1000, 0), run("p", 11, 1, 1, 1, 0));

    Analysis report = Analysis.analyse(one, PercentileBootstrap.defaults());

    assertThat(report.gate("p").passed()).isFalse();
    assertThat(report.gate("p").verdicts().subList(0, 4))
        .allSatisfy(v -> assertThat(v.status()).isEqualTo(Status.UNEVALUABLE));
  }

  @Test
  void analyse_secondaryCriteria_judgedBetweenAnyArmsAndReported() throws Exception {
    List<Criterion> secondary =
        List.of(
            new Criterion.WithinRelative("S3", RunMetrics.MEAN_MS, "rabbitmq_fifo", "fifo", 0.05),
            new Criterion.Reduction("S2", RunMetrics.MEAN_MS, "predictive", "rabbitmq_predictive"),
            new Criterion.NonInferiority(
                "S1", RunMetrics.SHORT_P50_MS, "rabbitmq_predictive", "predictive", 0.10));

    Analysis report = Analysis.analyse(runs(), PercentileBootstrap.defaults(), secondary);
    ReportFormat.writeAll(report, dir);

    assertThat(report.secondary().verdicts())
        .extracting(Verdict::status)
        .containsExactly(Status.PASS, Status.PASS, Status.FAIL);
    JsonNode summary = new ObjectMapper().readTree(dir.resolve("summary.json").toFile());
    assertThat(summary.get("secondary").get("passed").asBoolean()).isFalse();
    assertThat(summary.get("secondary").get("criteria").get(2).get("arm").asText())
        .isEqualTo("rabbitmq_predictive");
    assertThat(Files.readString(dir.resolve("report.md")))
        .contains("## Secondary criteria: NOT all passed")
        .contains("| S3 | rabbitmq_fifo | mean_ms vs fifo: CI within +-5.0%");
    assertThat(Analysis.analyse(runs(), PercentileBootstrap.defaults()).secondary()).isNull();
  }
}
