package io.harbinger.rabbit;

import io.harbinger.testing.PrivateNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * Private RabbitMQ 4.0 nodes, run with chroot in the Debian 13 root that {@code
 * scripts/rabbitmq4.sh start} builds and mounts ({@code RABBITMQ4_ROOT}, by default {@code
 * /var/lib/harbinger/rabbitmq-4.0-root}); each node's directory lives under the root's {@code
 * /tmp}.
 */
final class Rabbit4Root implements PrivateNode.Runtime {

  private static final String BIN = "/usr/lib/rabbitmq/bin";

  private final Path root =
      Path.of(
          System.getenv().getOrDefault("RABBITMQ4_ROOT", "/var/lib/harbinger/rabbitmq-4.0-root"));

  @Override
  public List<String> prefix() {
    return List.of("chroot", root.toString());
  }

  @Override
  public String server() {
    return BIN + "/rabbitmq-server";
  }

  @Override
  public String ctl() {
    return BIN + "/rabbitmqctl";
  }

  @Override
  public Path newDirectory() throws IOException {
    Path tmp = root.resolve("tmp");
    Files.createDirectories(tmp);
    return Files.createTempDirectory(tmp, "harbinger-node-");
  }

  @Override
  public String pathInside(Path hostPath) {
    return "/" + root.relativize(hostPath.toAbsolutePath());
  }

  @Override
  public Optional<String> unavailable() {
    if (!Files.isExecutable(root.resolve(BIN.substring(1)).resolve("rabbitmq-server"))) {
      return Optional.of("no RabbitMQ 4.0 root at " + root + ": run scripts/rabbitmq4.sh start");
    }
    if (!Files.isDirectory(root.resolve("proc/self"))) {
      return Optional.of(root + "/proc is not mounted: run scripts/rabbitmq4.sh start");
    }
    return Optional.empty();
  }
}
