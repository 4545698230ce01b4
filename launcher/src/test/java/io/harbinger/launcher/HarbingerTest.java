package io.harbinger.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class HarbingerTest {

  @Test
  void version_printsTheProjectVersion() throws Exception {
    StringWriter out = new StringWriter();
    CommandLine cli = Harbinger.commandLine();
    cli.setOut(new PrintWriter(out, true));
    assertThat(cli.execute("--version")).isZero();
    assertThat(out.toString().strip()).isEqualTo("harbinger " + Harbinger.version());
    assertThat(Harbinger.version()).matches("\\d+\\.\\d+\\.\\d+(-SNAPSHOT)?");
  }

  @Test
  void help_listsEveryVerbAsASubcommand() {
    CommandLine cli = Harbinger.commandLine();
    assertThat(cli.getSubcommands().keySet())
        .containsExactly("demo", "sidecar", "broker", "check", "simulate", "bench", "levels");
    assertThat(cli.getSubcommands().keySet())
        .containsExactlyInAnyOrderElementsOf(Harbinger.VERBS.keySet());
    cli.getSubcommands()
        .forEach(
            (verb, sub) ->
                assertThat(sub.getCommandSpec().userObject())
                    .as(verb)
                    .isInstanceOf(Harbinger.VERBS.get(verb)));
    StringWriter out = new StringWriter();
    cli.setOut(new PrintWriter(out, true));
    assertThat(cli.execute("--help")).isZero();
    assertThat(out.toString()).contains("simulate", "bench", "sidecar", "--version");
  }

  @Test
  void root_noVerbOrAnUnknownOne_exitsWithTheUsageCode() {
    assertThat(Harbinger.root(new String[0])).isEqualTo(CommandLine.ExitCode.USAGE);
    assertThat(Harbinger.root(new String[] {"lifo"})).isEqualTo(CommandLine.ExitCode.USAGE);
  }
}
