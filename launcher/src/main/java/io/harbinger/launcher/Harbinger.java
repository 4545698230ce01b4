package io.harbinger.launcher;

import io.harbinger.check.CheckCommand;
import io.harbinger.launcher.demo.DemoCommand;
import io.harbinger.sidecar.SidecarMain;
import java.util.List;

/**
 * {@code ./harbinger}: the product's one entry point, a root command whose verbs are {@code demo},
 * {@code sidecar} and {@code check}.
 *
 * <p>Example: {@code ./harbinger check swf:log.swf.gz} runs {@link CheckCommand} with {@code
 * swf:log.swf.gz}; {@code ./harbinger --version} prints the project version; {@code ./harbinger}
 * alone or {@code --help} lists the verbs. The lab's verbs ({@code bench}, {@code simulate}, {@code
 * levels}, {@code broker}) have a root command of their own in the lab, which the {@code
 * ./harbinger} script runs for them.
 */
public final class Harbinger {

  /** The product's verbs; the sidecar image runs the sidecar's main class directly. */
  public static final RootCommand ROOT =
      new RootCommand(
          "harbinger",
          "Harbinger for RabbitMQ: learns how long each kind of message takes and publishes short"
              + " work first.",
          List.of(
              new Verb("demo", DemoCommand.class, DemoCommand::main, DemoCommand::new),
              new Verb("sidecar", SidecarMain.class, SidecarMain::main, SidecarMain::new),
              new Verb("check", CheckCommand.class, CheckCommand::main, CheckCommand::new)));

  private Harbinger() {}

  /**
   * Runs a verb, or the root command when none is given.
   *
   * @param args the verb and its arguments
   */
  public static void main(String[] args) {
    ROOT.main(args);
  }
}
