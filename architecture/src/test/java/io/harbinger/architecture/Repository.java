package io.harbinger.architecture;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Where the repository's files are, for the tests that read them rather than the classes. */
final class Repository {

  private Repository() {}

  /**
   * Returns the repository's root: the nearest folder above the working directory that holds the
   * {@code architecture} module.
   *
   * @throws UncheckedIOException when there is none
   */
  static Path root() {
    Path p = Path.of("").toAbsolutePath();
    while (p != null && !Files.isDirectory(p.resolve("architecture"))) {
      p = p.getParent();
    }
    if (p == null) {
      throw new UncheckedIOException(
          new IOException("no repository root above " + Path.of("").toAbsolutePath()));
    }
    return p;
  }
}
