package io.harbinger.broker;

/**
 * A request the broker refuses; {@link #kind} says which gRPC status it maps to at the service
 * boundary.
 */
public final class BrokerException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  /** Why a request was refused. */
  public enum Kind {
    /** The caller is not registered, or does not own the delivery. */
    PERMISSION_DENIED,
    /** The request is malformed. */
    INVALID_ARGUMENT,
    /** The broker knows no such delivery. */
    NOT_FOUND,
    /** The delivery is stale, its lease expired, or it was settled differently before. */
    FAILED_PRECONDITION,
    /** The broker is full. */
    RESOURCE_EXHAUSTED
  }

  private final Kind kind;

  BrokerException(Kind kind, String message) {
    super(message, null, false, false);
    this.kind = kind;
  }

  /** Returns the kind of refusal. */
  public Kind kind() {
    return kind;
  }

  static BrokerException invalid(String message) {
    return new BrokerException(Kind.INVALID_ARGUMENT, message);
  }

  static BrokerException denied(String message) {
    return new BrokerException(Kind.PERMISSION_DENIED, message);
  }

  static BrokerException notFound(String message) {
    return new BrokerException(Kind.NOT_FOUND, message);
  }

  static BrokerException precondition(String message) {
    return new BrokerException(Kind.FAILED_PRECONDITION, message);
  }

  static BrokerException exhausted(String message) {
    return new BrokerException(Kind.RESOURCE_EXHAUSTED, message);
  }
}
