package io.harbinger.check.trace;

import java.io.IOException;

/**
 * A trace that cannot be read: a missing or unreadable file, a bad header, a file with no usable
 * row, or a bad trace specification. The message names the file or the specification.
 */
public final class TraceException extends IOException {

  private static final long serialVersionUID = 1L;

  /**
   * Creates the exception.
   *
   * @param message what went wrong, naming the file
   */
  public TraceException(String message) {
    super(message);
  }

  /**
   * Creates the exception with its cause.
   *
   * @param message what went wrong, naming the file
   * @param cause the underlying failure
   */
  public TraceException(String message, Throwable cause) {
    super(message, cause);
  }
}
