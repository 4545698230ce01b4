package io.harbinger.experiments.workload;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.harbinger.predictor.Ticker;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Measures this machine's kernels, prints the rate scale that puts the steady phase at the target
 * utilisation and the utilisation of every phase, and optionally records it as JSON.
 *
 * <p>Run: {@code java -cp ... io.harbinger.experiments.workload.CalibrationMain --write}; the JSON
 * goes to {@code experiments/results/calibration/} with the machine's facts and the command.
 */
@Command(
    name = "calibrate",
    mixinStandardHelpOptions = true,
    description = "Measure the production-flow kernels and pick the rate scale for this machine.")
public final class CalibrationMain implements Callable<Integer> {

  @Option(names = "--workers", description = "Worker count (default ${DEFAULT-VALUE}).")
  private int workers = 4;

  @Option(
      names = "--cores",
      description = "Cores the CPU handlers share (default: available processors).")
  private int cores = Runtime.getRuntime().availableProcessors();

  @Option(
      names = "--steady-target",
      description = "Steady-phase utilisation to aim at (default ${DEFAULT-VALUE}).")
  private double steadyTarget = Calibration.STEADY_TARGET;

  @Option(
      names = "--reference-kernels",
      description = "Use the reference machine's typical kernel costs instead of measuring.")
  private boolean referenceKernels;

  @Option(names = "--write", description = "Write the calibration JSON to --out.")
  private boolean write;

  @Option(names = "--out", description = "Directory for the JSON (default ${DEFAULT-VALUE}).")
  private Path out = Path.of("experiments", "results", "calibration");

  @Option(
      names = "--repeats",
      description =
          "Measure the kernels this many times and keep the median of each (default ${DEFAULT-VALUE}).")
  private int repeats = 3;

  private final PrintWriter stdout;
  private final Clock clock;
  private final String[] arguments;

  CalibrationMain(PrintWriter stdout, Clock clock, String[] arguments) {
    this.stdout = stdout;
    this.clock = clock;
    this.arguments = arguments.clone();
  }

  /**
   * Runs the calibration.
   *
   * @param args command-line options; {@code --help} lists them
   */
  public static void main(String[] args) {
    PrintWriter stdout = new PrintWriter(System.out, true, StandardCharsets.UTF_8);
    System.exit(command(stdout, Clock.systemUTC(), args).execute(args));
  }

  /**
   * Returns the command line of this main, printing failures as one line of text.
   *
   * @param stdout where results go
   * @param clock the clock that stamps the JSON
   * @param args the arguments, recorded in the JSON
   * @return the command line
   */
  static CommandLine command(PrintWriter stdout, Clock clock, String[] args) {
    return new CommandLine(new CalibrationMain(stdout, clock, args))
        .setExecutionExceptionHandler(
            (e, cmd, parsed) -> {
              cmd.getErr().println("calibrate: " + e.getMessage());
              return 2;
            });
  }

  @Override
  public Integer call() throws IOException {
    if (repeats < 1 || repeats > 21) {
      throw new IllegalArgumentException("--repeats must be in [1, 21]: " + repeats);
    }
    KernelCalibration kernels =
        referenceKernels ? KernelCalibration.REFERENCE : measureMedian(repeats, Ticker.SYSTEM);
    Calibration calibration = Calibration.compute(kernels, workers, cores, steadyTarget);
    stdout.print(describe(calibration));
    stdout.flush();
    if (write) {
      Path file = write(calibration);
      stdout.println("wrote " + file);
    }
    return 0;
  }

  static KernelCalibration measureMedian(int repeats, Ticker ticker) {
    double[][] runs = new double[5][repeats];
    for (int r = 0; r < repeats; r++) {
      KernelCalibration k = KernelCalibration.measure(ticker);
      runs[0][r] = k.renderMsPerKib();
      runs[1][r] = k.invoiceMsPerItem();
      runs[2][r] = k.resizeMsPerMegapixel();
      runs[3][r] = k.reindexMsPerWord();
      runs[4][r] = k.exportMsPerChunk();
    }
    double[] median = new double[5];
    for (int i = 0; i < 5; i++) {
      Arrays.sort(runs[i]);
      median[i] = runs[i][repeats / 2];
    }
    return new KernelCalibration(median[0], median[1], median[2], median[3], median[4]);
  }

