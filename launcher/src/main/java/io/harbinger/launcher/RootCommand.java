package io.harbinger.launcher;

import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;

/**
 * A root command whose subcommands are verbs: {@code main} runs the verb named by the first
 * argument through the verb's own main method, or handles {@code --help} and {@code --version}.
 *
 * <p>Example: with the verbs of {@link Harbinger}, {@code check swf:log.swf.gz} runs {@code
 * CheckCommand.main(new String[] {"swf:log.swf.gz"})}; {@code --version} prints {@code harbinger
 * 0.1.0-SNAPSHOT}; no arguments, or an unknown verb, print the usage and exit with code 2.
 *
 * <p>Implementation notes: each verb runs through its own main method, on the arguments after the
 * verb, so that it keeps its own error handling and exit codes and records its command line as it
 * would alone. The root parses only when no verb is given. The process exits with the verb's code;
 * a verb that keeps serving after its main method returns (the sidecar) exits only on failure.
 */
public final class RootCommand {

  private final String name;
  private final String description;
  private final Map<String, Verb> verbs;

  /**
   * Creates a root command.
   *
   * @param name the command's name, for example {@code harbinger}
   * @param description one sentence for the usage
   * @param verbs the verbs, in the order the usage lists them; names unique
   * @throws IllegalArgumentException when two verbs have the same name
   */
  public RootCommand(String name, String description, List<Verb> verbs) {
    this.name = name;
    this.description = description;
    Map<String, Verb> byName = new LinkedHashMap<>();
    for (Verb v : verbs) {
      if (byName.putIfAbsent(v.name(), v) != null) {
        throw new IllegalArgumentException("verb defined twice: " + v.name());
      }
    }
    this.verbs = byName;
  }

  /**
   * Returns the verbs by name, in the order of the usage.
   *
   * @return an unmodifiable view
   */
  public Map<String, Verb> verbs() {
    return java.util.Collections.unmodifiableMap(verbs);
  }

  /**
   * Runs a verb, or the root command when the first argument names none; exits the process with the
   * root command's code in the latter case.
   *
   * @param args the verb and its arguments
   */
  public void main(String[] args) {
    if (args.length > 0 && verbs.containsKey(args[0])) {
      verbs.get(args[0]).main().accept(Arrays.copyOfRange(args, 1, args.length));
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
  public int root(String[] args) {
    CommandLine cli = commandLine();
    if (args.length == 0) {
      cli.usage(cli.getErr());
      return CommandLine.ExitCode.USAGE;
    }
    return cli.execute(args);
  }

  /**
   * Returns the root command line with every verb as a subcommand.
   *
   * @return a new command line
   */
  public CommandLine commandLine() {
    CommandSpec spec =
        CommandSpec.create()
            .name(name)
            .mixinStandardHelpOptions(true)
            .versionProvider(() -> new String[] {name + " " + version()});
    spec.usageMessage()
        .description(description + " ./" + name + " <verb> --help shows a verb's options.");
    CommandLine cli = new CommandLine(spec);
    verbs.values().forEach(v -> cli.addSubcommand(v.name(), v.command().get()));
    return cli;
  }

  /**
   * Returns the project version.
   *
   * @return the version of the build, such as {@code 0.1.0-SNAPSHOT}
   * @throws IOException when the build did not write it
   */
  public static String version() throws IOException {
    Properties p = new Properties();
    try (InputStream in = RootCommand.class.getResourceAsStream("version.properties")) {
      if (in == null) {
        throw new IOException("io/harbinger/launcher/version.properties is missing");
      }
      p.load(in);
    }
    return p.getProperty("version", "unknown");
  }
}
