package io.harbinger.launcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class HarbingerTest {

  @Test
  void version_printsTheProjectVersion() throws Exception {
    StringWriter out = new StringWriter();
    CommandLine cli = Harbinger.ROOT.commandLine();
    cli.setOut(new PrintWriter(out, true));
    assertThat(cli.execute("--version")).isZero();
    assertThat(out.toString().strip()).isEqualTo("harbinger " + RootCommand.version());
    assertThat(RootCommand.version()).matches("\\d+\\.\\d+\\.\\d+(-SNAPSHOT)?");
  }

  @Test
  void help_listsEveryProductVerbAsASubcommand() {
    CommandLine cli = Harbinger.ROOT.commandLine();
    assertThat(cli.getSubcommands().keySet()).containsExactly("demo", "sidecar", "check");
    cli.getSubcommands()
        .forEach(
            (verb, sub) ->
                assertThat(sub.getCommandSpec().userObject())
                    .as(verb)
                    .isInstanceOf(Harbinger.ROOT.verbs().get(verb).type()));
    StringWriter out = new StringWriter();
    cli.setOut(new PrintWriter(out, true));
    assertThat(cli.execute("--help")).isZero();
    assertThat(out.toString()).contains("demo", "check", "sidecar", "--version");
  }

  @Test
  void root_noVerbOrAnUnknownOne_exitsWithTheUsageCode() {
    assertThat(Harbinger.ROOT.root(new String[0])).isEqualTo(CommandLine.ExitCode.USAGE);
    assertThat(Harbinger.ROOT.root(new String[] {"lifo"})).isEqualTo(CommandLine.ExitCode.USAGE);
  }

  @Test
  void rootCommand_twoVerbsOfOneName_isRefused() {
    Verb v = new Verb("x", Object.class, args -> {}, Object::new);
    assertThatThrownBy(() -> new RootCommand("r", "d", List.of(v, v)))
        .hasMessage("verb defined twice: x");
  }
}
