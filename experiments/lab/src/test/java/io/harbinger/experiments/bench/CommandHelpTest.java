package io.harbinger.experiments.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.harbinger.broker.BrokerMain;
import io.harbinger.broker.bench.BrokerCostBench;
import io.harbinger.check.CheckCommand;
import io.harbinger.experiments.levels.LevelsReplay;
import io.harbinger.experiments.sim.SimulateCommand;
import io.harbinger.experiments.sim.SimulatorGap;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import picocli.CommandLine;

/** Every command's {@code --help} renders cleanly: no picocli warning, no unformatted text. */
class CommandHelpTest {

  static Stream<Object> commands() {
    return Stream.of(
        new BenchCommand(new String[0], Clock.systemUTC()),
        new SimulateCommand(),
        new CheckCommand(),
        new BrokerMain(),
        new BrokerCostBench(),
        new SimulatorGap(),
        new LevelsReplay());
  }

  @ParameterizedTest
  @MethodSource("commands")
  void help_rendersWithoutPicocliWarnings(Object command) {
    PrintStream saved = System.err;
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    String usage;
    try {
      System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
      usage = new CommandLine(command).getUsageMessage(CommandLine.Help.Ansi.OFF);
    } finally {
      System.setErr(saved);
    }
    assertThat(captured.toString(StandardCharsets.UTF_8)).as("picocli warnings").isEmpty();
    assertThat(usage).startsWith("Usage: ").doesNotContain("%n");
  }
}
