package io.harbinger.predictor;

import java.io.IOException;

/**
 * A snapshot file that was refused, with the reason; the predictor it was meant for starts cold
 * instead.
 */
public final class SnapshotException extends IOException {

  private static final long serialVersionUID = 1L;

  /** Why a snapshot was refused. */
  public enum Reason {
    /** There is no file. */
    ABSENT,
    /** The file could not be read. */
    UNREADABLE,
    /** The file is larger than a snapshot can be. */
    TOO_LARGE,
    /** The file ends before its content does. */
    TRUNCATED,
    /** The file does not start with the snapshot magic: it is not a predictor snapshot. */
    NOT_A_SNAPSHOT,
    /** The checksum does not match: the file was corrupted. */
    CHECKSUM_MISMATCH,
    /** The file was written by an unsupported format version. */
    WRONG_VERSION,
    /**
     * The file was written under another configuration (levels, histogram layout, size bins or
     * context).
     */
    FOREIGN_CONFIGURATION,
    /**
     * A value in the file breaks a rule (negative weight, unsorted boundaries, bad key, trailing
     * bytes...).
     */
    INVALID_CONTENT
  }

  private final Reason reason;

  /**
   * Creates the exception.
   *
   * @param reason why the file was refused
   * @param message the details, naming the file and the offending value
   */
  public SnapshotException(Reason reason, String message) {
    super(reason + ": " + message);
    this.reason = reason;
  }

  /**
   * Creates the exception with a cause.
   *
   * @param reason why the file was refused
   * @param message the details
   * @param cause the underlying failure
   */
  public SnapshotException(Reason reason, String message, Throwable cause) {
    super(reason + ": " + message, cause);
    this.reason = reason;
  }

  /**
   * Returns why the file was refused.
   *
   * @return the reason
   */
  public Reason reason() {
    return reason;
  }
}
