package io.harbinger.experiments;

import io.harbinger.broker.BrokerMain;
import io.harbinger.experiments.bench.BenchCommand;
import io.harbinger.experiments.levels.LevelsReplay;
import io.harbinger.experiments.sim.SimulateCommand;
import io.harbinger.launcher.RootCommand;
import io.harbinger.launcher.Verb;
import java.time.Clock;
import java.util.List;

/**
 * The lab's entry point: a root command whose verbs are {@code bench}, {@code simulate}, {@code
 * levels} and {@code broker}, run from a checkout by the {@code ./harbinger} script as the
 * product's verbs are.
 *
 * <p>Example: {@code ./harbinger simulate swf:log.swf.gz --load 0.8} runs {@link SimulateCommand}
 * with {@code swf:log.swf.gz --load 0.8}.
 */
public final class Lab {

  /** The lab's verbs; the broker and bench images run their main classes directly. */
  public static final RootCommand ROOT =
      new RootCommand(
          "harbinger",
          "The lab of Harbinger for RabbitMQ: the comparison broker, the production-flow bench,"
              + " the simulator and the virtual-time replay.",
          List.of(
              new Verb(
                  "bench",
                  BenchCommand.class,
                  BenchCommand::main,
                  () -> BenchCommand.command(new String[0], Clock.systemUTC()).getCommand()),
              new Verb(
                  "simulate", SimulateCommand.class, SimulateCommand::main, SimulateCommand::new),
              new Verb("levels", LevelsReplay.class, LevelsReplay::main, LevelsReplay::new),
              new Verb("broker", BrokerMain.class, BrokerMain::main, BrokerMain::new)));

  private Lab() {}

  /**
   * Runs a verb, or the root command when none is given.
   *
   * @param args the verb and its arguments
   */
  public static void main(String[] args) {
    ROOT.main(args);
  }
}
