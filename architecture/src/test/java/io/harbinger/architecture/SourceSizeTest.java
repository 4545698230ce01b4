package io.harbinger.architecture;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The product's classes stay small enough to read in one sitting: no main source file of a product
 * module is longer than {@value #MAX_LINES} lines. The lab, under {@code experiments/}, is not held
 * to it.
 */
class SourceSizeTest {

  /** The longest a product source file may be, comments included. */
  static final int MAX_LINES = 700;

  @Test
  void productSources_areAtMost700LinesEach() throws IOException {
    assertThat(oversized(Repository.root())).isEmpty();
  }

  @Test
  void oversized_namesAProductFileOverTheLimitAndSkipsTheLab(@TempDir Path dir) throws IOException {
    Path product = dir.resolve("sidecar/src/main/java/x/Big.java");
    Path lab = dir.resolve("experiments/lab/src/main/java/x/Big.java");
    Path test = dir.resolve("sidecar/src/test/java/x/BigTest.java");
    Path fits = dir.resolve("sidecar/src/main/java/x/Fits.java");
    for (Path p : List.of(product, lab, test, fits)) {
      Files.createDirectories(p.getParent());
    }
    String tooLong = "//\n".repeat(MAX_LINES + 1);
    Files.writeString(product, tooLong);
    Files.writeString(lab, tooLong);
    Files.writeString(test, tooLong);
    Files.writeString(fits, "//\n".repeat(MAX_LINES));
    assertThat(oversized(dir)).containsExactly("sidecar/src/main/java/x/Big.java: 701 lines");
  }

  /** Returns each product main source file over the limit, relative to the root, with its size. */
  static List<String> oversized(Path root) throws IOException {
    try (Stream<Path> files = Files.walk(root)) {
      return files
          .filter(p -> p.toString().endsWith(".java") && Files.isRegularFile(p))
          .filter(p -> isProductMain(root.relativize(p)))
          .filter(p -> lines(p) > MAX_LINES)
          .map(p -> root.relativize(p).toString().replace('\\', '/') + ": " + lines(p) + " lines")
          .sorted()
          .toList();
    }
  }

  private static boolean isProductMain(Path relative) {
    String s = relative.toString().replace('\\', '/');
    return !s.startsWith("experiments/")
        && !s.contains("/target/")
        && !s.startsWith("target/")
        && s.contains("/src/main/java/");
  }

  private static long lines(Path file) {
    try (Stream<String> l = Files.lines(file)) {
      return l.count();
    } catch (IOException e) {
      throw new UncheckedIOException(file.toString(), e);
    }
  }
}
