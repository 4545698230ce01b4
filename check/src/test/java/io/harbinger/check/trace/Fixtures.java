package io.harbinger.check.trace;

import java.io.IOException;
import java.io.OutputStream;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.GZIPOutputStream;

/** Test fixtures under src/test/resources/traces and small files written on the fly. */
final class Fixtures {

  private Fixtures() {}

  static Path resource(String name) {
    try {
      return Path.of(Fixtures.class.getResource("/traces/" + name).toURI());
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }

  static Path gzip(Path source, Path target) throws IOException {
    try (OutputStream out = new GZIPOutputStream(Files.newOutputStream(target))) {
      Files.copy(source, out);
    }
    return target;
  }

  static Trace read(String format, Path path) throws TraceException {
    return TraceFormat.read(format + ":" + path);
  }

  static Trace read(String format, Path path, String options) throws TraceException {
    return TraceFormat.read(format + ":" + path + "?" + options);
  }
}
