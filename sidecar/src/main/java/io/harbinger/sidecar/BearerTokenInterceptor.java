package io.harbinger.sidecar;

import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import io.grpc.health.v1.HealthGrpc;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;

/**
 * Requires {@code authorization: Bearer <token>} on every call except the health service, which
 * orchestrators probe without credentials. The comparison is constant-time; the token is never
 * logged.
 */
final class BearerTokenInterceptor implements ServerInterceptor {

  static final Metadata.Key<String> AUTHORIZATION =
      Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);

  private final byte[] expected;

  BearerTokenInterceptor(String token) {
    if (token == null || token.isBlank()) {
      throw new IllegalArgumentException("token must not be empty");
    }
    this.expected = ("Bearer " + token).getBytes(StandardCharsets.US_ASCII);
  }

  @Override
  public <Q, R> ServerCall.Listener<Q> interceptCall(
      ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
    String service = call.getMethodDescriptor().getServiceName();
    if (HealthGrpc.SERVICE_NAME.equals(service)) {
      return next.startCall(call, headers);
    }
    String presented = headers.get(AUTHORIZATION);
    if (presented == null
        || !MessageDigest.isEqual(expected, presented.getBytes(StandardCharsets.US_ASCII))) {
      call.close(
          Status.UNAUTHENTICATED.withDescription("a valid bearer token is required"),
          new Metadata());
      return new ServerCall.Listener<>() {};
    }
    return next.startCall(call, headers);
  }
}
