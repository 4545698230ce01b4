package io.harbinger.experiments.bench;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.harbinger.experiments.workload.HandlerMode;
import io.harbinger.experiments.workload.KernelCalibration;
import io.harbinger.experiments.workload.Regime;
import io.harbinger.experiments.workload.RunRecord;
import io.harbinger.experiments.workload.RunRecords;
import io.harbinger.experiments.workload.Webhooks;
import io.harbinger.experiments.workload.WorkloadConfig;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * What every run of a bench directory shares, saved as {@code plan.json} so that a later invocation
 * with the same {@code --out} resumes it: the handlers, the workload's window, rate and time scale,
 * the drain, the webhook variant, the regime, and the kernel costs its planned durations came from.
 *
 * <p>Example: a first {@code ./harbinger bench --profile full --handlers cpu --out DIR} measures
 * the kernels, calibrates the rate scale (say 2.02) and saves both; stopped after four of nine
 * runs, the same command again reads them back instead of measuring anew, so the remaining runs get
 * the very same jobs, skips the four complete runs and analyses all nine together.
 *
 * <p>Implementation notes: a run is complete when its {@code run.json} and {@code messages.tsv}
 * read back whole ({@link RunRecords#read} checks the row count) with this plan's configuration and
 * the workload's message count; anything else (a run cut off mid-write, another configuration) is
 * run again. Settings given on the command line must equal the saved ones (a mixed directory would
 * pair unlike runs); settings not given are taken from the file.
 *
 * @param handlers how handlers spend a job's time
 * @param arrivalSeconds the arrival window before time scaling
 * @param rateScale the rate scale
 * @param timeScale the time scale
 * @param drain the drain bound
 * @param webhooks the webhook variant
 * @param regime what changes in the shifted phase
 * @param kernels the kernel costs of the planned durations
 */
record SavedPlan(
    HandlerMode handlers,
    double arrivalSeconds,
    double rateScale,
    double timeScale,
    Duration drain,
    Webhooks webhooks,
    Regime regime,
    KernelCalibration kernels) {

  /** The file in the output directory. */
  static final String FILE = "plan.json";

  /** The file earlier invocations' {@code command.txt} are appended to when a directory resumes. */
  static final String HISTORY_FILE = "command-history.txt";

  private static final String FORMAT = "harbinger-bench-plan-v1";
  private static final ObjectMapper JSON =
      new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  /** Checks the fields. */
  SavedPlan {
    Objects.requireNonNull(handlers, "handlers");
    Objects.requireNonNull(drain, "drain");
    Objects.requireNonNull(webhooks, "webhooks");
    Objects.requireNonNull(regime, "regime");
    Objects.requireNonNull(kernels, "kernels");
    // Checks the ranges with WorkloadConfig's own messages.
    new WorkloadConfig(0, arrivalSeconds, rateScale, timeScale, webhooks);
  }

  /**
   * Returns the workload configuration of a seed under this plan.
   *
   * @param seed the seed
   * @return the configuration
   */
  WorkloadConfig workload(long seed) {
    return new WorkloadConfig(seed, arrivalSeconds, rateScale, timeScale, webhooks, regime);
  }

  /**
   * Reads the plan of a directory.
   *
   * @param dir the output directory
   * @return the saved plan, or empty when the directory has none
   * @throws IOException naming the file and the problem when it exists but is unreadable
   */
  static Optional<SavedPlan> read(Path dir) throws IOException {
    Path file = dir.resolve(FILE);
    if (!Files.exists(file)) {
      return Optional.empty();
    }
    JsonNode root;
    try {
      root = JSON.readTree(file.toFile());
    } catch (JsonProcessingException e) {
      throw new IOException(file + ": not valid JSON: " + e.getOriginalMessage(), e);
    }
    try {
      if (root == null || !FORMAT.equals(root.path("format").asText())) {
        throw new IllegalArgumentException("format must be " + FORMAT);
      }
      JsonNode k = field(root, "kernels");
      return Optional.of(
          new SavedPlan(
              HandlerMode.fromWireName(field(root, "handlers").asText()),
              number(root, "arrival_seconds"),
              number(root, "rate_scale"),
              number(root, "time_scale"),
              Duration.ofMillis(field(root, "drain_millis").asLong()),
              Webhooks.fromWireName(field(root, "webhooks").asText()),
              root.hasNonNull("regime")
                  ? Regime.fromWireName(root.get("regime").asText())
                  : Regime.SHIFT,
              new KernelCalibration(
                  number(k, "render_ms_per_kib"),
                  number(k, "invoice_ms_per_item"),
                  number(k, "resize_ms_per_megapixel"),
                  number(k, "reindex_ms_per_word"),
                  number(k, "export_ms_per_chunk"))));
    } catch (IllegalArgumentException e) {
      throw new IOException(file + ": " + e.getMessage(), e);
    }
  }

  /**
   * Writes this plan into a directory, replacing any earlier one.
   *
   * @param dir the output directory, created if needed
   * @throws IOException when the file cannot be written
   */
  void write(Path dir) throws IOException {
    Files.createDirectories(dir);
    ObjectNode root = JSON.createObjectNode();
    root.put("format", FORMAT);
    root.put("handlers", handlers.wireName());
    root.put("arrival_seconds", arrivalSeconds);
    root.put("rate_scale", rateScale);
    root.put("time_scale", timeScale);
    root.put("drain_millis", drain.toMillis());
    root.put("webhooks", webhooks.wireName());
    root.put("regime", regime.wireName());
    ObjectNode k = root.putObject("kernels");
    k.put("render_ms_per_kib", kernels.renderMsPerKib());
    k.put("invoice_ms_per_item", kernels.invoiceMsPerItem());
    k.put("resize_ms_per_megapixel", kernels.resizeMsPerMegapixel());
    k.put("reindex_ms_per_word", kernels.reindexMsPerWord());
    k.put("export_ms_per_chunk", kernels.exportMsPerChunk());
    Path tmp = dir.resolve(FILE + ".tmp");
    JSON.writeValue(tmp.toFile(), root);
    Files.move(
        tmp,
        dir.resolve(FILE),
        java.nio.file.StandardCopyOption.REPLACE_EXISTING,
        java.nio.file.StandardCopyOption.ATOMIC_MOVE);
  }

  /**
   * Returns a complete run of this plan from a run directory.
   *
   * @param runDir the run directory
   * @param seed the run's seed
   * @param messages the workload's message count
   * @return the run, or empty when the directory is absent, incomplete or from another plan
   */
  Optional<RunRecord> completeRun(Path runDir, long seed, int messages) {
    if (!Files.isRegularFile(runDir.resolve(RunRecords.RUN_FILE))) {
      return Optional.empty();
    }
    try {
      RunRecord run = RunRecords.read(runDir);
      boolean same =
          run.handlers() == handlers
              && run.config().equals(workload(seed))
              && run.messages().size() == messages;
      return same ? Optional.of(run) : Optional.empty();
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  /**
   * Appends a directory's {@code command.txt} to its {@code command-history.txt}, so that a resumed
   * directory keeps the commands and commits of every invocation that wrote runs into it.
   *
   * @param dir the output directory
   * @throws IOException when a file cannot be read or written
   */
  static void keepHistory(Path dir) throws IOException {
    Path command = dir.resolve("command.txt");
    if (!Files.isRegularFile(command)) {
      return;
    }
    Files.writeString(
        dir.resolve(HISTORY_FILE),
        Files.readString(command, StandardCharsets.UTF_8) + "---\n",
        StandardCharsets.UTF_8,
        StandardOpenOption.CREATE,
        StandardOpenOption.APPEND);
  }

  private static JsonNode field(JsonNode root, String name) {
    JsonNode v = root.get(name);
    if (v == null || v.isNull()) {
      throw new IllegalArgumentException("missing field " + name);
    }
    return v;
  }

  private static double number(JsonNode root, String name) {
    JsonNode v = field(root, name);
    if (!v.isNumber()) {
      throw new IllegalArgumentException(name + " must be a number: " + v);
    }
    return v.asDouble();
  }
}
