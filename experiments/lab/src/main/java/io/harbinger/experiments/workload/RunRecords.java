package io.harbinger.experiments.workload;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Writes and reads a {@link RunRecord} as a run directory, so that runs can be analysed after the
 * fact.
 *
 * <p>A run directory holds {@code run.json} (what ran) and {@code messages.tsv} (one row per
 * message). {@code run.json}:
 *
 * <pre>{@code
 * {"format": "harbinger-run-v1", "arm": "fifo", "seed": 11, "handlers": "cpu",
 *  "arrival_seconds": 300.0, "rate_scale": 1.8, "time_scale": 1.0, "webhooks": "failing",
 *  "regime": "shift", "submit_errors": 0, "messages": 34956, "attributes": {"broker": "rabbitmq 3.10.8"}}
 * }</pre>
 *
 * <p>{@code messages.tsv} has the header {@value #HEADER_TEXT} (tab-separated): the columns of the
 * original implementation's {@code messages.tsv} with the {@code done} flag replaced by the outcome
 * ({@code completed}, {@code dead_lettered} or {@code lost}); absent times are {@code -1}.
 *
 * <p>A {@code run.json} without {@code webhooks} was written before the variant existed and is read
 * as {@code failing}; one without {@code regime}, as {@code shift}.
 *
 * <p>Reading checks everything and names the file, line and column of the first problem.
 */
public final class RunRecords {

  /** The format tag of {@code run.json}. */
  public static final String FORMAT = "harbinger-run-v1";

  /** The run metadata file. */
  public static final String RUN_FILE = "run.json";

  /** The per-message file. */
  public static final String MESSAGES_FILE = "messages.tsv";

  static final String HEADER_TEXT =
      "seq service job_type phase planned_ms submit_ns first_start_ns start_ns end_ns attempts"
          + " handler_ms outcome";
  private static final String[] COLUMNS = HEADER_TEXT.split(" ");
  private static final ObjectMapper JSON =
      new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  private RunRecords() {}

  /**
   * Writes a run into a directory, creating it if needed and replacing the two files.
   *
   * @param directory the run directory
   * @param run the run
   * @throws IOException when a file cannot be written
   */
  public static void write(Path directory, RunRecord run) throws IOException {
    Files.createDirectories(directory);
    ObjectNode root = JSON.createObjectNode();
    root.put("format", FORMAT);
    root.put("arm", run.arm());
    root.put("seed", run.seed());
    root.put("handlers", run.handlers().wireName());
    root.put("arrival_seconds", run.config().arrivalSeconds());
    root.put("rate_scale", run.config().rateScale());
    root.put("time_scale", run.config().timeScale());
    root.put("webhooks", run.config().webhooks().wireName());
    root.put("regime", run.config().regime().wireName());
    root.put("submit_errors", run.submitErrors());
    root.put("messages", run.messages().size());
    ObjectNode attributes = root.putObject("attributes");
    new TreeMap<>(run.attributes()).forEach(attributes::put);
    JSON.writeValue(directory.resolve(RUN_FILE).toFile(), root);
    try (BufferedWriter out =
        Files.newBufferedWriter(directory.resolve(MESSAGES_FILE), StandardCharsets.UTF_8)) {
      out.write(String.join("\t", COLUMNS));
      out.write('\n');
      for (MessageRecord m : run.messages()) {
        out.write(row(m));
        out.write('\n');
      }
    }
  }

  private static String row(MessageRecord m) {
    return String.join(
        "\t",
        Long.toString(m.seq()),
        m.service().wireName(),
        m.jobType().wireName(),
        m.phase().wireName(),
        Double.toString(m.plannedMillis()),
        Long.toString(m.submitNanos()),
        Long.toString(m.firstStartNanos()),
        Long.toString(m.startNanos()),
        Long.toString(m.endNanos()),
        Integer.toString(m.attempts()),
        Double.toString(m.handlerMillis()),
        m.outcome().wireName());
  }

  /**
   * Reads a run directory.
   *
   * @param directory a directory written by {@link #write}
   * @return the run
   * @throws IOException when a file is missing, unreadable or malformed; the message names the
   *     file, line and field
   */
  public static RunRecord read(Path directory) throws IOException {
    Path runFile = directory.resolve(RUN_FILE);
    JsonNode root;
    try {
      root = JSON.readTree(runFile.toFile());
    } catch (JsonProcessingException e) {
      throw new IOException(runFile + ": not valid JSON: " + e.getOriginalMessage(), e);
    } catch (IOException e) {
      if (!Files.exists(runFile)) {
        throw new NoSuchFileException(runFile.toString(), null, "run directory has no run.json");
      }
      throw e;
    }
    if (root == null || !root.isObject()) {
      throw new IOException(runFile + ": must hold a JSON object");
    }
    String format = text(root, "format", runFile);
    if (!FORMAT.equals(format)) {
      throw new IOException(runFile + ": format must be " + FORMAT + ": " + format);
    }
    try {
      String arm = text(root, "arm", runFile);
      long seed = integer(root, "seed", runFile);
      HandlerMode handlers = HandlerMode.fromWireName(text(root, "handlers", runFile));
      WorkloadConfig config =
          new WorkloadConfig(
              seed,
              number(root, "arrival_seconds", runFile),
              number(root, "rate_scale", runFile),
              number(root, "time_scale", runFile),
              root.hasNonNull("webhooks")
                  ? Webhooks.fromWireName(text(root, "webhooks", runFile))
                  : Webhooks.FAILING,
              root.hasNonNull("regime")
                  ? Regime.fromWireName(text(root, "regime", runFile))
                  : Regime.SHIFT);
      long submitErrors = integer(root, "submit_errors", runFile);
      long expected = integer(root, "messages", runFile);
      Map<String, String> attributes = new TreeMap<>();
      JsonNode attrs = root.get("attributes");
      if (attrs != null && !attrs.isNull()) {
        if (!attrs.isObject()) {
          throw new IOException(runFile + ": attributes must be an object");
        }
        for (Map.Entry<String, JsonNode> e : attrs.properties()) {
          attributes.put(e.getKey(), e.getValue().asText());
        }
      }
      List<MessageRecord> messages = readMessages(directory.resolve(MESSAGES_FILE));
      if (messages.size() != expected) {
        throw new IOException(
            runFile
                + ": messages says "
                + expected
                + " but "
                + MESSAGES_FILE
                + " has "
                + messages.size()
                + " rows");
      }
      return new RunRecord(arm, seed, handlers, config, submitErrors, attributes, messages);
    } catch (IllegalArgumentException e) {
      throw new IOException(runFile + ": " + e.getMessage(), e);
    }
  }

  /**
   * Reads every run directory directly below a directory (those that hold a {@code run.json}).
   *
   * @param root the directory of run directories
   * @return the runs, in directory-name order
   * @throws IOException when a run cannot be read
   */
  public static List<RunRecord> readAll(Path root) throws IOException {
    List<Path> dirs = new ArrayList<>();
    try (var stream = Files.list(root)) {
      stream.filter(p -> Files.isRegularFile(p.resolve(RUN_FILE))).sorted().forEach(dirs::add);
    } catch (UncheckedIOException e) {
      throw e.getCause();
    }
    List<RunRecord> runs = new ArrayList<>();
    for (Path d : dirs) {
      runs.add(read(d));
    }
    return runs;
  }

  static List<MessageRecord> readMessages(Path file) throws IOException {
    List<MessageRecord> out = new ArrayList<>();
    try (BufferedReader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      String header = in.readLine();
      if (header == null || !header.equals(String.join("\t", COLUMNS))) {
        throw new IOException(
            file
                + ": line 1: header must be the tab-separated columns '"
                + HEADER_TEXT
                + "': "
                + header);
      }
      String line;
      int lineNumber = 1;
      while ((line = in.readLine()) != null) {
        lineNumber++;
        if (line.isEmpty()) {
          continue;
        }
        out.add(parse(line, file, lineNumber));
      }
    }
    return out;
  }

  private static MessageRecord parse(String line, Path file, int lineNumber) throws IOException {
    String[] f = line.split("\t", -1);
    String where = file + ": line " + lineNumber + ": ";
    if (f.length != COLUMNS.length) {
      throw new IOException(where + "expected " + COLUMNS.length + " columns: " + f.length);
    }
    int column = 0;
    try {
      long seq = Long.parseLong(f[column]);
      Service service = Service.fromWireName(f[++column]);
      JobType type = JobType.fromWireName(f[++column]);
      Phase phase = Phase.fromWireName(f[++column]);
      double planned = Double.parseDouble(f[++column]);
      long submit = Long.parseLong(f[++column]);
      long firstStart = Long.parseLong(f[++column]);
      long start = Long.parseLong(f[++column]);
      long end = Long.parseLong(f[++column]);
      int attempts = Integer.parseInt(f[++column]);
      double handler = Double.parseDouble(f[++column]);
      MessageRecord.Disposition outcome = MessageRecord.Disposition.fromWireName(f[++column]);
      return new MessageRecord(
          seq,
          service,
          type,
          phase,
          planned,
          submit,
          firstStart,
          start,
          end,
          attempts,
          handler,
          outcome);
    } catch (NumberFormatException e) {
      throw new IOException(
          where + "column " + COLUMNS[column] + " is not a number: '" + f[column] + "'", e);
    } catch (IllegalArgumentException e) {
      throw new IOException(where + "column " + COLUMNS[column] + ": " + e.getMessage(), e);
    }
  }

  private static JsonNode field(JsonNode root, String name, Path file) throws IOException {
    JsonNode n = root.get(name);
    if (n == null || n.isNull()) {
      throw new IOException(file + ": missing field " + name);
    }
    return n;
  }

  private static String text(JsonNode root, String name, Path file) throws IOException {
    JsonNode n = field(root, name, file);
    if (!n.isTextual()) {
      throw new IOException(file + ": field " + name + " must be a string: " + n);
    }
    return n.asText();
  }

  private static long integer(JsonNode root, String name, Path file) throws IOException {
    JsonNode n = field(root, name, file);
    if (!n.isIntegralNumber()) {
      throw new IOException(file + ": field " + name + " must be an integer: " + n);
    }
    return n.asLong();
  }

  private static double number(JsonNode root, String name, Path file) throws IOException {
    JsonNode n = field(root, name, file);
    if (!n.isNumber()) {
      throw new IOException(file + ": field " + name + " must be a number: " + n);
    }
    return n.asDouble();
  }
}
