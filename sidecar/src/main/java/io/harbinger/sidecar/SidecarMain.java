package io.harbinger.sidecar;

import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code harbinger sidecar}: runs the sidecar until SIGINT or SIGTERM, then shuts it down
 * gracefully.
 *
 * <p>Exit codes: 0 after a clean shutdown, 1 when the sidecar cannot start (a port taken, RabbitMQ
 * unreachable for longer than {@code rabbitmq.startup-retry}, a refused login), 2 for a bad command
 * line or configuration (every problem is listed). Each failure is one line that names the fix.
 */
@Command(
    name = "sidecar",
    mixinStandardHelpOptions = true,
    description = "Learns from duration reports on RabbitMQ and serves route tables over gRPC.")
public final class SidecarMain implements Callable<Integer> {

  @Option(
      names = "--config",
      paramLabel = "FILE",
      description = "harbinger.yaml; without it the defaults of reference.yaml apply.")
  Path config;

  @Option(
      names = "--print-defaults",
      description = "Print the commented defaults (reference.yaml) and exit.")
  boolean printDefaults;

  @Override
  public Integer call() throws Exception {
    if (printDefaults) {
      try (var in = SidecarMain.class.getResourceAsStream("/reference.yaml")) {
        System.out.write(in.readAllBytes());
      }
      return 0;
    }
    SidecarConfig cfg;
    try {
      cfg = ConfigLoader.fromSystem().load(Optional.ofNullable(config));
    } catch (ConfigException e) {
      System.err.println(e.getMessage());
      return 2;
    }
    Sidecar sidecar;
    try {
      sidecar = Sidecar.start(cfg);
    } catch (java.io.IOException e) {
      // The messages name what failed and how to fix it (a port taken, RabbitMQ unreachable or
      // refusing the login).
      System.err.println("the sidecar could not start: " + e.getMessage());
      return 1;
    } catch (java.util.concurrent.TimeoutException e) {
      System.err.println(
          "the sidecar could not start: RabbitMQ at "
              + cfg.rabbit().uri()
              + " did not answer in time ("
              + e.getMessage()
              + "): is it overloaded, or is rabbitmq.uri another service?");
      return 1;
    }
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  sidecar.close();
                  stopped.countDown();
                },
                "harbinger-shutdown"));
    stopped.await();
    return 0;
  }

  /**
   * Runs the command.
   *
   * @param args the command line
   */
  public static void main(String[] args) {
    int code = new CommandLine(new SidecarMain()).execute(args);
    if (code != 0) {
      System.exit(code);
    }
  }
}