  static String describe(Calibration c) {
    StringBuilder s = new StringBuilder();
    KernelCalibration k = c.kernels();
    s.append(
        String.format(
            Locale.ROOT,
            "kernels: render %.5f ms/KiB, invoice %.4f ms/item, resize %.2f ms/MP,"
                + " reindex %.2e ms/word, export %.1f ms/chunk%n",
            k.renderMsPerKib(),
            k.invoiceMsPerItem(),
            k.resizeMsPerMegapixel(),
            k.reindexMsPerWord(),
            k.exportMsPerChunk()));
    s.append(
        String.format(
            Locale.ROOT,
            "rate scale %.3f puts the steady phase at %.0f%% of %d workers (reference: 1.8 on the"
                + " reference machine)%n",
            c.rateScale(),
            c.steadyTarget() * 100,
            c.workers()));
    s.append(
        String.format(
            Locale.ROOT,
            "%-9s %12s %12s %14s%n",
            "phase",
            "utilisation",
            "cpu share",
            "cpu per core"));
    for (Phase p : Phase.values()) {
      s.append(
          String.format(
              Locale.ROOT,
              "%-9s %11.0f%% %11.0f%% %13.0f%%%n",
              p.wireName(),
              c.utilisation().get(p) * 100,
              c.cpuShare().get(p) * 100,
              c.cpuPerCore().get(p) * 100));
    }
    double flash = c.utilisation().get(Phase.FLASH_SALE);
    s.append(
        String.format(
            Locale.ROOT,
            "flash sale at %.0f%% (reference about %.0f%%)%s%n",
            flash * 100,
            Calibration.FLASH_TARGET * 100,
            Math.abs(flash - Calibration.FLASH_TARGET) > 0.1
                ? ": the phase multipliers and this machine's CPU/I-O mix do not give the"
                    + " reference's ratio"
                : ""));
    double peakCpu = c.cpuPerCore().get(Phase.FLASH_SALE);
    if (peakCpu > 1) {
      s.append(
          String.format(
              Locale.ROOT,
              "warning: with cpu handlers the flash sale asks %.0f%% of %d cores: CPU, not the"
                  + " workers, is then the bottleneck%n",
              peakCpu * 100,
              c.cores()));
    }
    return s.toString();
  }

  private Path write(Calibration c) throws IOException {
    Instant now = clock.instant();
    Map<String, Object> json = new LinkedHashMap<>();
    json.put("measured_at", now.toString());
    json.put("command", commandLine());
    json.put("machine", machineFacts());
    KernelCalibration k = c.kernels();
    Map<String, Object> kernels = new LinkedHashMap<>();
    kernels.put("source", referenceKernels ? "reference typical values" : "measured");
    kernels.put("render_ms_per_kib", k.renderMsPerKib());
    kernels.put("invoice_ms_per_item", k.invoiceMsPerItem());
    kernels.put("resize_ms_per_mp", k.resizeMsPerMegapixel());
    kernels.put("reindex_ms_per_word", k.reindexMsPerWord());
    kernels.put("export_ms_per_chunk", k.exportMsPerChunk());
    json.put("kernels", kernels);
    json.put("workers", c.workers());
    json.put("cores", c.cores());
    json.put("steady_target", c.steadyTarget());
    json.put("rate_scale", c.rateScale());
    json.put("reference_rate_scale", WorkloadConfig.REFERENCE_RATE_SCALE);
    Map<String, Object> phases = new LinkedHashMap<>();
    for (Phase p : Phase.values()) {
      Map<String, Object> row = new LinkedHashMap<>();
      row.put("utilisation", c.utilisation().get(p));
      row.put("cpu_share", c.cpuShare().get(p));
      row.put("cpu_per_core", c.cpuPerCore().get(p));
      row.put("planned_ms_per_second_at_scale_1", c.totalPerSecondAtScaleOne().get(p));
      phases.put(p.wireName(), row);
    }
    json.put("phases", phases);
    Files.createDirectories(out);
    Path file = out.resolve("calibration-" + now.toString().replace(':', '-') + ".json");
    new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(file.toFile(), json);
    return file;
  }

  private String commandLine() {
    return "java io.harbinger.experiments.workload.CalibrationMain " + String.join(" ", arguments);
  }

  private static Map<String, Object> machineFacts() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("available_processors", Runtime.getRuntime().availableProcessors());
    m.put("os", System.getProperty("os.name") + " " + System.getProperty("os.version"));
    m.put("arch", System.getProperty("os.arch"));
    m.put("java", System.getProperty("java.vm.name") + " " + System.getProperty("java.version"));
    m.put("max_heap_mb", Runtime.getRuntime().maxMemory() / (1024 * 1024));
    m.put("cpu_model", firstLine(Path.of("/proc/cpuinfo"), "model name"));
    m.put("load_average", firstLine(Path.of("/proc/loadavg"), ""));
    return m;
  }

  private static String firstLine(Path file, String prefix) {
    try {
      List<String> lines = Files.readAllLines(file);
      for (String line : lines) {
        if (line.startsWith(prefix)) {
          int colon = line.indexOf(':');
          return prefix.isEmpty() || colon < 0 ? line.trim() : line.substring(colon + 1).trim();
        }
      }
      return "unknown";
    } catch (IOException | RuntimeException e) {
      return "unknown (" + e.getMessage() + ")";
    }
  }
}
