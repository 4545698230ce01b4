package io.harbinger.experiments.workload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.harbinger.experiments.workload.MessageRecord.Disposition;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RunRecordsTest {

  @TempDir Path dir;

  private static RunRecord sample() {
    List<Job> jobs =
        Workload.generate(WorkloadConfig.reference(11), KernelCalibration.REFERENCE).jobs();
    Job job = jobs.get(0);
    MessageRecord ok = MessageRecord.completed(job, 1000, 2000, 2000, 9000, 1, 0.007);
    MessageRecord lost =
        new MessageRecord(
            1,
            Service.ANALYTICS,
            JobType.EXPORT_REPORT,
            Phase.SHIFTED,
            2000.5,
            5000,
            -1,
            -1,
            -1,
            0,
            0,
            Disposition.LOST);
    MessageRecord dead =
        MessageRecord.notCompleted(
            jobs.get(2), Disposition.DEAD_LETTERED, 1000, 2000, 4000, 4, 1500);
    return new RunRecord(
        "rabbitmq_fifo",
        11,
        HandlerMode.CPU,
        WorkloadConfig.reference(11).withTimeScale(10),
        2,
        Map.of("broker", "rabbitmq 3.10.8"),
        List.of(ok, lost, dead));
  }

  @Test
  void writeThenRead_roundTrips() throws IOException {
    RunRecord run = sample();

    RunRecords.write(dir.resolve("run-1"), run);
    RunRecord back = RunRecords.read(dir.resolve("run-1"));

    assertThat(back.arm()).isEqualTo("rabbitmq_fifo");
    assertThat(back.config()).isEqualTo(run.config());
    assertThat(back.submitErrors()).isEqualTo(2);
    assertThat(back.attributes()).isEqualTo(run.attributes());
    assertThat(back.messages()).isEqualTo(run.messages());
    assertThat(RunRecords.readAll(dir)).hasSize(1);
  }

  @Test
  void writeThenRead_keepsTheWebhookVariantAndReadsOldRunsAsFailing() throws IOException {
    RunRecord run = sample();
    RunRecord succeeding =
        new RunRecord(
            run.arm(),
            run.seed(),
            run.handlers(),
            run.config().withWebhooks(Webhooks.SUCCEEDING),
            run.submitErrors(),
            run.attributes(),
            run.messages());
    RunRecords.write(dir.resolve("new"), succeeding);
    assertThat(RunRecords.read(dir.resolve("new")).config().webhooks())
        .isEqualTo(Webhooks.SUCCEEDING);
    // A run.json from before the variant existed has no webhooks field.
    Path runJson = dir.resolve("new").resolve(RunRecords.RUN_FILE);
    Files.writeString(
        runJson,
        Files.readString(runJson).replaceAll("\\s*\"webhooks\"\\s*:\\s*\"succeeding\",", ""));
    assertThat(Files.readString(runJson)).doesNotContain("webhooks");
    assertThat(RunRecords.read(dir.resolve("new")).config().webhooks()).isEqualTo(Webhooks.FAILING);
  }

  @Test
  void writeThenRead_keepsTheRegimeAndReadsOldRunsAsTheShift() throws IOException {
    RunRecord run = sample();
    RunRecord inverted =
        new RunRecord(
            run.arm(),
            run.seed(),
            run.handlers(),
            run.config().withRegime(Regime.INVERSION),
            run.submitErrors(),
            run.attributes(),
            run.messages());
    RunRecords.write(dir.resolve("inv"), inverted);
    assertThat(RunRecords.read(dir.resolve("inv")).config().regime()).isEqualTo(Regime.INVERSION);
    Path runJson = dir.resolve("inv").resolve(RunRecords.RUN_FILE);
    Files.writeString(
        runJson, Files.readString(runJson).replace("\"inversion\"", "\"upside-down\""));
    assertThatThrownBy(() -> RunRecords.read(dir.resolve("inv")))
        .hasMessageContaining(RunRecords.RUN_FILE)
        .hasMessageContaining("regime must be shift or inversion: upside-down");
    Files.writeString(
        runJson,
        Files.readString(runJson).replaceAll("\\s*\"regime\"\\s*:\\s*\"upside-down\",", ""));
    assertThat(Files.readString(runJson)).doesNotContain("regime");
    assertThat(RunRecords.read(dir.resolve("inv")).config().regime()).isEqualTo(Regime.SHIFT);
  }

  @Test
  void read_missingRunJson_saysSo() {
    assertThatThrownBy(() -> RunRecords.read(dir))
        .isInstanceOf(NoSuchFileException.class)
        .hasMessageContaining("run.json");
  }

  @Test
  void read_garbageJson_namesFileAndProblem() throws IOException {
    RunRecords.write(dir, sample());
    Files.writeString(dir.resolve("run.json"), "{not json");

    assertThatThrownBy(() -> RunRecords.read(dir))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("run.json: not valid JSON");
  }

  @Test
  void read_wrongFormatOrField_namesField() throws IOException {
    RunRecords.write(dir, sample());
    Path runJson = dir.resolve("run.json");
    String good = Files.readString(runJson);

    Files.writeString(runJson, good.replace("harbinger-run-v1", "v0"));
    assertThatThrownBy(() -> RunRecords.read(dir))
        .hasMessageEndingWith("format must be harbinger-run-v1: v0");

    Files.writeString(runJson, good.replace("\"seed\" : 11", "\"seed\" : \"eleven\""));
    assertThatThrownBy(() -> RunRecords.read(dir))
        .hasMessageEndingWith("field seed must be an integer: \"eleven\"");

    Files.writeString(runJson, good.replace("\"handlers\" : \"cpu\"", "\"handlers\" : \"gpu\""));
    assertThatThrownBy(() -> RunRecords.read(dir))
        .hasMessageEndingWith("handlers must be cpu or sleep: gpu");

    Files.writeString(runJson, good.replace("\"messages\" : 3", "\"messages\" : 4"));
    assertThatThrownBy(() -> RunRecords.read(dir))
        .hasMessageEndingWith("messages says 4 but messages.tsv has 3 rows");
  }

  @Test
  void read_badTsv_namesLineAndColumn() throws IOException {
    RunRecords.write(dir, sample());
    Path tsv = dir.resolve("messages.tsv");
    List<String> lines = Files.readAllLines(tsv);

    Files.write(tsv, List.of("seq,service", lines.get(1)));
    assertThatThrownBy(() -> RunRecords.read(dir)).hasMessageContaining("line 1: header must be");

    Files.write(
        tsv, List.of(lines.get(0), lines.get(1), lines.get(2).replace("export_report", "x")));
    assertThatThrownBy(() -> RunRecords.read(dir))
        .hasMessageEndingWith("line 3: column job_type: unknown job type: x");

    Files.write(
        tsv, List.of(lines.get(0), lines.get(1).replace("\t1000\t", "\tsoon\t"), lines.get(2)));
    assertThatThrownBy(() -> RunRecords.read(dir))
        .hasMessageEndingWith("line 2: column submit_ns is not a number: 'soon'");

    Files.write(tsv, List.of(lines.get(0), "1\t2\t3"));
    assertThatThrownBy(() -> RunRecords.read(dir))
        .hasMessageEndingWith("line 2: expected 12 columns: 3");
  }

  @Test
  void record_inconsistentValues_failWithRule() {
    assertThatThrownBy(
            () ->
                new MessageRecord(
                    0,
                    Service.CHECKOUT,
                    JobType.SEND_SMS,
                    Phase.STEADY,
                    1,
                    0,
                    0,
                    0,
                    1,
                    1,
                    1,
                    Disposition.COMPLETED))
        .hasMessage("job type send_sms belongs to notifications, not checkout");
    assertThatThrownBy(
            () ->
                new MessageRecord(
                    0,
                    Service.NOTIFICATIONS,
                    JobType.SEND_SMS,
                    Phase.STEADY,
                    1,
                    10,
                    5,
                    5,
                    20,
                    1,
                    1,
                    Disposition.COMPLETED))
        .hasMessageStartingWith("times must follow submit <= first start <= start <= end");
    assertThatThrownBy(
            () ->
                new RunRecord(
                    "bad arm",
                    11,
                    HandlerMode.CPU,
                    WorkloadConfig.reference(11),
                    0,
                    Map.of(),
                    List.of()))
        .hasMessage("arm must be 1-64 letters, digits, '_', '-' or '.': 'bad arm'");
    Job job =
        Workload.generate(WorkloadConfig.reference(11), KernelCalibration.REFERENCE).jobs().get(0);
    assertThatThrownBy(() -> MessageRecord.notCompleted(job, Disposition.COMPLETED, 0, 0, 0, 1, 1))
        .hasMessage("use completed(...) for a completed message: seq 0");
    MessageRecord lost = MessageRecord.notCompleted(job, Disposition.LOST, 0, -1, -1, 0, 0);
    assertThatThrownBy(
            () ->
                new RunRecord(
                    "fifo",
                    11,
                    HandlerMode.CPU,
                    WorkloadConfig.reference(11),
                    0,
                    Map.of(),
                    List.of(lost, lost)))
        .hasMessage("seq must be unique within a run: 0 repeats");
  }
}
