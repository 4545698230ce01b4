package io.harbinger.launcher;

import io.harbinger.broker.BrokerMain;
import io.harbinger.experiments.bench.BenchCommand;
import io.harbinger.experiments.check.CheckCommand;
import io.harbinger.experiments.levels.LevelsReplay;
import io.harbinger.experiments.sim.SimulateCommand;
import io.harbinger.sidecar.SidecarMain;
import io.harbinger.sidecar.demo.DemoCommand;
import java.io.IOException;
import java.io.InputStream;
import java.time.Clock;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import java.util.function.Consumer;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.IVersionProvider;

/**
 * {@code ./harbinger}: the one entry point, a root command whose subcommands are the verbs demo,
 * sidecar, broker, check, simulate, bench and levels.
 *
 * <p>Example: {@code ./harbinger simulate swf:log.swf.gz --load 0.8} runs {@link SimulateCommand}
 * with {@code swf:log.swf.gz --load 0.8}; {@code ./harbinger --version} prints the project version;
 * {@code ./harbinger} alone or {@code --help} lists the verbs.
 *
 * <p>Implementation notes: each verb is run by its own main method ({@link #VERBS}), on the
 * arguments after the verb, so that it keeps its own error handling and exit codes and records its
 * command line as before ({@code simulate} and {@code bench} write it into their results). The root
 * command parses only when no verb is given. The process exits with the verb's code; the sidecar,
 * which keeps serving after its command returns, exits only on failure.
 */
@Command(
    name = "harbinger",
    mixinStandardHelpOptions = true,
    versionProvider = Harbinger.Version.class,
    description =
        "Harbinger for RabbitMQ: learns how long each kind of message takes and publishes short"
            + " work first. ./harbinger <verb> --help shows a verb's options.")
public final class Harbinger implements Runnable {

  /** Each verb and the main method that runs it; the Docker images run the same classes. */
  public static final Map<String, Class<?>> VERBS = verbs();

  private static Map<String, Class<?>> verbs() {
    Map<String, Class<?>> m = new LinkedHashMap<>();
    m.put("demo", DemoCommand.class);
    m.put("sidecar", SidecarMain.class);
    m.put("broker", BrokerMain.class);
    m.put("check", CheckCommand.class);
    m.put("simulate", SimulateCommand.class);
    m.put("bench", BenchCommand.class);
    m.put("levels", LevelsReplay.class);
    return Map.copyOf(m);
  }

  private static final Map<String, Consumer<String[]>> MAINS =
      Map.of(
          "demo", DemoCommand::main,
          "sidecar", SidecarMain::main,
          "broker", BrokerMain::main,
          "check", CheckCommand::main,
          "simulate", SimulateCommand::main,
          "bench", BenchCommand::main,
          "levels", LevelsReplay::main);

  private Harbinger() {}

  /**
   * Runs a verb, or the root command when none is given.
   *
   * @param args the verb and its arguments
   */
  public static void main(String[] args) {
    if (args.length > 0 && MAINS.containsKey(args[0])) {
      MAINS.get(args[0]).accept(Arrays.copyOfRange(args, 1, args.length));
      return;
    }
    System.exit(root(args));
  }

  /**
   * Runs the root command: {@code --help}, {@code --version}, or the usage and exit code 2 for no
   * verb or an unknown one.
   *
   * @param args the arguments, none of which names a verb
   * @return the exit code
   */
  static int root(String[] args) {
    CommandLine cli = commandLine();
    if (args.length == 0) {
      cli.usage(cli.getErr());
      return CommandLine.ExitCode.USAGE;
    }
    return cli.execute(args);
  }

  @Override
  public void run() {
    // only reached for options such as --help and --version, which picocli handles
  }

  /** Reads the project version that the build writes into version.properties. */
  static final class Version implements IVersionProvider {
    @Override
    public String[] getVersion() throws IOException {
      return new String[] {"harbinger " + version()};
    }
  }

  /**
   * Returns the project version.
   *
   * @return the version of the build, such as {@code 0.1.0-SNAPSHOT}
   * @throws IOException when the build did not write it
   */
  static String version() throws IOException {
    Properties p = new Properties();
    try (InputStream in = Harbinger.class.getResourceAsStream("version.properties")) {
      if (in == null) {
        throw new IOException("io/harbinger/launcher/version.properties is missing");
      }
      p.load(in);
    }
    return p.getProperty("version", "unknown");
  }

  /**
   * Returns the root command with every verb as a subcommand.
   *
   * @return the command line
   */
  static CommandLine commandLine() {
    CommandLine cli = new CommandLine(new Harbinger());
    cli.addSubcommand("demo", new DemoCommand());
    cli.addSubcommand("sidecar", new SidecarMain());
    cli.addSubcommand("broker", new BrokerMain());
    cli.addSubcommand("check", new CheckCommand());
    cli.addSubcommand("simulate", new SimulateCommand());
    cli.addSubcommand("bench", BenchCommand.command(new String[0], Clock.systemUTC()));
    cli.addSubcommand("levels", new LevelsReplay());
    return cli;
  }
}
