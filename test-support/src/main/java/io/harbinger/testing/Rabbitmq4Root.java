package io.harbinger.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * Runs {@link PrivateNode}s of RabbitMQ 4.0, with chroot in the Debian 13 root that {@code
 * scripts/rabbitmq4.sh start} builds and mounts ({@code RABBITMQ4_ROOT}, by default {@code
 * /var/lib/harbinger/rabbitmq-4.0-root}); each node's directory lives under the root's {@code
 * /tmp}. Needs root, as the script does. Where the root is missing or not mounted, {@link
 * PrivateNode.Builder#start()} skips the calling test, or fails it under {@code CI=true}.
 *
 * <pre>{@code
 * PrivateNode node4 = PrivateNode.builder().runtime(new Rabbitmq4Root()).start();
 * }</pre>
 */
public final class Rabbitmq4Root implements PrivateNode.Runtime {

  private static final String BIN = "/usr/lib/rabbitmq/bin";

  private final Path root =
      Path.of(
          Environment.current()
              .get("RABBITMQ4_ROOT")
              .orElse("/var/lib/harbinger/rabbitmq-4.0-root"));

  /** Creates the runtime of the root {@code RABBITMQ4_ROOT} names, or the script's default. */
  public Rabbitmq4Root() {}

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
