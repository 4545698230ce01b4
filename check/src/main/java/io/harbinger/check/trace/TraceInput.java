package io.harbinger.check.trace;

import java.io.BufferedInputStream;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.zip.GZIPInputStream;

/**
 * Opens trace files and walks their lines with line numbers, reading gzip transparently.
 *
 * <p>Implementation notes: gzip is recognised by its magic bytes (0x1f 0x8b, RFC 1952 section
 * 2.3.1), not by the file name, so a compressed file without {@code .gz} and a plain file named
 * {@code .gz} both read correctly. Text is UTF-8; a byte-order mark at the start is dropped, so a
 * header written by a spreadsheet still matches. Every I/O failure becomes a {@link TraceException}
 * naming the file and, once reading has started, the line.
 */
final class TraceInput {

  /** Receives one line. */
  @FunctionalInterface
  interface LineHandler {
    /**
     * Handles a line.
     *
     * @param line the line without its terminator
     * @param lineNumber its 1-based number in the (decompressed) file
     * @throws TraceException to stop reading, for example at a bad header
     */
    void accept(String line, long lineNumber) throws TraceException;
  }

  private static final int BUFFER_BYTES = 1 << 16;

  private TraceInput() {}

  /**
   * Reads a file line by line.
   *
   * @param path the file, plain or gzip
   * @param handler receives each line
   * @throws TraceException when the file is missing, unreadable or corrupt, or the handler throws
   */
  static void forEachLine(Path path, LineHandler handler) throws TraceException {
    long lineNumber = 0;
    try (BufferedReader reader = open(path)) {
      String line;
      while ((line = reader.readLine()) != null) {
        lineNumber++;
        if (lineNumber == 1 && line.startsWith("\uFEFF")) {
          line = line.substring(1);
        }
        handler.accept(line, lineNumber);
      }
    } catch (TraceException e) {
      throw e;
    } catch (IOException e) {
      throw new TraceException(
          "cannot read trace file " + path + " after line " + lineNumber + ": " + describe(e), e);
    }
  }

  private static BufferedReader open(Path path) throws TraceException {
    if (Files.isDirectory(path)) {
      throw new TraceException("cannot read trace file " + path + ": it is a directory");
    }
    InputStream in;
    try {
      in = new BufferedInputStream(Files.newInputStream(path), BUFFER_BYTES);
    } catch (IOException e) {
      throw new TraceException("cannot read trace file " + path + ": " + describe(e), e);
    }
    try {
      in.mark(2);
      int b0 = in.read();
      int b1 = in.read();
      in.reset();
      if (b0 == 0x1f && b1 == 0x8b) {
        in = new GZIPInputStream(in, BUFFER_BYTES);
      }
      return new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8), BUFFER_BYTES);
    } catch (IOException e) {
      try {
        in.close();
      } catch (IOException suppressed) {
        e.addSuppressed(suppressed);
      }
      throw new TraceException("cannot read trace file " + path + ": " + describe(e), e);
    }
  }

  private static String describe(IOException e) {
    if (e instanceof NoSuchFileException) {
      return "no such file";
    }
    if (e instanceof AccessDeniedException) {
      return "permission denied";
    }
    return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
  }
}
